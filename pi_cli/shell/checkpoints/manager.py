"""The shell's checkpoint part: a snapshot before each turn that may change files, and after
each run, recorded as ``checkpoint`` entries of the session.

git runs in one worker thread per shell, never on the event loop. A turn's snapshot starts when
the model starts a call of a tool that is not a known reader, so it is taken while the model
streams the call's arguments (a turn that only reads or answers takes none); a tool call that
may change files (:mod:`.policy`) waits for it (at most ``checkpoints.waitMs``, then runs without one and says
so), and the first such call of the turn records it. After a run, its snapshot is recorded
before the next input is handled (:meth:`Checkpoints.settle`), so hand edits between runs are
told apart from the agent's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agent_core import AgentEnd, MessageUpdate, ToolCallStart, TurnStart
from pi_cli.shell.checkpoints import _policy as policy
from pi_cli.shell.checkpoints.git import GitError, ShadowGit, git_available
from pi_cli.shell.checkpoints.snapshot import Limits, Snapshot, SnapshotSkipped, take_snapshot
from pi_cli.shell.events import SessionChanged
from pi_cli.shell.session.entries import CHECKPOINT

if TYPE_CHECKING:
    from agent_core import AbortSignal
    from agent_core.tool import BeforeToolCall, BeforeToolCallResult, ToolCallContext
    from pi_cli.shell.checkpoints import rewind as rewinding
    from pi_cli.shell.config.settings import CheckpointSettings
    from pi_cli.shell.context import Level, ShellContext
    from pi_cli.shell.session.store import SessionStore

log = logging.getLogger("pi_cli")
T = TypeVar("T")


@dataclass
class _PendingRun:
    """A run's last snapshot, taken in the worker, not yet recorded."""

    store: SessionStore
    future: Future[Snapshot]
    recorded: bool = False


def why_off(cwd: Path, settings: CheckpointSettings) -> str | None:
    """Why checkpoints cannot run in ``cwd`` (``None``: they can)."""
    if not settings.enabled:
        return "checkpoints are turned off (checkpoints.enabled)"
    if not git_available():
        return "git is not installed, so file changes cannot be rewound"
    resolved = cwd.resolve()
    if resolved == Path(resolved.anchor) or resolved == Path.home().resolve():
        return f"{resolved} is too big to snapshot (start pi in a project directory)"
    return None


