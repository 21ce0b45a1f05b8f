"""Memory, as Claude Code and Codex users keep it: ``# note``, ``/memory``, path-scoped rules.

- ``# note`` (a one-line input starting with ``#``) asks, through the dialog broker, whether the
  note goes to the project's or the user's memory file (:mod:`._notes`) and appends it; it works
  while a run is live too. Where nobody can answer (one-shot, JSON mode) it is refused with a
  usage error (exit code 1 in print mode, a notice in JSON mode): the file is not guessed.
- ``/memory`` lists what is loaded (context files, rules) and opens a memory file in the user's
  editor (the front end does, from :attr:`CommandResult.edit`).
- Before every input the memory files (and rule folders) are looked at; when one changed (a
  note, an edit in ``/memory`` or elsewhere) they are read again and the system prompt rebuilt,
  so the model sees the change from its next turn.
- Path-scoped rules join the result of the tool that touched a matching file
  (:mod:`._scoped`).
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Protocol

from agent_core import Agent
from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand, SlashCommandRegistry
from pi_cli.shell.context import Level
from pi_cli.shell.dialogs import DialogBroker
from pi_cli.shell.memory._notes import MemoryFile, append_note, memory_files, note_text
from pi_cli.shell.memory._scoped import ScopedRules
from pi_cli.shell.paths import pi_home
from pi_cli.shell.prompt.rules import MAX_SCANNED, rule_dirs
from pi_cli.shell.prompt.sources import CONTEXT_FILE_NAMES, PromptSources, load_memory
from pi_cli.shell.text.terminal import one_line

__all__ = ["Memory", "MemoryHost", "attach_memory"]


class MemoryHost(Protocol):
    """The shell, as memory is built into it."""

    @property
    def cwd(self) -> Path: ...
    @property
    def agent(self) -> Agent: ...
    @property
    def commands(self) -> SlashCommandRegistry: ...
    @property
    def dialogs(self) -> DialogBroker: ...
    @property
    def sources(self) -> PromptSources: ...
    @property
    def input_transforms(self) -> list[Callable[[str], Awaitable[str | None]]]: ...
    def rebuild_system_prompt(self) -> None: ...
    def notify(self, text: str, level: Level = "info") -> None: ...


class Memory:
    """The memory of one shell: notes, ``/memory``, re-reading changed files, scoped rules."""

    def __init__(self, shell: MemoryHost) -> None:
        self.shell = shell
        self.scoped = ScopedRules(lambda: shell.sources.rules, shell.cwd)
        self._signature = self.signature()

    def signature(self) -> tuple[tuple[str, int, int], ...]:
        """What the memory files and rule folders look like on disk now (cheap stats)."""
        cwd = self.shell.cwd
        candidates = [d / n for d in (pi_home(), cwd, *cwd.parents) for n in CONTEXT_FILE_NAMES]
        candidates += [item.path for item in self.shell.sources.context_files]  # imports too
        for directory, _scope in rule_dirs(cwd, self.shell.sources.rules.trusted):
            if directory.is_dir():
                candidates += [directory, *itertools.islice(directory.rglob("*"), MAX_SCANNED)]
        stats: list[tuple[str, int, int]] = []
        for path in dict.fromkeys(candidates):
            try:
                info = path.stat()
            except OSError:
                continue
            stats.append((str(path), info.st_mtime_ns, info.st_size))
        return tuple(stats)

    def refresh(self, force: bool = False) -> bool:
        """Read the memory again if a file changed (or ``force``); True when it was."""
        signature = self.signature()
        if not force and signature == self._signature:
            return False
        trusted = self.shell.sources.rules.trusted  # as loaded (and again on /reload)
        context_files, rules, problems = load_memory(self.shell.cwd, trusted)
        known = set(self.shell.sources.problems)
        sources = self.shell.sources
        sources.context_files, sources.rules = context_files, rules
        for problem in problems:
            if problem not in known:
                self.shell.notify(problem, "warning")
        sources.problems = [*known, *problems]
        self.shell.rebuild_system_prompt()
        self._signature = self.signature()
        return True

    async def before_input(self, text: str) -> str:
        """An input transform: changed memory is read before the input is handled."""
        self.refresh()
        return text

    async def note(self, shell: ShellAPI, args: str) -> CommandResult:
        """``# note``: ask where, append, re-read."""
        note = note_text(args)
        if not note:
            return CommandResult(output=_NOTE_USAGE, error=True)
        files = memory_files(self.shell.cwd)
        dialogs = self.shell.dialogs
        if not dialogs.can_ask:
            return CommandResult(output=_NO_ONE_TO_ASK, error=True)
        answer = await dialogs.select(
            "Save this note to which memory file?",
            [(f.label, str(f.path)) for f in files],
            message=f"- {note}",
            source="memory",
        )
        chosen = next((f for f in files if f.label == answer.value), None)
        if answer.cancelled or chosen is None:
            return CommandResult(output="Memory note not saved.")
        try:
            append_note(chosen.path, note)
        except OSError as exc:
            return CommandResult(
                output=f"Cannot write {chosen.path}: {exc.strerror or exc}", error=True
            )
        self.refresh(force=True)
        return CommandResult(
            output=f"Saved to {chosen.label.lower()} ({chosen.path}): the model sees it from its next turn."
        )

    async def command(self, shell: ShellAPI, args: str) -> CommandResult:
        """``/memory [project|user|list]``."""
        files = memory_files(self.shell.cwd)
        listing = self.listing()
        choice = args.strip().lower()
        if choice == "list":
            return CommandResult(output=listing)
        chosen: MemoryFile | None = next((f for f in files if f.scope == choice), None)
        if choice and chosen is None:
            return CommandResult(output="usage: /memory [project|user|list]", error=True)
        if chosen is None and self.shell.dialogs.can_ask:
            answer = await self.shell.dialogs.select(
                "Open which memory file in your editor?",
                [(f.label, str(f.path)) for f in files],
                message=listing,
                source="memory",
            )
            chosen = next((f for f in files if f.label == answer.value), None)
        if chosen is None:
            return CommandResult(output=listing)
        return CommandResult(output=f"Opening {chosen.path} in your editor…", edit=chosen.path)

    def listing(self) -> str:
        """What memory is loaded: context files, rules always loaded, path-scoped rules."""
        sources = self.shell.sources
        lines = ["Memory files loaded (in the system prompt):"]
        lines += [f"  {one_line(f.path)}" for f in sources.context_files] or ["  (none)"]
        scoped = sources.rules.scoped
        if scoped:
            lines.append("Path-scoped rules (shown to the model with the first file they match):")
            lines += [f"  {one_line(r.path)}: {one_line(', '.join(r.patterns))}" for r in scoped]
        lines.append("Add a note with `# note`; edit with /memory project or /memory user.")
        return "\n".join(lines)


_NOTE_USAGE = "usage: # note (one line, saved to the project's or your memory file)"
_NO_ONE_TO_ASK = (
    "A `# note` asks which memory file to save it to, and nobody can answer here (one-shot or "
    "JSON mode). Append it to AGENTS.md yourself, or use pi interactively."
)


def attach_memory(shell: MemoryHost) -> Memory:
    """Build memory into ``shell``: ``#``, ``/memory``, the re-read before each input and the
    scoped rules around the agent's ``after_tool_call`` (after the permission gate's)."""
    memory = Memory(shell)
    shell.commands.prefixed["#"] = SlashCommand(
        "#", "Save a note to a memory file", memory.note, usage="note", while_running=True
    )
    shell.commands.register(
        SlashCommand(
            "memory",
            "Show the loaded memory and open a memory file in your editor",
            memory.command,
            usage="[project|user|list]",
            while_running=True,
        )
    )
    shell.input_transforms.insert(0, memory.before_input)
    shell.agent.after_tool_call = memory.scoped.wrap(shell.agent.after_tool_call)
    return memory
