"""``pi --replay``: run a session's recorded tool calls again, in a scratch copy of its workspace,
and compare each result with the recorded one.

The scratch copy holds the code as it was at the session's first prompt when a checkpoint has
it, else the workspace's files now (``.gitignore`` and size limits respected, via a snapshot).
The recorded assistant messages are replayed in order: their tool calls go through the shell's
tools and hooks (validation, ``tool_call``/``tool_result`` hooks), one at a time; calls the
original run skipped (a steer, an abort) are not run. Results are compared as text with the
error flag, the scratch directory's path written back as the workspace's; commands the user
ran (``!cmd``) are not run again. Nothing reaches a model.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_core import AbortSignal, AgentContext, AgentLoopConfig, Message, message_from_wire
from agent_core.messages import AssistantMessage, ToolResultMessage
from agent_core.tool_execution import SKIPPED_FOR_ABORT, SKIPPED_FOR_STEERING, execute_tool_calls
from pi_cli.shell.checkpoints.git import GitError, ShadowGit, git_available
from pi_cli.shell.checkpoints.snapshot import Limits, take_snapshot
from pi_cli.shell.checkpoints.timeline import Timeline
from pi_cli.shell.context import ShellContext
from pi_cli.shell.session.store import SessionStore
from pi_cli.shell.session.tree import text_of

_FULL_OUTPUT = re.compile(r"(Full output: )\S+")


@dataclass
class Divergence:
    """One tool call whose result differs from the recording."""

    number: int
    tool: str
    arguments: dict[str, Any]
    expected: str
    got: str
    expected_error: bool
    got_error: bool


@dataclass
class ReplayReport:
    """What a replay found."""

    scratch: Path
    source: str
    calls: int = 0
    matched: int = 0
    not_run: int = 0
    user_commands: int = 0
    divergences: list[Divergence] = field(default_factory=list)


def recorded(store: SessionStore) -> list[dict[str, Any]]:
    """The wire messages of the current branch, from the first entry (compactions included)."""
    refs = [r for r in store.path_to() if r.type == "message"]
    return [
        data["message"]
        for data in store.iter_entries(refs)
        if isinstance(data.get("message"), dict)
    ]


def make_scratch(store: SessionStore, workspace: Path) -> tuple[Path, str]:
    """A scratch copy of the workspace: (its directory, where its files came from)."""
    scratch = Path(tempfile.mkdtemp(prefix="pi-replay-"))
    if git_available():
        git = ShadowGit(workspace)
        timeline = Timeline(store)
        first = next((r.id for r in store.path_to() if r.type == "message"), None)
        start = timeline.code_at(first) if first else None
        try:
            if start is not None and git.has_object(start.tree):
                _materialize(git, start.tree, scratch)
                return scratch, f"the checkpoint at the first prompt ({start.tree[:10]})"
            snap = take_snapshot(git, f"replay-{os.getpid()}", Limits())
            _materialize(git, snap.tree, scratch)
            with contextlib.suppress(OSError):
                (git.index_dir / f"replay-{os.getpid()}").unlink()
            return scratch, f"the files of {workspace} now (no checkpoint of the start)"
        except GitError:
            pass
    shutil.copytree(workspace, scratch, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
    return scratch, f"a copy of {workspace} now"


def _materialize(git: ShadowGit, tree: str, target: Path) -> None:
    """Write the files of ``tree`` into ``target`` (the shadow repository is only read)."""
    other = ShadowGit(target, root=git.root)
    index = target.parent / f".{target.name}.index"
    try:
        other.run("read-tree", tree, index=index)
        other.run("checkout-index", "-a", "-f", index=index)
    finally:
        with contextlib.suppress(OSError):
            index.unlink()


def _normal(text: str, scratch: Path, workspace: Path) -> str:
    text = text.replace(str(scratch), str(workspace))
    return _FULL_OUTPUT.sub(r"\1<file>", text)


async def replay(
    shell: ShellContext, messages: list[dict[str, Any]], workspace: Path, report: ReplayReport
) -> ReplayReport:
    """Replay every recorded tool call of ``messages`` in ``shell`` (whose cwd is the scratch)."""
    results = {m.get("toolCallId"): m for m in messages if m.get("role") == "toolResult"}
    context: list[Message] = []
    agent = shell.agent
    config = AgentLoopConfig(
        stream_fn=agent.stream_fn,
        tool_execution="sequential",
        before_tool_call=agent.before_tool_call,
        after_tool_call=agent.after_tool_call,
    )
    signal = AbortSignal()
    for wire in messages:
        role = wire.get("role")
        if role == "bashExecution":
            report.user_commands += 1
            continue
        if role not in ("user", "assistant"):
            continue
        try:
            message = message_from_wire(wire)
        except Exception:  # noqa: BLE001 - a message pi cannot read is no tool call to replay
            continue
        context.append(message)
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            continue
        run = []
        for call in message.tool_calls:
            expected = results.get(call.id)
            text = text_of(expected.get("content")) if expected else ""
            if expected is None or text in (SKIPPED_FOR_STEERING, SKIPPED_FOR_ABORT):
                report.not_run += 1
            else:
                run.append(call)
        batch = await execute_tool_calls(
            AgentContext(messages=context, tools=shell.tools), message, run, config, _ignore, signal
        )
        calls = {call.id: call for call in run}
        for result in batch.results:
            done = calls.get(result.tool_call_id)
            arguments = dict(done.arguments) if done is not None else {}
            _compare(result, results[result.tool_call_id], arguments, shell.cwd, workspace, report)
        context.extend(batch.results)
    return report


def _compare(
    result: ToolResultMessage,
    expected: dict[str, Any],
    arguments: dict[str, Any],
    scratch: Path,
    workspace: Path,
    report: ReplayReport,
) -> None:
    report.calls += 1
    got = _normal(result.text, scratch, workspace)
    want = _FULL_OUTPUT.sub(r"\1<file>", text_of(expected.get("content")))
    if got == want and result.is_error == bool(expected.get("isError")):
        report.matched += 1
        return
    report.divergences.append(
        Divergence(
            report.calls,
            result.tool_name,
            arguments,
            want,
            got,
            bool(expected.get("isError")),
            result.is_error,
        )
    )


def _ignore(event: object) -> None:
    """The replay's tool events go nowhere (the report says what matters)."""
