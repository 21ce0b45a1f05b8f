"""The shell's permission controls: the mode, answers to approvals, what they allowed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from agent_core import AbortSignal, Tool
from pi_cli.shell.events import PermissionModeChanged, PermissionRequested
from pi_cli.shell.permissions._direct import granted, parse_grants, run_checked
from pi_cli.shell.permissions.gate import ToolGate
from pi_cli.shell.permissions.modes import (
    MODE_DESCRIPTIONS,
    Mode,
    ModeError,
    next_mode,
    parse_mode,
)
from pi_cli.shell.permissions.setup import bypass_refusal


class PermissionControl:
    """Mode changes and approval answers for one shell (front ends call it via the shell)."""

    def __init__(self, gate: ToolGate, emit: Callable[[Any], None]) -> None:
        self.gate = gate
        self.engine = gate.engine
        self.broker = gate.broker
        self.emit = emit

    @property
    def mode(self) -> Mode:
        """The current permission mode."""
        return self.engine.mode

    def set_mode(self, mode: str) -> Mode:
        """Switch mode (a name or alias; raises ModeError); emits PermissionModeChanged."""
        parsed = parse_mode(mode)
        disabled = self.engine.bypass_disabled_by
        if parsed == "bypassPermissions" and disabled is not None:
            raise ModeError(bypass_refusal(disabled))
        if parsed != self.engine.mode:
            self.engine.mode = parsed
            self.emit(PermissionModeChanged(mode=parsed))
        return parsed

    def cycle(self) -> Mode:
        """The next mode of the Shift+Tab cycle."""
        return self.set_mode(next_mode(self.engine.mode, self.engine.start_mode))

    def answer(self, request_id: str, answer: object) -> bool:
        """Answer a pending approval; False if it is unknown or already decided."""
        return self.broker.answer(request_id, answer)

    @property
    def approval_timeout_s(self) -> float | None:
        """How long a question waits for a remote answer (``None``: until answered)."""
        return self.broker.timeout_s

    @approval_timeout_s.setter
    def approval_timeout_s(self, seconds: float | None) -> None:
        self.broker.timeout_s = seconds

    @property
    def pending(self) -> list[PermissionRequested]:
        """Approvals waiting for an answer."""
        return self.broker.pending

    @property
    def denied_for_approval(self) -> int:
        """Calls denied because nobody could approve them (non-interactive modes)."""
        return self.gate.denied_for_approval

    @property
    def extra_dirs(self) -> list[Path]:
        """The resolved extra directories (``--add-dir``, ``permissions.additionalDirectories``)."""
        return self.engine.workspace.extra_dirs

    def grant(
        self, allowed: str | Sequence[str], source: str
    ) -> tuple[AbstractContextManager[None], list[str]]:
        """Allow rules (``allowed-tools``) for the duration of a ``with`` block, and the
        problems of the rules that do not parse (:mod:`.direct`)."""
        rules, problems = parse_grants(allowed, source, self.engine.workspace.cwd)
        return granted(self.engine.rules, rules), problems

    async def run_call(
        self,
        tools: Sequence[Tool],
        name: str,
        arguments: dict[str, Any],
        signal: AbortSignal | None = None,
    ) -> tuple[str, bool]:
        """A call the user's command makes, checked as the model's are: (text, is_error)."""
        return await run_checked(self.gate, tools, name, arguments, signal)

    def summary(self) -> str:
        """The mode, the workspace and every rule, for ``/permissions``."""
        engine = self.engine
        lines = [f"Mode: {engine.mode} ({MODE_DESCRIPTIONS[engine.mode]})"]
        lines.append("Workspace: " + ", ".join(str(root) for root in engine.workspace.roots))
        for behavior in ("deny", "ask", "allow"):
            rules = engine.rules.of(behavior)
            if rules:
                lines.append(f"{behavior.capitalize()}:")
                lines.extend(f"  {rule.describe()}" for rule in rules)
        if not any(engine.rules.of(b) for b in ("deny", "ask", "allow")):
            lines.append("No rules.")
        lines.append("Modes: default, acceptEdits, auto, plan, dontAsk, bypassPermissions (yolo).")
        return "\n".join(lines)
