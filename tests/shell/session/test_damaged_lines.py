"""A damaged line of a session file costs that line only (issue 26).

A real session (tool calls and results, a compaction, a branch left with ``/tree``, labels,
checkpoints when git is there, an answer aborted while streaming) is written by the shell; then
every line in turn is truncated, corrupted, deleted, duplicated and swapped with the next, and
the session is opened again. Every readable message the model saw must still be in its context,
the tree must reach back to the first prompt, and what was skipped must be named.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from agent_core import AssistantMessage, MessageEnd, MessageStart, MessageUpdate, user_message
from agent_core.events import TextDelta
from agent_core.messages import TextContent
from pi_cli.shell.session._context import context_refs
from pi_cli.shell.session.index import DAMAGED
from pi_cli.shell.session.record import StreamRecorder
from pi_cli.shell.session.store import SessionError, SessionStore
from tests.agent_core.scripted_stream import reply, text, tool_call
from tests.shell.helpers import make_shell

MUTATIONS = ("truncate", "corrupt", "delete", "duplicate", "swap")


def _aborted_first_answer(project: Path) -> Path:
    """The start of the session: an answer aborted while streaming (its text saved as it came,
    with no event loop running, each delta at once)."""
    first = SessionStore.create(project)
    first.append_message(user_message("prompt one: hello"))
    recorder = StreamRecorder(lambda: first)
    recorder.on_event(MessageStart(message=AssistantMessage(model="openai/m")))
    for piece in ("answer one ", "was cut"):
        recorder.on_event(
            MessageUpdate(assistant_message_event=TextDelta(content_index=0, delta=piece))
        )
    aborted = AssistantMessage(
        content=[TextContent(text="answer one was cut")], stop_reason="aborted"
    )
    recorder.on_event(MessageEnd(message=aborted))
    assert first.path is not None
    return first.path


async def _real_session(project: Path, path: Path) -> Path:
    """The rest of a session with everything a real one holds, written by pi itself."""
    (project / "notes.txt").write_text("alpha\n")
    shell, _, _ = make_shell(
        project,
        reply(tool_call("r1", "read", {"path": "notes.txt"})),
        reply(text("answer two: notes say alpha")),
        reply(tool_call("w1", "write", {"path": "out.txt", "content": "beta\n"})),
        reply(text("answer three: wrote out.txt")),
        reply(text("the summary of the early turns")),  # /compact
        reply(text("answer four: after the compaction")),
        reply(text("answer five: on a branch")),
        session=str(path),
        permission_mode="bypassPermissions",
    )
    for prompt in ("prompt two: read notes", "prompt three: write out"):
        await shell.submit(prompt)
    await shell.wait_idle()
    await shell.compact()
    await shell.submit("prompt four: after compaction")
    await shell.wait_idle()
    before_four = shell.session.path_to()[-3].id  # back before prompt four: a branch
    shell.navigate_to(before_four)
    await shell.submit("prompt five: on a branch")
    await shell.wait_idle()
    shell.session.append("label", targetId=before_four, label="fork point")
    await shell.aclose()
    return path


def _texts(store: SessionStore) -> list[str]:
    return [m.text for m in store.build_context()]


def _context_ids(store: SessionStore) -> list[str]:
    """The ids of the entries whose messages make the context (compaction summary: its id)."""
    refs, compaction = context_refs(store.entries, store.leaf_id, store._first_valid)
    ids = [str(compaction["id"])] if compaction is not None else []
    return ids + [r.id for r in refs if r.type in ("message", "branch_summary")]


def _mutate(lines: list[bytes], index: int, how: str) -> list[bytes]:
    line = lines[index]
    out = list(lines)
    if how == "truncate":
        out[index] = line[: len(line) // 2] + b"\n"
    elif how == "corrupt":
        middle = len(line) // 2
        out[index] = line[: middle - 3] + b"\x00\xff{{" + line[middle + 2 :]
    elif how == "delete":
        del out[index]
    elif how == "duplicate":
        out.insert(index, line)
    elif how == "swap" and index + 1 < len(lines):
        out[index], out[index + 1] = out[index + 1], out[index]
    return out


Session = tuple[list[bytes], list[str], dict[str, str]]


@pytest.fixture(scope="module")
def session_lines(tmp_path_factory: pytest.TempPathFactory) -> Session:
    """(lines, the context's entry ids, each id's message text) of a real session."""
    import asyncio

    project = tmp_path_factory.mktemp("damaged") / "project"
    (project / ".git").mkdir(parents=True)
    path = asyncio.run(_real_session(project, _aborted_first_answer(project)))
    store = SessionStore.open(path, persist=False)
    ids = _context_ids(store)
    texts = dict(zip(ids, _texts(store), strict=True))
    return path.read_bytes().splitlines(keepends=True), ids, texts


def test_the_real_session_has_every_kind_of_line(session_lines: Session) -> None:
    lines, ids, texts = session_lines
    context = [texts[i] for i in ids]
    kinds = {json.loads(line)["type"] for line in lines}
    assert {"session", "message", "compaction", "label", "partial"} <= kinds
    roles = {json.loads(line).get("message", {}).get("role") for line in lines}
    assert {"user", "assistant", "toolResult"} <= roles
    assert context[-1] == "answer five: on a branch"
    assert "answer four: after the compaction" not in context  # left on the other branch


@pytest.mark.parametrize("how", MUTATIONS)
def test_every_line_damaged_in_turn_costs_that_line_only(
    session_lines: Session, how: str, tmp_path: Path
) -> None:
    lines, ids, texts = session_lines
    for index in range(1, len(lines)):  # the header has a test of its own
        mutated = _mutate(lines, index, how)
        path = tmp_path / f"{how}-{index}.jsonl"
        path.write_bytes(b"".join(mutated))
        store = SessionStore.open(path, persist=False)
        got = Counter(_texts(store))
        damaged = (
            json.loads(lines[index])["id"] if how in ("truncate", "corrupt", "delete") else None
        )
        expected = Counter(texts[i] for i in ids if i != damaged)
        missing = expected - got
        assert not missing, f"{how} line {index + 1}: lost {missing}; warnings {store.warnings}"
        if damaged in ids and how != "delete":  # a line of the context: say it was skipped
            assert any(f"line {index + 1}" in w for w in store.warnings), store.warnings
        root = store.path_to()[0] if store.path_to() else None
        assert root is None or root.parent_id is None


def test_a_truncated_answer_keeps_the_text_that_streamed(tmp_path: Path) -> None:
    """The ux-review repro: the first answer was aborted; its line is truncated."""
    store = SessionStore.create(tmp_path)
    store.append_message(user_message("hello"))
    recorder = StreamRecorder(lambda: store)
    recorder.on_event(MessageStart(message=AssistantMessage(model="openai/m")))
    recorder.on_event(
        MessageUpdate(
            assistant_message_event=TextDelta(content_index=0, delta="nineteen chars here")
        )
    )
    aborted = AssistantMessage(
        content=[TextContent(text="nineteen chars here")], stop_reason="aborted"
    )
    recorder.on_event(MessageEnd(message=aborted))
    store.append_message(user_message("second prompt"))
    assert store.path is not None
    lines = store.path.read_bytes().splitlines(keepends=True)
    answer = next(i for i, line in enumerate(lines) if b'"role":"assistant"' in line)
    lines[answer] = lines[answer][:60] + b"\n"
    store.path.write_bytes(b"".join(lines))
    resumed = SessionStore.open(store.path, persist=False)
    assert _texts(resumed) == ["hello", "nineteen chars here", "second prompt"]
    assert any("19 characters" in w and "stand in" in w for w in resumed.warnings)


def test_an_unreadable_line_with_no_id_relinks_the_rest(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path)
    for word in ("one", "two", "three"):
        store.append_message(user_message(word))
    assert store.path is not None
    lines = store.path.read_bytes().splitlines(keepends=True)
    lines[2] = b"\x00garbage that names no entry\n"
    store.path.write_bytes(b"".join(lines))
    resumed = SessionStore.open(store.path, persist=False)
    assert _texts(resumed) == ["one", "three"]
    assert any("skipped unreadable line 3" in w for w in resumed.warnings)
    assert any("it now follows" in w for w in resumed.warnings)
    assert not any(resumed.entries[i].type == DAMAGED for i in resumed.order)


def test_a_damaged_header_still_opens_the_session(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path)
    store.append_message(user_message("kept"))
    assert store.path is not None
    lines = store.path.read_bytes().splitlines(keepends=True)
    lines[0] = lines[0][:20] + b"\n"
    store.path.write_bytes(b"".join(lines))
    resumed = SessionStore.open(store.path, persist=False)
    assert _texts(resumed) == ["kept"]
    assert resumed.session_id == store.session_id  # from the file name
    assert any("header" in w for w in resumed.warnings)


def test_a_file_with_nothing_readable_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.jsonl"
    path.write_bytes(b"\x00\x01 not json\n")
    with pytest.raises(SessionError, match="not a pi session file"):
        SessionStore.open(path)
