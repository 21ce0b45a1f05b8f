"""Slash commands: a data table of commands plus handlers, shared by every front end.

Handlers take the :class:`ShellAPI` (what a command may use of the shell, a protocol the
CodingAgent satisfies) and return a :class:`CommandResult`; front ends print ``output``, honour
``quit``, and may open a picker for ``action`` where they have one.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from agent_core import Message, Tool
    from pi_cli.shell.checkpoints.manager import Checkpoints
    from pi_cli.shell.compaction.parts import CompactionResult
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.mcp.manager import McpManager
    from pi_cli.shell.models.usage import SessionUsage
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.permissions.control import PermissionControl
    from pi_cli.shell.session.store import SessionStore
    from pi_cli.shell.session.tree import TreeEntry
    from tools.sandbox import Sandbox

PickAction = Literal[
    "pick_model",
    "pick_session",
    "pick_tree",
    "pick_theme",
    "pick_bash",
    "pick_agent",
    "pick_rewind",
    "pick_diff",
    "pick_plugin",
]


@dataclass
class CommandResult:
    """What a command did."""

    output: str | None = None
    quit: bool = False
    action: PickAction | None = None
    prompt: str | None = None  # text to send to the model (templates, skills)
    error: bool = False
    clipboard: str | None = None  # text for the front end to put on the clipboard (/copy)
    edit: Path | None = None  # a file for the front end to open in the user's editor (/memory)
    run_scope: Callable[[], AbstractAsyncContextManager[None]] | None = None
    """Held around the run of ``prompt``: a command file's granted rules and model, for its run
    only (:mod:`pi_cli.shell.prompt.command_files`)."""


class ShellAPI(Protocol):
    """What command handlers may use of the shell (the CodingAgent satisfies it)."""

    @property
    def cwd(self) -> Path: ...
    @property
    def options(self) -> ShellOptions: ...
    @property
    def model_id(self) -> str: ...
    @property
    def thinking(self) -> str: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def session(self) -> SessionStore: ...
    @property
    def commands(self) -> SlashCommandRegistry: ...
    @property
    def messages(self) -> Sequence[Message]: ...
    @property
    def tools(self) -> Sequence[Tool]: ...
    @property
    def usage(self) -> SessionUsage: ...
    @property
    def sandbox(self) -> Sandbox: ...
    @property
    def checkpoints(self) -> Checkpoints: ...
    def context_usage(self) -> tuple[int, int]: ...
    def set_model(self, spec: str, *, record: bool = True) -> None: ...
    def set_thinking(self, level: str) -> None: ...
    def new_session(self) -> None: ...
    def switch_session(self, ref: str | Path) -> None: ...
    async def compact(self, instructions: str | None = None) -> CompactionResult: ...
    def tree_entries(self) -> list[TreeEntry]: ...
    def navigate_to(self, entry_id: str) -> str | None: ...
    def fork(self, entry_id: str | None = None) -> Path: ...
    def notify(self, text: str, level: Literal["info", "warning", "error"] = "info") -> None: ...
    @property
    def permissions(self) -> PermissionControl: ...
    @property
    def mcp(self) -> McpManager: ...


Handler = Callable[[ShellAPI, str], Awaitable[CommandResult]]


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
    complete: Callable[[str], list[tuple[str, str]]] | None = None
    """Candidates (value, description) for the argument typed so far (an extension's)."""


@dataclass
class SlashCommandRegistry:
    """Commands by name (aliases included)."""

    commands: dict[str, SlashCommand] = field(default_factory=dict)
    _aliases: dict[str, str] = field(default_factory=dict)
    prefixed: dict[str, SlashCommand] = field(default_factory=dict)
    """Commands written as a leading character instead of ``/name`` (``# note``): one line."""

    def register(self, command: SlashCommand) -> None:
        """Add or replace a command."""
        self.commands[command.name] = command
        for alias in command.aliases:
            self._aliases[alias] = command.name

    def unregister(self, name: str) -> None:
        """Remove a command and its aliases (nothing if it is not there)."""
        command = self.commands.pop(name, None)
        if command is not None:
            for alias in command.aliases:
                if self._aliases.get(alias) == name:
                    del self._aliases[alias]

    def complete_argument(self, name: str, typed: str) -> list[tuple[str, str]]:
        """Candidates for the argument of ``/name`` typed so far (``[]``: none offered)."""
        command = self.get(name)
        if command is None or command.complete is None:
            return []
        try:
            return command.complete(typed)
        except Exception:  # noqa: BLE001 - completion must never break typing
            return []

    def register_all(self, *groups: Sequence[SlashCommand]) -> None:
        """Register every command of every group, in order (a later one replaces an earlier)."""
        for group in groups:
            for command in group:
                self.register(command)

    def get(self, name: str) -> SlashCommand | None:
        """The command called ``name`` (or an alias of it)."""
        return self.commands.get(name) or self.commands.get(self._aliases.get(name, ""))

    def lookup(self, text: str) -> tuple[SlashCommand, str] | None:
        """``(command, args)`` when ``text`` is a known command line, else ``None``."""
        stripped = text.strip()
        if stripped[:1] in self.prefixed and "\n" not in stripped:  # pasted Markdown: a prompt
            return self.prefixed[stripped[0]], stripped[1:].strip()
        parsed = parse_command_line(text)
        if parsed is None:
            return None
        command = self.get(parsed[0])
        return (command, parsed[1]) if command is not None else None

    def unknown(self, text: str) -> UnknownCommand | None:
        """``text`` is written as a command no command is called (``/tpyo``): its name and the
        names it is close to; ``None`` for a known command or text that is no command.

        Front ends that can ask say so and ask whether to send it as a prompt instead.
        """
        parsed = parse_command_line(text)
        if parsed is None or self.get(parsed[0]) is not None:
            return None
        name, args = parsed
        if not _NAME.fullmatch(name):
            return None  # "/ ..." or "/*" is punctuation, not a name
        import difflib  # only for a mistyped command

        close = difflib.get_close_matches(name, [*self.commands, *self._aliases], n=3, cutoff=0.6)
        names = [c.name for n in close if (c := self.get(n)) is not None]
        return UnknownCommand(name, args, list(dict.fromkeys(names)))

    def complete(self, prefix: str) -> list[SlashCommand]:
        """Commands whose name starts with ``prefix`` (without the slash), sorted."""
        return sorted(
            (c for n, c in self.commands.items() if n.startswith(prefix)), key=lambda c: c.name
        )

    def visible(self) -> list[SlashCommand]:
        """All commands, sorted by name."""
        return sorted(self.commands.values(), key=lambda c: c.name)


_NAME = re.compile(r"[A-Za-z][\w:.-]*")


@dataclass(frozen=True)
class UnknownCommand:
    """A line written as a command that none is called (``/tpyo hello``)."""

    name: str
    args: str
    close: list[str]
    """Names of commands it may be a typo of (best first)."""

    @property
    def question(self) -> str:
        """``Unknown command /tpyo (did you mean /typo?): send it to the model as a prompt?``"""
        meant = " or ".join(f"/{name}" for name in self.close)
        hint = f" (did you mean {meant}?)" if meant else ""
        return f"Unknown command /{self.name}{hint}: send it to the model as a prompt?"

    def corrected(self, name: str) -> str:
        """The line with ``name`` instead of the unknown one."""
        return f"/{name} {self.args}".rstrip()


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
