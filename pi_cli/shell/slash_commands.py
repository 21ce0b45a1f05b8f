"""Slash commands: a data table of commands plus handlers, shared by every front end.

Handlers return a :class:`CommandResult`; front ends print ``output``, honour ``quit``, and may
open a picker for ``action`` (``"pick_model"``, ``"pick_session"``, ``"pick_tree"``,
``"pick_theme"``) where they have one.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.shell.coding_agent import CodingAgent


@dataclass
class CommandResult:
    """What a command did."""

    output: str | None = None
    quit: bool = False
    action: str | None = None
    prompt: str | None = None  # text to send to the model (templates, skills)
    error: bool = False


Handler = Callable[["CodingAgent", str], Awaitable[CommandResult]]


@dataclass
class SlashCommand:
    """One command: ``/name args``."""

    name: str
    description: str
    handler: Handler
    usage: str = ""
    aliases: tuple[str, ...] = ()
    source: str = "builtin"
    # Safe while a run is live (neither prompts nor touches the conversation or session);
    # CodingAgent.submit refuses every other command then.
    while_running: bool = False


@dataclass
class SlashCommandRegistry:
    """Commands by name (aliases included)."""

    commands: dict[str, SlashCommand] = field(default_factory=dict)
    _aliases: dict[str, str] = field(default_factory=dict)

    def register(self, command: SlashCommand) -> None:
        """Add or replace a command."""
        self.commands[command.name] = command
        for alias in command.aliases:
            self._aliases[alias] = command.name

    def get(self, name: str) -> SlashCommand | None:
        """The command called ``name`` (or an alias of it)."""
        return self.commands.get(name) or self.commands.get(self._aliases.get(name, ""))

    def complete(self, prefix: str) -> list[SlashCommand]:
        """Commands whose name starts with ``prefix`` (without the slash), sorted."""
        return sorted(
            (c for n, c in self.commands.items() if n.startswith(prefix)), key=lambda c: c.name
        )

    def visible(self) -> list[SlashCommand]:
        """All commands, sorted by name."""
        return sorted(self.commands.values(), key=lambda c: c.name)


def parse_command_line(text: str) -> tuple[str, str] | None:
    """``"/model gpt-5"`` -> ``("model", "gpt-5")``; ``None`` if ``text`` is no command."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//") or len(stripped) < 2:
        return None
    name, _, args = stripped[1:].partition(" ")
    if "/" in name and not name.startswith("skill:"):
        return None  # an absolute path, not a command
    return name, args.strip()


def split_args(args: str) -> list[str]:
    """Shell-like argument split with quotes; falls back to whitespace on unbalanced quotes."""
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


# ---------------------------------------------------------------------------- built-ins


async def _help(shell: CodingAgent, args: str) -> CommandResult:
    lines = ["Commands:"]
    for command in shell.commands.visible():
        usage = f" {command.usage}" if command.usage else ""
        lines.append(f"  /{command.name}{usage} — {command.description}")
    return CommandResult(output="\n".join(lines))


async def _model(shell: CodingAgent, args: str) -> CommandResult:
    if not args:
        return CommandResult(
            output=f"Model: {shell.model_id} (thinking: {shell.thinking})", action="pick_model"
        )
    try:
        shell.set_model(args)
    except Exception as exc:  # ModelConfigError and friends carry a user-facing message
        return CommandResult(output=str(exc), error=True)
    return CommandResult(output=f"Model set to {shell.model_id}")


async def _thinking(shell: CodingAgent, args: str) -> CommandResult:
    levels = ("off", "minimal", "low", "medium", "high", "xhigh")
    if args not in levels:
        return CommandResult(
            output=f"Thinking: {shell.thinking}. Usage: /thinking {'|'.join(levels)}",
            error=bool(args),
        )
    shell.set_thinking(args)
    return CommandResult(output=f"Thinking level set to {args}")


async def _new(shell: CodingAgent, args: str) -> CommandResult:
    shell.new_session()
    return CommandResult(output="Started a new session.")


async def _session(shell: CodingAgent, args: str) -> CommandResult:
    return CommandResult(output=shell.session_summary())


async def _resume(shell: CodingAgent, args: str) -> CommandResult:
    if not args:
        return CommandResult(action="pick_session", output="Usage: /resume <session id or path>")
    try:
        shell.switch_session(args)
    except Exception as exc:
        return CommandResult(output=str(exc), error=True)
    return CommandResult(output=f"Resumed session {shell.session.session_id}")


async def _quit(shell: CodingAgent, args: str) -> CommandResult:
    return CommandResult(quit=True)


def builtin_commands() -> list[SlashCommand]:
    """The commands every front end has."""
    return [
        SlashCommand("help", "List commands", _help, aliases=("?",), while_running=True),
        SlashCommand("model", "Show or switch the model", _model, usage="[provider/model]"),
        SlashCommand(
            "thinking", "Show or set the thinking level", _thinking, usage="[off|low|medium|high]"
        ),
        SlashCommand("new", "Start a new session", _new),
        SlashCommand(
            "session",
            "Show session file, id, messages, tokens and cost",
            _session,
            while_running=True,
        ),
        SlashCommand("resume", "Resume an earlier session", _resume, usage="[id|path]"),
        SlashCommand("quit", "Quit pi", _quit, aliases=("exit", "q"), while_running=True),
    ]