class Checkpoints:
    """Snapshots of one shell's workspace, tied to its session (see the module docstring)."""

    def __init__(
        self,
        shell: ShellContext,
        *,
        rewindable: bool = True,
        read_only_bash: Callable[[str], bool] | None = None,
    ) -> None:
        self.shell = shell
        self.read_only_bash = read_only_bash
        """Proves a bash command read-only (the permissions' classifier): it needs no snapshot."""
        self.git = ShadowGit(shell.cwd)
        self.off = why_off(shell.cwd, shell.settings.checkpoints)
        if not rewindable:  # a one-shot run that keeps no session: nothing could rewind it
            self.off = "nothing can rewind this run (a one-shot run that keeps no session)"
        self._executor: ThreadPoolExecutor | None = None
        self._trees: dict[str, str] = {}  # session id -> tree of its index's last snapshot
        self._pins: dict[str, str] = {}  # session id -> newest commit of its ref
        self._pinned_trees: dict[str, str] = {}  # session id -> the tree of that commit
        self._turn: asyncio.Future[Snapshot] | None = None
        self._turn_done = False  # this turn's snapshot was recorded (or given up)
        self._pending: dict[asyncio.Task[None], _PendingRun] = {}
        self._said: set[str] = set()
        self.last_snapshot: Snapshot | None = None
        self._session_id = shell.session.session_id
        shell.agent.before_tool_call = self._guard(shell.agent.before_tool_call)
        if self.off is None:
            session_id = shell.session.session_id
            self._submit(self._warm, session_id)  # the first turn's snapshot is then incremental

    @property
    def limits(self) -> Limits:
        """The size limits from the settings."""
        return Limits.of(self.shell.settings.checkpoints)

    # ------------------------------------------------------------------ the worker thread

    def _submit(self, work: Callable[..., T], *args: Any) -> Any:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pi-checkpoint")
        return self._executor.submit(work, *args)

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """Run ``work(*args)`` in the worker thread (after the snapshots queued before it)."""
        return await asyncio.wrap_future(self._submit(work, *args))

    def _warm(self, session_id: str) -> None:
        try:
            snap = take_snapshot(self.git, session_id, self.limits)
            self._trees[session_id] = snap.tree
            from pi_cli.shell.checkpoints.prune import maybe_prune

            maybe_prune(self.git, self.shell.settings.checkpoints)
        except SnapshotSkipped as exc:
            if exc.whole_workspace:  # said at the next turn (this is not the loop's thread)
                self.off = f"Checkpoints are off for this workspace: {exc}."
        except (GitError, OSError):
            log.debug("checkpoint warm-up failed", exc_info=True)

    def snapshot_now(self, session_id: str) -> Snapshot:
        """(Worker thread.) Snapshot the workspace into the session's index."""
        snap = take_snapshot(self.git, session_id, self.limits, self._trees.get(session_id))
        self._trees[session_id] = snap.tree
        self.last_snapshot = snap
        return snap

    def _pin(self, session_id: str, tree: str, message: str) -> None:
        """(Worker thread.) Keep ``tree`` alive: a commit on the session's ref (none when the
        ref's newest commit, made here, already holds it: most turns change nothing)."""
        if self._pinned_trees.get(session_id) == tree:
            return
        ref = self.git.ref(session_id)
        try:
            parent = self._pins.get(session_id)
            if parent is None:
                out = self.git.run("rev-parse", "-q", "--verify", ref, ok_codes=(0, 1))
                parent = out.strip().decode() or None
            args = ["commit-tree", tree, "-m", message] + (["-p", parent] if parent else [])
            commit = self.git.run(*args).strip().decode()
            self.git.run("update-ref", ref, commit)
            self._pins[session_id] = commit
            self._pinned_trees[session_id] = tree
        except GitError:
            log.warning("could not keep checkpoint %s", tree, exc_info=True)

    def copy_ref(self, old_session: str, new_session: str) -> None:
        """A forked session keeps the snapshots its copied entries name."""
        if self.off is None:
            self._submit(self._copy_ref, old_session, new_session)

    def _copy_ref(self, old_session: str, new_session: str) -> None:
        try:
            out = self.git.run(
                "rev-parse", "-q", "--verify", self.git.ref(old_session), ok_codes=(0, 1)
            )
            if out.strip():
                self.git.run("update-ref", self.git.ref(new_session), out.strip().decode())
        except GitError:
            log.debug("could not copy checkpoint ref", exc_info=True)

    # ------------------------------------------------------------------ recording

    def record(self, store: SessionStore, snap: Snapshot, kind: str, **extra: Any) -> str:
        """Append a ``checkpoint`` entry for ``snap`` under the leaf of ``store``; its id."""
        entry_id = store.append(CHECKPOINT, tree=snap.tree, kind=kind, **extra)
        self._submit(self._pin, store.session_id, snap.tree, f"pi {kind} {entry_id}")
        for path, size in snap.too_big:
            limit = self.limits.max_file_bytes / 1_000_000
            self.say(
                f"Checkpoints leave out {path} ({size / 1_000_000:.1f} MB, over the "
                f"{limit:.1f} MB of checkpoints.maxFileBytes): a rewind never touches it.",
                "warning",
            )
        return entry_id

    def say(self, text: str, level: Level = "info") -> None:
        """A notice, once per shell."""
        if text not in self._said:
            self._said.add(text)
            self.shell.notify(text, level)

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, SnapshotSkipped) and exc.whole_workspace:
            self.off = f"Checkpoints are off for this workspace: {exc}."
            self.say(self.off, "warning")
        elif isinstance(exc, SnapshotSkipped):
            self.say(
                f"Checkpoint skipped: {exc}; file changes of this turn cannot be rewound.",
                "warning",
            )
        else:
            self.say(f"Checkpoint failed: {exc}", "warning")

    def _start(self) -> asyncio.Future[Snapshot]:
        loop = asyncio.get_running_loop()
        session_id = self.shell.session.session_id
        future = asyncio.wrap_future(self._submit(self.snapshot_now, session_id), loop=loop)
        future.add_done_callback(lambda f: f.cancelled() or f.exception())  # retrieved: no warning
        return future

    def on_event(self, event: object) -> None:
        """(A shell listener.) The model starts a call of a tool that may change files:
        snapshot now (it streams the arguments meanwhile). A run ended: snapshot. A fork keeps
        the snapshots its entries name."""
        if isinstance(event, SessionChanged):
            old, self._session_id = self._session_id, event.session_id
            if event.reason == "fork":
                self.copy_ref(old, event.session_id)
            return
        if self.off is not None:
            if self.off.startswith("Checkpoints are off") and isinstance(event, TurnStart):
                self.say(self.off, "warning")
            return
        try:
            if isinstance(event, TurnStart):
                self._turn, self._turn_done = None, False
            elif isinstance(event, MessageUpdate):
                self._maybe_start(event)
            elif isinstance(event, AgentEnd):
                self._turn = None
                store = self.shell.session
                pending = _PendingRun(store, self._submit(self.snapshot_now, store.session_id))
                task = asyncio.ensure_future(self._finish_run(pending))
                self._pending[task] = pending
                task.add_done_callback(lambda t: self._pending.pop(t, None))
        except RuntimeError:  # no running loop (a synchronous test driver): nothing to snapshot
            log.debug("checkpoint event outside a loop", exc_info=True)

    def _maybe_start(self, event: MessageUpdate) -> None:
        # The model names a tool that may change files: the snapshot starts while it streams
        # the arguments. A turn that only reads or answers takes none (a snapshot per turn
        # ran git and stat'ed the workspace even when nothing could change).
        if self._turn is not None or self._turn_done:
            return
        call = event.assistant_message_event
        if isinstance(call, ToolCallStart) and call.name not in policy.READ_ONLY_TOOLS:
            self._turn = self._start()

    async def _finish_run(self, pending: _PendingRun) -> None:
        try:
            snap = await asyncio.wrap_future(pending.future)
        except (GitError, SnapshotSkipped, OSError) as exc:
            self._failed(exc)
            return
        self._record_run(pending, snap)

    def _record_run(self, pending: _PendingRun, snap: Snapshot) -> None:
        if not pending.recorded:
            pending.recorded = True
            self.record(pending.store, snap, "run_end")

    async def settle(self, timeout: float | None = None) -> None:
        """Wait until the last run's snapshot is recorded (before the next input is handled)."""
        if self._pending:
            wait = self.shell.settings.checkpoints.wait_ms / 1000 if timeout is None else timeout
            await asyncio.wait(set(self._pending), timeout=max(wait, 0.1))

    def flush(self) -> None:
        """The same for synchronous callers (a fork, a move in the tree right after a run):
        blocks until the snapshot is in, at most ``checkpoints.waitMs`` (usually done)."""
        wait = self.shell.settings.checkpoints.wait_ms / 1000
        for pending in list(self._pending.values()):
            if pending.recorded:
                continue
            try:
                snap = pending.future.result(timeout=wait)
            except Exception:  # noqa: BLE001 - late or failed: its task reports it
                continue
            self._record_run(pending, snap)

    async def aclose(self) -> None:
        """Record what is pending and let the worker finish (pins included)."""
        await self.settle()
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.get_running_loop().run_in_executor(None, executor.shutdown, True)

    # ------------------------------------------------------------------ before a tool runs

    def _guard(self, previous: BeforeToolCall | None) -> BeforeToolCall:
        async def guarded(ctx: ToolCallContext, signal: AbortSignal) -> BeforeToolCallResult | None:
            result = await previous(ctx, signal) if previous is not None else None
            if result is not None and result.block:
                return result
            try:
                args = result.arguments if result and result.arguments is not None else None
                await self.before_change(ctx.tool_call.name, args or ctx.tool_call.arguments)
            except Exception:  # a checkpoint problem never blocks a tool
                log.exception("checkpoint before a tool call failed")
            return result

        return guarded

    async def before_change(self, name: str, args: dict[str, Any]) -> None:
        """Before a tool call: if it may change files, make sure this turn's snapshot is in."""
        if self.off is not None or self._turn_done:
            return
        tool = next((t for t in self.shell.tools if t.name == name), None)
        if not policy.may_change_files(tool, name, args, self.read_only_bash):
            return  # nothing to snapshot before it (one already in flight is kept)
        future = self._turn or self._start()
        self._turn = future
        wait = self.shell.settings.checkpoints.wait_ms / 1000
        try:
            snap = await asyncio.wait_for(asyncio.shield(future), timeout=wait)
        except TimeoutError:
            self._turn_done = True
            self.say(
                f"Checkpoint skipped: the snapshot took longer than {wait:g} s "
                "(checkpoints.waitMs; a very big workspace?); this turn cannot be rewound.",
                "warning",
            )
            return
        except (GitError, SnapshotSkipped, OSError) as exc:
            self._turn_done = True
            self._failed(exc)
            return
        if not self._turn_done:  # parallel calls of one turn record it once
            self._turn_done = True
            self.record(self.shell.session, snap, "turn")

    async def changes_since_last(self) -> list[str]:
        """Snapshot now; the files (workspace-relative) that differ from this session's last
        snapshot (the turn's, or the previous call of this). The language servers ask after
        a bash command which files it changed."""
        if self.off is not None:
            return []
        session_id = self.shell.session.session_id
        before = self._trees.get(session_id)
        snap = await self.run(self.snapshot_now, session_id)
        if before is None or before == snap.tree:
            return []
        from pi_cli.shell.checkpoints.snapshot import name_status

        changed = await self.run(name_status, self.git, before, snap.tree)
        return [path for _, path in changed]

    # ------------------------------------------------------------------ rewinding

    async def points(self) -> list[rewinding.RewindPoint]:
        """The prompts of the current branch with what changed after each (``/rewind``)."""
        from pi_cli.shell.checkpoints import rewind as rewinding

        return await rewinding.rewind_points(self.shell.session, self)

    async def plan(self, entry_id: str) -> rewinding.RewindPlan:
        """What rewinding the code to ``entry_id`` would do."""
        from pi_cli.shell.checkpoints import rewind as rewinding

        return await rewinding.plan_rewind(self.shell.session, self, entry_id)

    async def rewind(
        self,
        entry_id: str,
        *,
        code: bool = True,
        conversation: bool = True,
        overwrite: bool | None = None,
        summarize: bool = False,
    ) -> rewinding.RewindResult:
        """Rewind code and/or conversation (see :func:`.rewind.rewind`)."""
        from pi_cli.shell.checkpoints import rewind as rewinding

        return await rewinding.rewind(
            self.shell,
            self,
            entry_id,
            code=code,
            conversation=conversation,
            overwrite=overwrite,
            summarize=summarize,
        )

    async def undo(self, overwrite: bool | None = None) -> rewinding.RewindResult:
        """Undo the last rewind or restore."""
        from pi_cli.shell.checkpoints import rewind as rewinding

        return await rewinding.undo_rewind(self.shell, self, overwrite)
