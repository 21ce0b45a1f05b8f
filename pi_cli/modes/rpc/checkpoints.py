"""RPC checkpoints (ours, not pi's): ``rewind`` and ``restore``.

- ``rewind`` without ``entryId``: ``{points: [{entryId, text, timestamp, hasCode, files:
  [{path, added, removed}], added, removed}]}``, the prompts of the current branch.
- ``rewind`` with ``entryId`` (and ``mode`` ``both`` | ``code`` | ``conversation``, default
  ``both``): rewinds; ``dryRun: true`` only says what it would do: ``{plan: {changes: [{status,
  path}], byHand, problem}}``. Files changed by hand since the point make it fail with a message
  naming them unless ``overwrite`` is ``true`` (overwrite) or ``false`` (keep them as they are);
``summarize: true`` summarises the branch left behind first, and a plan says whether there is
one (``leavesBranch``, ours).
- ``restore`` with ``entryId``: the code of any entry (what ``/tree`` offers), conversation
  untouched; ``restore`` with ``undo: true`` (or ``rewind`` with ``undo: true``): undoes the
  last rewind or restore.

A done rewind answers ``{entryId, text, moved, undoEntryId, restored: {written, deleted,
failed}, byHand}``; ``text`` is the prompt rewound to (for an editor), ``undoEntryId`` the
snapshot a later undo goes back to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_cli.modes.rpc.base import Handler, RpcContext, RpcError, text_arg
from pi_cli.shell import RewindPlan, RewindPoint, RewindResult

MODES = {"both": (True, True), "code": (True, False), "conversation": (False, True)}


def point_wire(point: RewindPoint) -> dict[str, Any]:
    """One rewind point on the wire."""
    return {
        "entryId": point.entry_id,
        "text": point.text,
        "timestamp": point.timestamp,
        "hasCode": point.has_code,
        "files": [{"path": f.path, "added": f.added, "removed": f.removed} for f in point.files],
        "added": point.added,
        "removed": point.removed,
    }


def plan_wire(plan: RewindPlan) -> dict[str, Any]:
    """A rewind plan on the wire."""
    return {
        "entryId": plan.entry_id,
        "changes": [{"status": s, "path": p} for s, p in plan.changes],
        "byHand": plan.by_hand,
        "problem": plan.problem,
        "leavesBranch": plan.leaves_branch,  # ours: moving there leaves a branch to summarise
    }


def result_wire(result: RewindResult) -> dict[str, Any]:
    """A done rewind on the wire."""
    restored = result.restored
    return {
        "entryId": result.entry_id,
        "text": result.text,
        "moved": result.moved,
        "undoEntryId": result.undo_id,
        "restored": {
            "written": restored.written if restored else [],
            "deleted": restored.deleted if restored else [],
            "failed": restored.failed if restored else [],
        },
        "byHand": result.plan.by_hand if result.plan else [],
    }


def _overwrite(command: dict[str, Any]) -> bool | None:
    value = command.get("overwrite")
    if value is not None and not isinstance(value, bool):
        raise RpcError('"overwrite" must be true, false or absent')
    return value


def checkpoint_commands(rpc: RpcContext) -> Mapping[str, Handler]:
    """The checkpoints group."""
    shell = rpc.shell
    checkpoints = shell.checkpoints

    async def rewind(command: dict[str, Any]) -> Any:
        if shell.state == "running":
            shell.ensure_idle("rewind")  # refused now: a live run is not waited for
        overwrite = _overwrite(command)

        async def run() -> Any:
            await rpc.settle()
            if command.get("undo") is True:
                return result_wire(await checkpoints.undo(overwrite))
            if command.get("entryId") is None:
                return {"points": [point_wire(p) for p in await checkpoints.points()]}
            entry_id = text_arg(command, "entryId")
            mode = command.get("mode", "both")
            if mode not in MODES:
                raise RpcError('"mode" must be one of both, code, conversation')
            if command.get("dryRun") is True:
                return {"plan": plan_wire(await checkpoints.plan(entry_id))}
            code, conversation = MODES[mode]
            result = await checkpoints.rewind(
                entry_id,
                code=code,
                conversation=conversation,
                overwrite=overwrite,
                summarize=command.get("summarize") is True,
            )
            return result_wire(result)

        rpc.spawn(command, run())

    async def restore(command: dict[str, Any]) -> Any:
        if command.get("undo") is not True and command.get("entryId") is None:
            raise RpcError('"entryId" (or "undo": true) is required')
        return await rewind({**command, "mode": "code"})

    return {"rewind": rewind, "restore": restore}
