"""``ExtensionAPI``: the ``pi`` an extension's ``register(pi)`` receives, and what it records.

Registering is recording: tools, commands, key bindings, event handlers and pieces of UI go into
a :class:`Registration`, which the runtime applies on pi's own thread. Called again later (from a
handler), the same methods change a live extension: the runtime is told and applies the change.
"""

from __future__ import annotations

import functools
import inspect
import re
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from pi_cli.shell.extensions._extras import ProvidersAndFlags, ProviderSpec
from pi_cli.shell.extensions.bus import ExtensionEvents
from pi_cli.shell.extensions.control import ShellControls
from pi_cli.shell.extensions.names import DECISION_EVENTS, DERIVED_EVENTS, EVENT_ALIASES

if TYPE_CHECKING:
    from agent_core import FileEffect
    from pi_cli.shell.extensions.context import ExtensionContext, ExtensionUI, HostBridge
    from pi_cli.shell.extensions.messages import CustomMessage

F = TypeVar("F", bound=Callable[..., Any])
TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
COMMAND_NAME = re.compile(r"^[a-z0-9][a-z0-9:_.-]{0,63}$")
KEY_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
Completer = Callable[[str], Sequence[str | tuple[str, str]]]
"""Argument completion of a command: the text typed after its name -> candidates (a value, or
``(value, description)``)."""


@dataclass
class ToolSpec:
    """A tool as registered."""

    name: str
    description: str
    execute: Callable[..., Any]
    parameters: type[BaseModel]
    label: str = ""
    read_only: bool = False
    guideline: str | None = None
    title: Callable[[dict[str, Any]], str] | None = None
    file_effects: Callable[[dict[str, Any]], list[FileEffect]] | None = None

    def schema(self) -> dict[str, Any]:
        """The JSON schema the model sees."""
        schema = self.parameters.model_json_schema()
        schema.pop("title", None)
        return schema


@dataclass
class CommandSpec:
    """A slash command as registered."""

    name: str
    handler: Callable[..., Any]
    description: str = ""
    usage: str = ""
    complete: Completer | None = None
    while_running: bool = False


@dataclass
class KeySpec:
    """A key binding as registered (``id`` is ``<extension>.<name>``, remappable)."""

    id: str
    keys: str
    handler: Callable[..., Any]
    description: str = ""


@dataclass
class Registration:
    """Everything one extension registered."""

    name: str
    tools: dict[str, ToolSpec] = field(default_factory=dict)
    commands: dict[str, CommandSpec] = field(default_factory=dict)
    keys: dict[str, KeySpec] = field(default_factory=dict)
    handlers: dict[str, list[Callable[..., Any]]] = field(default_factory=dict)
    ui: dict[tuple[str, str], tuple[str | None, list[str] | None]] = field(default_factory=dict)
    notices: list[tuple[str, str]] = field(default_factory=list)
    payloads: dict[str, type] = field(default_factory=dict)
    flags: list[dict[str, Any]] = field(default_factory=list)
    providers: dict[str, ProviderSpec] = field(default_factory=dict)
    renderers: dict[str, Callable[..., Any]] = field(default_factory=dict)
    """Command-line flags: ``name``, ``description``, ``type`` (``boolean``/``string``), ``default``."""
    """``pi.events`` names -> the payload type their handlers take."""

    @property
    def events(self) -> list[str]:
        """The events it has handlers for."""
        return sorted(name for name, handlers in self.handlers.items() if handlers)


@functools.cache
def known_events() -> frozenset[str]:
    """Every event name ``pi.on`` accepts: the shell's events, ours, ``*`` (all)."""
    from pi_cli.shell.events import ShellEvent

    names = {cls.type for cls in typing.get_args(ShellEvent)}
    return frozenset({*names, *DECISION_EVENTS, *DERIVED_EVENTS, "*"})


def _parameters_of(execute: Callable[..., Any]) -> type[BaseModel] | None:
    """The pydantic model the first parameter of ``execute`` is annotated with, if any."""
    try:
        hints = typing.get_type_hints(execute)
    except Exception:  # noqa: BLE001 - a name defined inside register(): not resolvable here
        return None
    parameters = list(inspect.signature(execute).parameters)
    hint = hints.get(parameters[0]) if parameters else None
    return hint if isinstance(hint, type) and issubclass(hint, BaseModel) else None


