"""The text of ``/sandbox`` (what :meth:`tools.sandbox.Sandbox.describe` shows)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol


class _Status(Protocol):
    @property
    def active(self) -> bool: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def weaker(self) -> tuple[str, ...]: ...


class _Shells(Protocol):
    @property
    def running(self) -> int: ...


class Described(Protocol):
    """What the text reads of a :class:`tools.sandbox.Sandbox`."""

    @property
    def status(self) -> _Status: ...
    @property
    def mode(self) -> str: ...
    @property
    def network(self) -> bool: ...
    @property
    def hidden(self) -> Sequence[Path]: ...
    @property
    def protected(self) -> Sequence[str]: ...
    @property
    def shells(self) -> _Shells: ...
    def writable_roots(self) -> list[Path]: ...


def describe(sandbox: Described) -> str:
    """The text of ``/sandbox``: state, reason, network, writable, hidden and protected."""

    status = sandbox.status
    if status.active:
        state = "active (bubblewrap)"
    elif sandbox.mode == "required":
        state = f"REQUIRED but unavailable: {status.reason} (bash refuses to run)"
    else:
        state = f"inactive: {status.reason}"
    lines = [
        f"Sandbox: {state}",
        f"Mode: {sandbox.mode}   Network: {'on' if sandbox.network else 'off (loopback only)'}",
    ]
    for weakness in status.weaker:
        lines.append(f"Weaker here: {weakness}")
    if status.active:
        lines.append("Writable: " + ", ".join(str(p) for p in sandbox.writable_roots()))
        lines.append("Also writable when present: ~/.cache, ~/.npm, ~/.cargo/registry, ~/go/pkg")
        hidden = [str(p) for p in sandbox.hidden]
        lines.append("Hidden: " + ", ".join([*hidden, "~/.ssh, ~/.aws, ~/.gnupg, ~/.netrc, ..."]))
        lines.append("Read-only in the workspace: " + ", ".join(sandbox.protected))
        lines.append(
            "Read-only in every git directory: config, config.worktree, commondir, gitdir, "
            "hooks/, info/, modules/, worktrees/ (and core.hooksPath)"
        )
    else:
        lines.append("Commands run with your full rights (still killed on timeout, abort, exit).")
    running = sandbox.shells.running
    if running:
        lines.append(f"Background shells running: {running} (/bashes)")
    return "\n".join(lines)
