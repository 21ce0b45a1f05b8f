"""The language servers' events: their states, and the diagnostics a tool call brought."""

from __future__ import annotations

from typing import ClassVar, Literal

from agent_core.messages import WireModel
from agent_core.records import field

LspState = Literal["starting", "ready", "failed", "stopped", "restarting"]


class LspServerStatus(WireModel):
    """One language server: ``files`` it serves (globs), its state, why it failed."""

    name: str
    state: LspState
    files: list[str] = field(default_factory=list)
    command: str = ""
    source: str = ""
    error: str | None = None
    sandboxed: bool = False
    progress: str | None = None
    """What it is busy with (``indexing 40%``), from its progress reports."""


class LspStatusChanged(WireModel, tag_field="type", tag="lsp_status"):
    """A language server started, became ready, failed or stopped: every started server."""

    type: ClassVar[str] = "lsp_status"
    servers: list[LspServerStatus] = field(default_factory=list)


class Diagnostic(WireModel):
    """One problem a server reports (``line``/``column`` are 1-based, columns in characters)."""

    path: str
    line: int
    column: int
    severity: Literal["error", "warning", "info", "hint"]
    message: str
    source: str | None = None
    code: str | None = None
    context: str = ""
    """The source line it points at (stripped, cut)."""


class FileDiagnostics(WireModel):
    """A changed file's diagnostics after a tool call.

    ``new``: problems not there before (capped); ``new_count`` counts them all (``new_errors``
    the errors among them);
    ``present``: problems already there before the change (not listed); ``fixed``: problems
    reported earlier that are gone; ``errors``/``warnings``: the file's totals now.
    ``baseline``: pi knew the file's diagnostics before the change (else every problem is new).
    """

    path: str
    server: str
    new: list[Diagnostic] = field(default_factory=list)
    new_count: int = 0
    new_errors: int = 0
    present: int = 0
    fixed: int = 0
    errors: int = 0
    warnings: int = 0
    baseline: bool = True

    def summary(self) -> str:
        """``python: 1 new error, 2 new warnings, 1 fixed in main.py`` ("" when nothing changed)."""
        warnings = self.new_count - self.new_errors
        parts = [f"{self.new_errors} new error{'s' * (self.new_errors != 1)}"] * bool(
            self.new_errors
        )
        parts += [f"{warnings} new warning{'s' * (warnings != 1)}"] * bool(warnings)
        parts += [f"{self.fixed} fixed"] * bool(self.fixed)
        return f"{self.server}: {', '.join(parts)} in {self.path}" if parts else ""


class DiagnosticsReported(WireModel, tag_field="type", tag="lsp_diagnostics"):
    """What the language servers said about the files a tool call changed (sent before its
    ``tool_execution_end``; the same data is in the result's ``details["diagnostics"]``).

    ``pending``: servers that did not answer within ``lsp.diagnosticsWaitMs``.
    """

    type: ClassVar[str] = "lsp_diagnostics"
    tool_call_id: str
    tool_name: str
    files: list[FileDiagnostics] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    waited_ms: int = 0


LSP_EVENT_TYPES = (LspStatusChanged, DiagnosticsReported)
