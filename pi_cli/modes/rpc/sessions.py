"""RPC sessions: ``compact``, ``new_session``, ``switch_session``, ``fork``, ``clone``,
``get_fork_messages``, ``export_html`` (``{path}``) and ``set_session_name`` (as pi)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pi_cli.modes.rpc.base import Handler, RpcContext, RpcError, text_arg
from pi_cli.shell import CompactionError, fork_before, fork_points
from pi_cli.shell import set_session_name as set_session_name_entry


def session_commands(rpc: RpcContext) -> Mapping[str, Handler]:
    """The sessions group."""
    shell = rpc.shell

    async def compact(command: dict[str, Any]) -> Any:
        if shell.state == "running":
            shell.ensure_idle("compact")  # refused now: a live run is not waited for
        instructions = command.get("customInstructions")

        async def run() -> Any:
            await rpc.settle()
            try:
                result = await shell.compact(
                    instructions if isinstance(instructions, str) else None
                )
            except CompactionError as exc:
                raise RpcError(str(exc)) from None
            entry = shell.session.read_entry(result.entry_id) or {}
            return {
                "summary": result.summary,
                "firstKeptEntryId": result.first_kept_entry_id,
                "tokensBefore": result.tokens_before,
                "details": entry.get("details") or {},
                "tokensAfter": result.tokens_after,  # ours (an estimate)
            }

        rpc.spawn(command, run())

    def switched() -> dict[str, Any]:
        path = shell.session.path
        data: dict[str, Any] = {"cancelled": False, "sessionId": shell.session.session_id}
        if path is not None:
            data["sessionFile"] = str(path)
        return data

    async def new_session(command: dict[str, Any]) -> Any:
        await rpc.settle()
        shell.new_session()
        return switched()

    async def switch_session(command: dict[str, Any]) -> Any:
        await rpc.settle()
        ref = command.get("sessionPath") or command.get("session")
        if not isinstance(ref, str) or not ref:
            raise RpcError('"sessionPath" is required')
        shell.switch_session(ref)
        return switched()

    async def fork(command: dict[str, Any]) -> Any:
        await rpc.settle()
        if command.get("entryId") is None:  # ours: no entry forks the whole path (clone)
            shell.fork()
            return {"text": "", **switched()}
        _, text = fork_before(shell, text_arg(command, "entryId"))
        return {"text": text, **switched()}

    async def clone(command: dict[str, Any]) -> Any:
        await rpc.settle()
        if shell.session.leaf_id is None:
            raise RpcError("Cannot clone session: no current entry selected")
        shell.fork()
        return switched()

    async def get_fork_messages(command: dict[str, Any]) -> Any:
        return {"messages": [{"entryId": i, "text": t} for i, t in fork_points(shell)]}

    async def export_html(command: dict[str, Any]) -> Any:
        from pi_cli.shell import ExportError, default_export_path, export_session

        await rpc.settle()
        raw = command.get("outputPath")
        if raw is not None and not isinstance(raw, str):
            raise RpcError('"outputPath" must be a string')
        target = Path(raw).expanduser() if raw else default_export_path(shell.session, shell.cwd)
        target = target if target.is_absolute() else shell.cwd / target
        try:
            path = export_session(shell.session, target, theme=shell.settings.theme)
        except ExportError as exc:
            raise RpcError(str(exc)) from None
        return {"path": str(path)}

    async def set_session_name(command: dict[str, Any]) -> Any:
        name = text_arg(command, "name").strip()
        if not name:
            raise RpcError("Session name cannot be empty")
        await rpc.settle()
        shell.ensure_idle("name the session")
        set_session_name_entry(shell.session, name)

    return {
        "compact": compact,
        "new_session": new_session,
        "switch_session": switch_session,
        "fork": fork,
        "clone": clone,
        "get_fork_messages": get_fork_messages,
        "export_html": export_html,
        "set_session_name": set_session_name,
    }