class ExtensionAPI(ProvidersAndFlags, ShellControls):
    """What ``register(pi)`` gets: register tools, commands, keys, handlers; set UI; keep state;
    once loaded, the shell's controls (:class:`~.control.ShellControls`: ``exec``,
    ``set_model``, ``set_active_tools``...), as ``ctx`` has them.

    Example::

        from pydantic import BaseModel, Field
        from pi_cli.shell.extensions import ExtensionAPI, ExtensionContext

        class Greet(BaseModel):
            name: str = Field(description="Who to greet")

        def register(pi: ExtensionAPI) -> None:
            @pi.tool(description="Greet someone", parameters=Greet)
            async def hello(args: Greet, ctx: ExtensionContext) -> str:
                return f"Hello, {args.name}!"
    """

    _registration: Registration

    def __init__(self, registration: Registration, ui: ExtensionUI) -> None:
        self._registration = registration
        self.ui = ui
        """Pieces of UI and notifications (dialogs: ``ctx.ui`` inside handlers)."""
        self.context: ExtensionContext | None = None
        """The live context, once loaded (handlers also get it as ``ctx``)."""
        self.changed: Callable[[], None] = lambda: None
        self.flag_values: dict[str, str | bool] = {}
        """The extensions' flags given on the command line (set by the runtime)."""
        self.events = ExtensionEvents(registration.handlers, registration.payloads)
        """The bus between extensions: ``pi.events.on(name, handler)``, ``pi.events.emit``."""

    @property
    def name(self) -> str:
        """The extension's name (its file, folder or entry point name)."""
        return self._registration.name

    # ------------------------------------------------------------------ tools

    def tool(
        self,
        name: str | None = None,
        *,
        description: str | None = None,
        parameters: type[BaseModel] | None = None,
        label: str = "",
        read_only: bool = False,
        guideline: str | None = None,
    ) -> Callable[[F], F]:
        """Decorator: ``async def execute(args, ctx)`` becomes a tool (see :meth:`register_tool`).

        ``name`` defaults to the function's name, ``description`` to its docstring,
        ``parameters`` to the pydantic model its first parameter is annotated with.
        """

        def decorate(execute: F) -> F:
            self.register_tool(
                name or execute.__name__,
                execute,
                description=description or inspect.getdoc(execute) or "",
                parameters=parameters,
                label=label,
                read_only=read_only,
                guideline=guideline,
            )
            return execute

        return decorate

    def register_tool(
        self,
        name: str,
        execute: Callable[..., Any],
        *,
        description: str,
        parameters: type[BaseModel] | None = None,
        label: str = "",
        read_only: bool = False,
        guideline: str | None = None,
        title: Callable[[dict[str, Any]], str] | None = None,
        file_effects: Callable[[dict[str, Any]], list[FileEffect]] | None = None,
    ) -> None:
        """A tool the model can call, checked like pi's own.

        ``execute(args, ctx)`` gets the validated ``parameters`` instance and returns text, a
        ``ToolResult``, or JSON-able data (shown as JSON); raising ``ToolError`` (or anything)
        makes an error result. Calls go through the permission engine and hooks: ``read_only``
        tools run in every mode, others ask where an unknown tool asks (``default`` mode), and
        ``file_effects(args)`` (the files a call reads or writes) lets the workspace rules judge
        them as they judge ``read`` and ``edit``.
        """
        model = parameters or _parameters_of(execute)
        if model is None or not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise ValueError(f"tool {name!r}: give parameters=<a pydantic model>")
        if not TOOL_NAME.match(name):
            raise ValueError(f"tool name {name!r}: letters, digits, _ and -, at most 64")
        if not description.strip():
            raise ValueError(f"tool {name!r} needs a description (the model reads it)")
        self._registration.tools[name] = ToolSpec(
            name, description, execute, model, label, read_only, guideline, title, file_effects
        )
        self.changed()

    # ------------------------------------------------------------------ commands

    def command(
        self,
        name: str | None = None,
        *,
        description: str = "",
        usage: str = "",
        complete: Completer | None = None,
        while_running: bool = False,
    ) -> Callable[[F], F]:
        """Decorator: ``async def handler(args: str, ctx)`` becomes ``/name``."""

        def decorate(handler: F) -> F:
            doc = inspect.getdoc(handler) or ""
            self.register_command(
                name or handler.__name__.replace("_", "-"),
                handler,
                description=description or doc.split("\n", 1)[0],
                usage=usage,
                complete=complete,
                while_running=while_running,
            )
            return handler

        return decorate

    def register_command(
        self,
        name: str,
        handler: Callable[..., Any],
        *,
        description: str = "",
        usage: str = "",
        complete: Completer | None = None,
        while_running: bool = False,
    ) -> None:
        """``/name args``: ``handler(args, ctx)`` returns text to show (or ``None``).

        ``complete(typed)`` gives candidates for the argument as it is typed (the TUI's menu,
        Tab in the plain REPL). ``while_running``: it may run while the model works (it must
        not start a prompt then).
        """
        name = name.lstrip("/")
        if not COMMAND_NAME.match(name):
            raise ValueError(f"command name {name!r}: lower-case letters, digits, : _ . -")
        self._registration.commands[name] = CommandSpec(
            name, handler, description, usage, complete, while_running
        )
        self.changed()

    # ------------------------------------------------------------------ keys

    def key(self, id: str, keys: str, *, description: str = "") -> Callable[[F], F]:
        """Decorator: ``async def handler(event, ctx)`` runs when ``keys`` are pressed."""

        def decorate(handler: F) -> F:
            self.register_key(id, keys, handler, description=description)
            return handler

        return decorate

    def register_key(
        self, id: str, keys: str, handler: Callable[..., Any], *, description: str = ""
    ) -> None:
        """A key binding (``keys``: Textual names, comma-separated: ``ctrl+shift+g,f6``).

        Its id is ``<extension>.<id>``: users remap it in ``$PI_HOME/keybindings.json`` like
        pi's own. The TUI and the plain REPL bind it; pi's own keys win on a clash.
        """
        full = id if id.startswith(f"{self.name}.") else f"{self.name}.{id}"
        if not KEY_ID.match(full) or not keys.strip():
            raise ValueError(f"key binding {id!r}: an id of letters, digits, _ . -, and keys")
        self._registration.keys[full] = KeySpec(full, keys.replace(" ", ""), handler, description)
        self.changed()

    # ------------------------------------------------------------------ events

    def on(self, event: str, handler: Callable[..., Any] | None = None) -> Any:
        """Handle ``event`` (``pi.on("turn_end", fn)``, or as a decorator ``@pi.on("input")``).

        Events: every shell event by its ``type`` (``agent_start``, ``turn_end``,
        ``tool_execution_start``, ``notice``, ``session_changed``...), ``*`` for all of them,
        and the ones a handler answers: ``input``, ``before_tool_call`` / ``after_tool_call``
        (pi-ts: ``tool_call`` / ``tool_result``), ``before_provider_request``,
        ``after_provider_response``, ``context``, ``session_start``, ``session_shutdown``.
        """
        name = EVENT_ALIASES.get(event, event)
        if name not in known_events():
            raise ValueError(f"unknown event {event!r}")

        def decorate(function: F) -> F:
            self._registration.handlers.setdefault(name, []).append(function)
            self.changed()
            return function

        return decorate(handler) if handler is not None else decorate

    # ------------------------------------------------------------------ state

    def append_entry(self, custom_type: str, data: Any) -> str:
        """Keep ``data`` (JSON) in the session as a custom entry (pi-ts's ``appendEntry``):
        it survives ``pi -c`` and follows ``/tree`` branches. Returns the entry's id."""
        return self._live().append_entry(custom_type, data)

    def entries(self, custom_type: str | None = None) -> list[Any]:
        """The data of the custom entries on the current branch, oldest first."""
        return self._live().entries(custom_type)

    def send_message(self, custom_type: str, content: str, *, details: Any = None) -> str:
        """Show a message in the transcript (pi-ts's ``sendMessage`` with ``display: true``),
        kept in the session as a ``custom_message`` entry; drawn by the renderer registered
        for ``custom_type`` (:meth:`register_message_renderer`). The model does not see it.
        Returns the entry's id."""
        return self._live().send_message(custom_type, content, details=details)

    def register_message_renderer(
        self, custom_type: str, renderer: Callable[[CustomMessage, bool], object]
    ) -> None:
        """Draw the messages of ``custom_type``: ``renderer(message, expanded)`` returns a
        :class:`~pi_cli.shell.events.dialogs.MessageView` (or text). See
        :mod:`pi_cli.shell.extensions.messages`."""
        if not isinstance(custom_type, str) or not custom_type.strip():
            raise ValueError("custom_type must be a non-empty string")
        if not callable(renderer):
            raise TypeError("a message renderer must be callable")
        self._registration.renderers[custom_type] = renderer

    def _live(self) -> ExtensionContext:
        if self.context is None:
            raise RuntimeError(
                "the session and the shell are for handlers, not register(): "
                "use a session_start handler"
            )
        return self.context

    def _bridge(self) -> HostBridge:
        return self._live().bridge
