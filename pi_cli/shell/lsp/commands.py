"""``/lsp`` and ``pi lsp``: which servers run, for which files, and why one is missing.

``pi lsp`` (or ``pi lsp list``) is registered in :mod:`pi_cli.subcommands` as this module
(:func:`accepts`, :func:`run`): the report is this feature's, printed through the one sanitizer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.shell.config.settings import LspSettings
    from pi_cli.shell.lsp.config import ServerTable
    from pi_cli.shell.lsp.manager import LspManager


def status_text(settings: LspSettings, table: ServerTable, manager: LspManager | None) -> str:
    """One block per server: state, files, command and where it came from, or why missing."""
    if not settings.enabled:
        return "Language servers are off (lsp.enabled is false)."
    lines = table_lines(table, manager)
    if manager is None or not manager.servers:
        lines.append(
            "No server has started: one starts when the model first reads or edits a file "
            "of its language."
        )
    notes = []
    if not settings.diagnostics:
        notes.append("diagnostics after edits are off (lsp.diagnostics)")
    if not settings.navigation:
        notes.append("the lsp tool is off (lsp.navigation)")
    if notes:
        lines.append("Note: " + "; ".join(notes) + ".")
    return "\n".join(lines)


def table_lines(table: ServerTable, manager: LspManager | None) -> list[str]:
    """The rows of ``/lsp`` and ``pi lsp``."""
    lines = []
    running = manager.servers if manager is not None else {}
    for name, spec, missing, globs in table.everything():
        files = " ".join(globs[:8]) + (" …" if len(globs) > 8 else "")
        server = running.get(name)
        if server is not None:
            status = server.status()
            state = status.state + (f" ({status.progress})" if status.progress else "")
            where = " in the sandbox" if status.sandboxed else ""
            lines.append(f"{name}: {state}{where} for {files}")
            lines.append(f"  {status.command}  [{status.source}]")
            if status.error:
                lines.append(f"  error: {status.error}")
            opened = len(server.documents)
            if opened:
                lines.append(f"  {opened} open file{'s' * (opened != 1)}")
        elif spec is not None:
            command = " ".join([spec.command, *spec.args])
            lines.append(f"{name}: available for {files}")
            lines.append(f"  {command}  [{spec.source}]")
        else:
            lines.append(f"{name}: missing for {files}: {missing}")
    for problem in table.problems:
        lines.append(f"problem: {problem}")
    return lines


def lsp_folder_report(cwd: Path) -> tuple[list[str], int]:
    """``pi lsp``: the lines for the servers ``cwd`` would use (nothing starts), exit code."""
    import os

    from pi_cli.shell.config.layers import load_layered
    from pi_cli.shell.config.settings import SettingsError
    from pi_cli.shell.config.trust import check_trust
    from pi_cli.shell.lsp.config import ServerTable

    trusted = check_trust(cwd).trusted()
    try:
        settings = load_layered(cwd, trusted).settings
    except SettingsError as exc:
        return [f"pi lsp: {exc}"], 1
    if not settings.lsp.enabled:
        return ["Language servers are off (lsp.enabled is false)."], 0
    table = ServerTable(settings.lsp.servers, cwd, trusted, os.environ.get("PATH"))
    lines = table_lines(table, None)
    if not trusted:
        lines.append("(This folder is not trusted: its own servers and lsp settings are not used.)")
    return lines, 0


def accepts(argv: list[str]) -> bool:
    """``pi lsp`` and ``pi lsp list`` only; ``pi lsp is broken, fix it`` stays a prompt."""
    return argv in ([], ["list"])


def run(argv: list[str]) -> int:
    """Print the servers the current folder would use (nothing is started); the exit code."""
    from pi_cli.shell.text.terminal import say

    lines, code = lsp_folder_report(Path.cwd().resolve())
    for line in lines:
        say(line, err=code != 0)
    return code
