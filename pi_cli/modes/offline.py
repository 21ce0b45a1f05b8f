"""A shell for commands that never talk to a model (``pi rewind``, ``--replay``): it opens a
session and the workspace it belongs to, with a stand-in model that only says it is none."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core import AssistantMessage, LlmContext, StreamOptions

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent


class NoModel:
    """A ``StreamFn`` that answers every request with an error (nothing is sent anywhere)."""

    def __init__(self, why: str) -> None:
        self.why = why

    async def __call__(self, context: LlmContext, options: StreamOptions) -> AsyncIterator[Any]:
        yield AssistantMessage(
            content=[], model="none", stop_reason="error", error_message=self.why
        )


def session_workspace(ref: str | None, cwd: Path) -> tuple[Path, Path]:
    """(session file, its workspace): ``ref`` (path or id) or the latest session of ``cwd``.

    The workspace is the directory the session was started in (its header says), if it
    still exists, else ``cwd``. Raises ``SessionError``.
    """
    from pi_cli.shell import SessionError, SessionStore, find_latest_session, resolve_session

    path = resolve_session(ref, cwd) if ref else find_latest_session(cwd)
    if path is None:
        raise SessionError(f"No session for {cwd} yet (give --session PATH|ID)")
    header_cwd = Path(SessionStore.open(path, persist=False).header.cwd or cwd)
    return path, header_cwd if header_cwd.is_dir() else cwd


def offline_shell(session: Path, workspace: Path, why: str, persist: bool = True) -> CodingAgent:
    """A shell on ``session`` in ``workspace`` whose model is :class:`NoModel`."""
    from pi_cli.shell import CodingAgent, ShellOptions

    options = ShellOptions(
        cwd=workspace, session=str(session), stream_fn=NoModel(why), persist_session=persist
    )
    return CodingAgent(options)
