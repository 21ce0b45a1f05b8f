"""Session files that are broken, from a newer pi, cut off mid-answer, or shared by two pi's."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path
from typing import Any

from agent_core import (
    AssistantMessage,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    TextContent,
    TextDelta,
    ThinkingDelta,
    user_message,
)
from pi_cli.shell.session.branching import fork
from pi_cli.shell.session.entries import INCOMPLETE
from pi_cli.shell.session.record import StreamRecorder
from pi_cli.shell.session.store import SessionStore
from pi_cli.shell.session.tree import tree_entries

HEADER = {"type": "session", "version": 1, "id": "s1", "timestamp": "t", "cwd": "/x"}


def _write(path: Path, *entries: Any) -> Path:
    lines = [json.dumps(HEADER), *(e if isinstance(e, str) else json.dumps(e) for e in entries)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _entry(kind: str, entry_id: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": "t", **fields}


def _user(entry_id: str, parent: str | None, text: str) -> dict[str, Any]:
    return _entry("message", entry_id, parent, message={"role": "user", "content": text})


def test_bad_entries_of_known_types_are_skipped_naming_file_and_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "s.jsonl",
        _user("a1", None, "hello"),
        _entry("model_change", "a2", "a1", model="openai/gpt-4o"),
        _entry("model_change", "a3", "a2"),  # no model (line 4)
        _entry("thinking_level_change", "a4", "a3", thinkingLevel=5),  # line 5
        _entry("compaction", "a5", "a4", summary=["x"]),  # line 6
        _entry("message", "a6", "a5", message="just a string"),  # line 7
        _entry("message", "a7", "a6", message={"role": "user", "content": [{"type": "video"}]}),
        _user("a8", "a7", "still here"),
    )
    store = SessionStore.open(path)
    texts = [m.text for m in store.build_context()]
    assert texts == ["hello", "still here"]
    assert store.latest("model_change") == _entry("model_change", "a2", "a1", model="openai/gpt-4o")
    assert store.latest("thinking_level_change") is None
    warnings = "\n".join(store.warnings)
    assert "s.jsonl line 4: skipped model_change entry a3: it names no model" in warnings
    assert "s.jsonl line 5: skipped thinking_level_change entry a4" in warnings
    assert "s.jsonl line 7: skipped message entry a6: its message is missing" in warnings
    assert "s.jsonl line 8: skipped message entry a7" in warnings
    assert all("\n" not in w for w in store.warnings)
    # the tree still lists every entry; the bad ones say so
    previews = {e.id: e.preview for e in tree_entries(store)}
    assert previews["a6"] == "[unreadable entry]" and previews["a8"] == "user: still here"


def test_entries_of_a_newer_pi_are_kept_untouched(tmp_path: Path) -> None:
    future = _entry("bookmark", "b2", "b1", label="here", nested={"deep": [1, {"x": None}]})
    newer_role = _entry("message", "b3", "b2", message={"role": "branchSummary", "content": []})
    path = _write(
        tmp_path / "s.jsonl",
        _user("b1", None, "hi"),
        future,
        newer_role,
        _user("b4", "b3", "after"),
    )
    path.write_text(path.read_text().replace('"version": 1', '"version": 3'))
    original = path.read_bytes()
    store = SessionStore.open(path)
    assert [m.text for m in store.build_context()] == ["hi", "after"]
    assert any("written by a newer pi (session version 3)" in w for w in store.warnings)
    assert any(
        "role 'branchSummary' is unknown (written by a newer pi?)" in w for w in store.warnings
    )
    store.append_message(user_message("mine"))
    assert path.read_bytes().startswith(original)  # nothing rewritten
    assert {e.id: e.preview for e in tree_entries(store)}["b2"] == "[bookmark]"
    assert store.read_entry("b2") == future  # passed through as it was


def test_fork_copies_unknown_entries_byte_for_byte(tmp_path: Path, pi_home: Path) -> None:
    future = json.dumps(_entry("bookmark", "c2", "c1", label="é\u2028"), ensure_ascii=False)
    path = _write(tmp_path / "s.jsonl", _user("c1", None, "hi"), future, _user("c3", "c2", "x"))

    class Shell:
        cwd = tmp_path
        session = SessionStore.open(path)

        def ensure_idle(self, what: str) -> None:
            pass

        def adopt_session(self, store: SessionStore, reason: str) -> None:
            self.session = store

    shell = Shell()
    new_path = fork(shell, "c3")  # type: ignore[arg-type]
    assert future.encode() in new_path.read_bytes()


def _stream(recorder: StreamRecorder, parts: list[tuple[str, str]], *, finish: bool) -> None:
    recorder.on_event(MessageStart(message=AssistantMessage(model="openai/m")))
    for kind, piece in parts:
        event = ThinkingDelta if kind == "thinking" else TextDelta
        index = 0 if kind == "thinking" else 1
        recorder.on_event(
            MessageUpdate(assistant_message_event=event(content_index=index, delta=piece))
        )
    if finish:
        text = "".join(p for k, p in parts if k == "text")
        recorder.on_event(MessageEnd(message=AssistantMessage(content=[TextContent(text=text)])))


def test_a_killed_stream_is_resumed_as_incomplete(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path)
    store.append_message(user_message("tell me"))
    recorder = StreamRecorder(lambda: store)  # no event loop: each delta is saved at once
    _stream(
        recorder,
        [("thinking", "hmm "), ("thinking", "ok"), ("text", "Half of "), ("text", "the")],
        finish=False,
    )
    assert store.path is not None and store.leaf_id is not None
    resumed = SessionStore.open(store.path)
    messages = resumed.build_context()
    last = messages[-1]
    assert isinstance(last, AssistantMessage)
    assert last.stop_reason == "aborted" and last.error_message == INCOMPLETE
    assert last.text == "Half of the" and last.content[0].thinking == "hmm ok"  # type: ignore[union-attr]
    assert any("cut off while streaming" in w and "17 characters" in w for w in resumed.warnings)
    # the recovery is written once: reopening finds the message, not the partials
    again = SessionStore.open(store.path)
    assert len(again.build_context()) == 2 and not any("cut off" in w for w in again.warnings)


def test_a_finished_stream_supersedes_its_partials(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path)
    store.append_message(user_message("tell me"))
    recorder = StreamRecorder(lambda: store)
    _stream(recorder, [("text", "All "), ("text", "of it")], finish=True)
    assert store.path is not None
    assert store.path.read_text().count('"type":"partial"') == 2
    resumed = SessionStore.open(store.path)
    assert [m.text for m in resumed.build_context()] == ["tell me", "All of it"]
    assert not resumed.warnings and len(resumed.order) == 2


def test_read_only_resume_keeps_the_recovery_in_memory(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path)
    store.append_message(user_message("q"))
    _stream(StreamRecorder(lambda: store), [("text", "part")], finish=False)
    assert store.path is not None
    before = store.path.read_bytes()
    resumed = SessionStore.open(store.path, persist=False)
    assert resumed.build_context()[-1].text == "part"
    assert store.path.read_bytes() == before


def test_torn_last_line_after_a_kill_during_a_write(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path)
    store.append_message(user_message("one"))
    assert store.path is not None
    with store.path.open("ab") as handle:
        handle.write(b'{"type":"message","id":"ffff0000","parentId":null,"timestamp":"x","mess')
    resumed = SessionStore.open(store.path)
    assert [m.text for m in resumed.build_context()] == ["one"]
    assert any("skipped unreadable line 3" in w for w in resumed.warnings)
    resumed.append_message(user_message("two"))  # a newline first: "two" is not glued on
    lines = store.path.read_bytes().splitlines()
    assert json.loads(lines[-1])["message"]["content"][0]["text"] == "two"
    assert [m.text for m in SessionStore.open(store.path).build_context()] == ["one", "two"]


def _append_many(path: str, tag: str, count: int, barrier: Any) -> None:
    store = SessionStore.open(Path(path))
    barrier.wait()
    for i in range(count):
        store.append_message(user_message(f"{tag}-{i} " + "x" * (i * 37 % 5000)))
    # every entry this process wrote reads back as itself (offsets taken under the lock)
    mine = [store.read_entry(i) for i in store.order]
    texts = [e["message"]["content"][0]["text"] for e in mine if e and e["type"] == "message"]
    assert [t.split()[0] for t in texts if t.startswith(tag)] == [
        f"{tag}-{i}" for i in range(count)
    ]
    notices = store.notices
    Path(path + f".{tag}").write_text(json.dumps(notices))


def test_two_processes_appending_lose_and_interleave_nothing(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path)
    store.append_message(user_message("start"))
    assert store.path is not None
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    count = 150
    procs = [
        ctx.Process(target=_append_many, args=(str(store.path), tag, count, barrier))
        for tag in ("A", "B")
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    lines = store.path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    parsed = [json.loads(line) for line in lines[:-1]]  # every line whole
    texts = [p["message"]["content"][0]["text"].split()[0] for p in parsed[1:]]
    assert sorted(texts) == sorted(["start"] + [f"{t}-{i}" for t in "AB" for i in range(count)])
    notices = [json.loads(Path(f"{store.path}.{t}").read_text()) for t in "AB"]
    assert any(n and "Another pi process is writing to this session" in n[0] for n in notices)
    reopened = SessionStore.open(store.path)
    assert len(reopened.order) == 2 * count + 1 and not reopened.warnings


def test_session_files_are_private(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path)
    store.append_message(user_message("secret plans"))
    assert store.path is not None
    assert os.stat(store.path).st_mode & 0o077 == 0


def test_a_line_nested_too_deeply_is_skipped(tmp_path: Path) -> None:
    deep = '{"type":"message","id":"d1","parentId":null,"x":' + "[" * 100_000 + "]" * 100_000 + "}"
    odd = '{ "id": "d2", "type": "message", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    path = _write(tmp_path / "s.jsonl", _user("a1", None, "hi"), deep, odd, _user("a2", "a1", "ok"))
    store = SessionStore.open(path)
    assert [m.text for m in store.build_context()] == ["hi", "ok"]
    assert any(
        "s.jsonl line 4: skipped unreadable line" in w or "line 4" in w for w in store.warnings
    )
