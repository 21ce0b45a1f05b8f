"""The chunked offset index behind fast resume: fast and slow lines, corruption, compaction walk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core import user_message
from pi_cli.shell.session import index as session_index
from pi_cli.shell.session.store import SessionStore


@pytest.fixture(params=[64, 8 * 1024 * 1024], ids=["tiny-chunks", "default-chunks"])
def chunk(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(session_index, "CHUNK", request.param)
    return request.param


def test_index_matches_a_full_parse(tmp_path: Path, chunk: int) -> None:
    store = SessionStore.create(tmp_path, directory=tmp_path)
    for i in range(30):
        store.append_message(user_message(f"message {i} with unicode \u2028 é"))
    path = store.path
    assert path is not None
    with path.open("ab") as handle:
        # A hand-edited entry (other key order, CRLF) and a corrupt line: the slow path.
        handle.write(
            b'{"id":"abcdef01","type":"message","parentId":"'
            + store.leaf_id.encode()
            + b'","message":{"role":"user","content":"edited"}}\r\n'
        )
        handle.write(b"{not json\n")
        handle.write(
            b'{"type":"message","id":"0123abcd","parentId":"abcdef01","message":{"role":"user","content":"tail"}}'
        )
    reopened = SessionStore.open(path)
    assert len(reopened.order) == 32
    assert reopened.order[-1] == "0123abcd" and reopened.leaf_id == "0123abcd"
    for entry_id in reopened.order:
        assert reopened.read_entry(entry_id)["id"] == entry_id  # offsets and lengths are exact
    assert reopened.warnings == [f"{path.name}: skipped unreadable line 33"]
    texts = [m.content[0].text for m in reopened.build_context()]
    assert texts[-2:] == ["edited", "tail"] and len(texts) == 32
    reopened.append_message(user_message("after a line without newline"))
    assert SessionStore.open(path).read_entry(SessionStore.open(path).leaf_id)["message"][
        "content"
    ][0]["text"] == ("after a line without newline")


def test_build_context_stops_at_the_compaction_it_needs(tmp_path: Path) -> None:
    store = SessionStore.create(tmp_path, directory=tmp_path)
    ids = [store.append_message(user_message(f"m{i}")) for i in range(6)]
    store.append("compaction", summary="S1", firstKeptEntryId=ids[4], tokensBefore=1)
    later = store.append_message(user_message("m6"))
    store.append("compaction", summary="S2", firstKeptEntryId=later, tokensBefore=2)
    store.append_message(user_message("m7"))
    reopened = SessionStore.open(store.path)
    assert [m.content[0].text for m in reopened.build_context()][1:] == ["m6", "m7"]
    assert "S2" in reopened.build_context()[0].content[0].text
    # A compaction whose kept entry is not an ancestor: context starts after the compaction.
    reopened.set_leaf(ids[2])
    reopened.append("compaction", summary="S3", firstKeptEntryId="ffffffff", tokensBefore=3)
    reopened.append_message(user_message("m8"))
    context = reopened.build_context()
    assert "S3" in context[0].content[0].text and [m.content[0].text for m in context[1:]] == ["m8"]
    raw = [json.loads(line) for line in store.path.read_text().splitlines()]
    assert sum(e["type"] == "message" for e in raw) == 9  # full history kept
