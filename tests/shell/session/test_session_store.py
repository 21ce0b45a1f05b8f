"""Session files: append-only JSONL tree, crash tolerance, offset index, resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core import AssistantMessage, TextContent, ToolResultMessage, user_message
from pi_cli.shell.session.files import find_latest_session, resolve_session
from pi_cli.shell.session.store import SessionError, SessionStore


def _assistant(text: str) -> AssistantMessage:
    return AssistantMessage(content=[TextContent(text=text)], model="m")


def _store(tmp_path: Path) -> SessionStore:
    store = SessionStore.create(tmp_path)
    store.append_message(user_message("hello"))
    store.append_message(_assistant("hi there"))
    store.append_message(
        ToolResultMessage(tool_call_id="c1", tool_name="bash", content="out", is_error=True)
    )
    return store


def test_file_is_written_lazily_and_lines_are_flushed(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path)
    assert store.path is not None and not store.path.exists()
    store.append_message(user_message("hello"))
    lines = store.path.read_text().splitlines()
    header, entry = (json.loads(line) for line in lines)
    assert header["type"] == "session" and header["id"] == store.session_id
    assert entry["type"] == "message" and entry["parentId"] is None
    assert entry["message"]["role"] == "user"


def test_round_trip_tree_and_camel_case(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.path is not None
    text = store.path.read_text()
    assert '"toolCallId":"c1"' in text and '"isError":true' in text
    reopened = SessionStore.open(store.path)
    messages = reopened.build_context()
    assert [m.role for m in messages] == ["user", "assistant", "toolResult"]
    assert messages[1].text == "hi there"
    ids = reopened.order
    assert reopened.entries[ids[1]].parent_id == ids[0]
    assert reopened.leaf_id == ids[-1]


def test_truncated_last_line_is_skipped_and_appending_continues(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.path is not None
    with store.path.open("ab") as handle:  # a kill -9 mid-write
        handle.write(
            b'{"type":"message","id":"deadbeef","parentId":null,"timestamp":"x","message":{"role":"us'
        )
    reopened = SessionStore.open(store.path)
    assert len(reopened.build_context()) == 3
    assert any("skipped" in w for w in reopened.warnings)
    reopened.append_message(user_message("after crash"))
    again = SessionStore.open(store.path)
    assert [m.role for m in again.build_context()] == ["user", "assistant", "toolResult", "user"]
    assert again.build_context()[-1].text == "after crash"


def test_corrupt_middle_line_is_skipped(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.path is not None
    lines = store.path.read_text().splitlines()
    lines.insert(2, "this is not json")
    store.path.write_text("\n".join(lines) + "\n")
    reopened = SessionStore.open(store.path)
    assert len(reopened.build_context()) == 3
    assert reopened.warnings


def test_not_a_session_file(tmp_path: Path) -> None:
    bogus = tmp_path / "x.jsonl"
    bogus.write_text("garbage\n")
    with pytest.raises(SessionError, match="not a pi session"):
        SessionStore.open(bogus)
    with pytest.raises(SessionError, match="Cannot open"):
        SessionStore.open(tmp_path / "missing.jsonl")


def test_branching_by_moving_the_leaf(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path)
    first = store.append_message(user_message("one"))
    store.append_message(_assistant("answer one"))
    store.set_leaf(first)
    store.append_message(_assistant("another answer"))
    assert [m.text for m in store.build_context()] == ["one", "another answer"]
    assert store.path is not None
    reopened = SessionStore.open(store.path)
    assert [m.text for m in reopened.build_context()] == ["one", "another answer"]
    with pytest.raises(SessionError):
        store.set_leaf("nope")


def test_compaction_entry_starts_context_at_summary(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path)
    store.append_message(user_message("old"))
    store.append_message(_assistant("old answer"))
    kept = store.append_message(user_message("recent"))
    store.append_message(_assistant("recent answer"))
    store.append("compaction", summary="GOAL: test", firstKeptEntryId=kept, tokensBefore=100)
    store.append_message(user_message("new"))
    texts = [m.text for m in store.build_context()]
    assert "GOAL: test" in texts[0]
    assert texts[1:] == ["recent", "recent answer", "new"]


def test_in_memory_store_writes_nothing(tmp_path: Path, pi_home: Path) -> None:
    store = SessionStore.create(tmp_path, persist=False)
    store.append_message(user_message("x"))
    assert store.path is None
    assert [m.text for m in store.build_context()] == ["x"]
    assert not (pi_home / "sessions").exists()


def test_latest_and_resolve(tmp_path: Path) -> None:
    first = _store(tmp_path)
    second = _store(tmp_path)
    assert first.path and second.path
    import os

    os.utime(first.path, (1, 1))
    assert find_latest_session(tmp_path) == second.path
    assert resolve_session(second.session_id[:8], tmp_path) == second.path
    assert resolve_session(str(first.path), tmp_path) == first.path
    with pytest.raises(SessionError, match="No session"):
        resolve_session("ffffffffffff", tmp_path)
