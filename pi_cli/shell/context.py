"""What the shell's parts (compactor, hooks, branching) may use of the shell.

The parts are built by the CodingAgent against this narrow protocol, so none of them imports
the CodingAgent (no import cycle) and each one's reach is visible here.
"""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from agent_core import Agent, Tool
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.events import SessionReason, ShellEvent
    from pi_cli.shell.session.store import SessionStore

Level = Literal["info", "warning", "error"]
acting_agent: ContextVar[str | None] = ContextVar("acting_agent", default=None)
"""Which sub-agent the code running now works for (``background agent a1 (reviewer)``), None
for the main agent: set around a sub-agent's run, read when its tool call asks for approval."""


class ShellContext(Protocol):
    """The shell as its parts see it."""

    @property
    def cwd(self) -> Path: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def session(self) -> SessionStore: ...
    @property
    def agent(self) -> Agent: ...
    @property
    def tools(self) -> list[Tool]: ...
    @property
    def context_window(self) -> int: ...
    @property
    def busy(self) -> bool:
        """An input is being handled (hooks, a run, a command, compaction)."""
        ...

    @property
    def run_aborted(self) -> bool:
        """The input being handled was aborted (no retry, no compaction after it)."""
        ...

    def emit(self, event: ShellEvent) -> None: ...
    def notify(self, text: str, level: Level = "info") -> None: ...
    def ensure_idle(self, what: str) -> None: ...
    def adopt_session(self, store: SessionStore, reason: SessionReason) -> None:
        """Make ``store`` the session: messages from it, listeners and hooks told."""
        ...
