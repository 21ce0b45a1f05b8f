"""A conversation the REPL did not see live (a resumed session, one attached in the server),
printed into scrollback as the live rendering would have shown it: prompts, answers as
Markdown, tool calls titled and their results' tails (or diffs) as :mod:`.tool_render` prints
them live. Long conversations show their last
:data:`SHOWN_MESSAGES` messages after a line saying how many came before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from agent_core import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from pi_cli.modes.plain.tool_render import call_line, call_title, clip, result_text, safe

SHOWN_MESSAGES = 60


def print_history(
    console: Console, messages: Sequence[Any], describe: Callable[[str, Any], str]
) -> None:
    """Print ``messages`` (see the module docstring)."""
    if not messages:
        return
    shown = list(messages[-SHOWN_MESSAGES:])
    earlier = len(messages) - len(shown)
    note = f"{len(messages)} messages so far"
    if earlier:
        note += f" ({earlier} earlier ones not shown)"
    console.print(Text(f"── {note} ──", style="dim"))
    for message in shown:
        if isinstance(message, UserMessage):
            console.print(Text(f"› {clip(safe(message.text), 2000)}", style="bold"))
        elif isinstance(message, AssistantMessage):
            _assistant(console, message, describe)
        elif isinstance(message, ToolResultMessage):
            console.print(
                result_text(message.tool_name, message.text, message.is_error, message.details)
            )
    console.print(Text("── live ──", style="dim"))


def _assistant(
    console: Console, message: AssistantMessage, describe: Callable[[str, Any], str]
) -> None:
    for block in message.content:
        if isinstance(block, TextContent) and block.text.strip():
            console.print(Markdown(safe(block.text)))
        elif isinstance(block, ToolCall):
            console.print(call_line(block.name, call_title(block.name, block.arguments, describe)))
    if message.stop_reason in ("error", "aborted"):
        why = message.error_message or message.stop_reason
        console.print(Text(f"{message.stop_reason}: {safe(why)}", style="yellow"))
