"""Python extensions: what an extension imports (the API), and the shell's extension support.

An extension is a module or package exposing ``register(pi: ExtensionAPI)`` (see
``docs/extensions.md``). Its names, for type hints and results::

    from pi_cli.shell.extensions import Block, ExtensionAPI, ExtensionContext, ToolCallEvent

Names load on first use (as the shell's front door does), so the shell's own modules in this
package (``discovery``, ``attach``) cost nothing at start-up when no extension is installed.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.shell.dialogs import DialogAnswer
    from pi_cli.shell.events.dialogs import MessageView, ViewSpan
    from pi_cli.shell.extensions.api import (
        AgentStartEvent,
        Answer,
        BeforeAgentStart,
        Block,
        CommandEvent,
        ContextEvent,
        Handled,
        InputEvent,
        KeyEvent,
        ModelSelectEvent,
        Patch,
        ProviderRequestEvent,
        ProviderResponseEvent,
        Rewrite,
        SessionCompactEvent,
        SessionShutdownEvent,
        SessionStartEvent,
        SessionSwitchEvent,
        ToolCallEvent,
        ToolResultEvent,
    )
    from pi_cli.shell.extensions.context import ExtensionContext, ExtensionUI
    from pi_cli.shell.extensions.control import CommandInfo, ExecResult, ToolInfo
    from pi_cli.shell.extensions.messages import CustomMessage
    from pi_cli.shell.extensions.registry import ExtensionAPI

_API = "pi_cli.shell.extensions.api"
_EXPORTS: dict[str, str] = {
    "ExtensionAPI": "pi_cli.shell.extensions.registry",
    "ExtensionContext": "pi_cli.shell.extensions.context",
    "ExtensionUI": "pi_cli.shell.extensions.context",
    "DialogAnswer": "pi_cli.shell.dialogs",
    "CommandInfo": "pi_cli.shell.extensions.control",
    "ExecResult": "pi_cli.shell.extensions.control",
    "ToolInfo": "pi_cli.shell.extensions.control",
    "CustomMessage": "pi_cli.shell.extensions.messages",
    "MessageView": "pi_cli.shell.events.dialogs",
    "ViewSpan": "pi_cli.shell.events.dialogs",
    **{
        name: _API
        for name in (
            "AgentStartEvent",
            "BeforeAgentStart",
            "ModelSelectEvent",
            "SessionCompactEvent",
            "SessionSwitchEvent",
            "Answer",
            "Block",
            "CommandEvent",
            "ContextEvent",
            "Handled",
            "InputEvent",
            "KeyEvent",
            "Patch",
            "ProviderRequestEvent",
            "ProviderResponseEvent",
            "Rewrite",
            "SessionShutdownEvent",
            "SessionStartEvent",
            "ToolCallEvent",
            "ToolResultEvent",
        )
    },
}

__all__ = [
    "CustomMessage",
    "MessageView",
    "ViewSpan",
    "AgentStartEvent",
    "BeforeAgentStart",
    "ModelSelectEvent",
    "SessionCompactEvent",
    "SessionSwitchEvent",
    "Answer",
    "Block",
    "CommandEvent",
    "CommandInfo",
    "ContextEvent",
    "DialogAnswer",
    "ExecResult",
    "ExtensionAPI",
    "ExtensionContext",
    "ExtensionUI",
    "Handled",
    "InputEvent",
    "KeyEvent",
    "Patch",
    "ProviderRequestEvent",
    "ProviderResponseEvent",
    "Rewrite",
    "SessionShutdownEvent",
    "SessionStartEvent",
    "ToolCallEvent",
    "ToolInfo",
    "ToolResultEvent",
]


def __getattr__(name: str) -> object:
    """Import the module defining ``name`` on first use."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
