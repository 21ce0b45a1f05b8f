"""edit tool: exact and tolerant matches, every error, CRLF/BOM round trips, diff details."""

from __future__ import annotations

import re
import stat
from pathlib import Path

import pytest

from agent_core import ToolError
from agent_core.records import RecordError
from tests.tools._helpers import run
from tools import create_edit_tool


def _edit(old: str, new: str) -> dict[str, str]:
    return {"old_text": old, "new_text": new}


async def test_single_edit_with_diff_details(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text("a = 1\nb = 2\nc = 3\n")
    result = await run(create_edit_tool(tmp_path), path="m.py", edits=[_edit("b = 2", "b = 20")])
    assert target.read_text() == "a = 1\nb = 20\nc = 3\n"
    assert result.text == "Successfully applied 1 edit to m.py."
    assert result.details["first_changed_line"] == 2
    diff = result.details["diff"]
    assert diff.startswith("--- a/m.py\n+++ b/m.py\n") and "-b = 2\n+b = 20\n" in diff


async def test_multiple_edits_matched_against_original(tmp_path: Path) -> None:
    target = tmp_path / "m.txt"
    target.write_text("one\ntwo\nthree\nfour\n")
    result = await run(
        create_edit_tool(tmp_path),
        path="m.txt",
        edits=[_edit("four", "FOUR"), _edit("two", "one")],  # "one" appearing twice after is fine
    )
    assert target.read_text() == "one\none\nthree\nFOUR\n"
    assert result.details["first_changed_line"] == 2 and "2 edits" in result.text


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ([_edit("nope", "x")], "Edit: old_text not found"),
        ([_edit("dup", "x")], "Edit: old_text found 3 times"),
        ([_edit("same", "same")], "identical (no change)"),
        ([_edit("", "x")], "old_text is empty"),
        ([_edit("unique", "u2"), _edit("nope", "x")], "Edit 2: old_text not found"),
        ([_edit("alpha beta", "x"), _edit("beta gamma", "y")], "Edits 1 and 2 overlap"),
        ([_edit("unique", "u2"), _edit("dup", "x")], "Edit 2: old_text found 3 times"),
    ],
)
async def test_edit_errors_name_the_edit_and_reason(
    tmp_path: Path, edits: list, message: str
) -> None:
    target = tmp_path / "f.txt"
    original = "dup dup dup\nsame\nunique\nalpha beta gamma\n"
    target.write_text(original)
    with pytest.raises(ToolError, match=re.escape(message)):
        await run(create_edit_tool(tmp_path), path="f.txt", edits=edits)
    assert target.read_text() == original  # nothing written on failure


async def test_overlapping_occurrences_count_as_ambiguous(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("aaa\n")
    with pytest.raises(ToolError, match="found 2 times"):
        await run(create_edit_tool(tmp_path), path="f.txt", edits=[_edit("aa", "b")])


async def test_missing_file_and_directory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    tool = create_edit_tool(tmp_path)
    with pytest.raises(ToolError, match="File not found: nope.txt"):
        await run(tool, path="nope.txt", edits=[_edit("a", "b")])
    with pytest.raises(ToolError, match="is a directory"):
        await run(tool, path="d", edits=[_edit("a", "b")])


async def test_non_utf8_file_rejected(tmp_path: Path) -> None:
    (tmp_path / "l.txt").write_bytes(b"caf\xe9\n")
    with pytest.raises(ToolError, match="not valid UTF-8"):
        await run(create_edit_tool(tmp_path), path="l.txt", edits=[_edit("caf", "x")])


async def test_crlf_and_bom_round_trip(tmp_path: Path) -> None:
    target = tmp_path / "win.txt"
    target.write_bytes(b"\xef\xbb\xbfline one\r\nline two\r\nline three\r\n")
    # The model sends LF text (what read shows it).
    result = await run(
        create_edit_tool(tmp_path),
        path="win.txt",
        edits=[_edit("line one\nline two", "first\nsecond\nextra")],
    )
    assert target.read_bytes() == b"\xef\xbb\xbffirst\r\nsecond\r\nextra\r\nline three\r\n"
    assert "\r" not in result.details["diff"]


async def test_lf_file_stays_lf_and_mode_kept(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_bytes(b"#!/bin/sh\necho hi\n")
    target.chmod(0o755)
    await run(create_edit_tool(tmp_path), path="run.sh", edits=[_edit("echo hi", "echo bye")])
    assert target.read_bytes() == b"#!/bin/sh\necho bye\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o755


async def test_tolerant_match_quotes_dashes_nbsp_trailing_ws(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("keep\nsay(\u201chello\u201d)   \nit\u2019s a\u00a0test \u2014 ok\t\ntail\n")
    await run(
        create_edit_tool(tmp_path),
        path="t.txt",
        edits=[_edit('say("hello")\nit\'s a test - ok', "replaced")],
    )
    # Only the matched region changes (its trailing whitespace included); the rest is intact.
    assert target.read_text() == "keep\nreplaced\ntail\n"


async def test_tolerant_match_mid_line_and_mixed_line_endings(tmp_path: Path) -> None:
    target = tmp_path / "mixed.txt"
    target.write_bytes(b"a \xe2\x80\x93 b = 1\r\nnext\nlast\n")
    await run(create_edit_tool(tmp_path), path="mixed.txt", edits=[_edit("a - b", "ab")])
    assert target.read_bytes() == b"ab = 1\r\nnext\nlast\n"


async def test_tolerant_match_must_be_unique(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("x \u2013 y\nx \u2014 y\n")
    with pytest.raises(ToolError, match="found 2 times"):
        await run(create_edit_tool(tmp_path), path="t.txt", edits=[_edit("x - y", "z")])


async def test_unicode_path(tmp_path: Path) -> None:
    target = tmp_path / "données" / "résumé 😀.md"
    target.parent.mkdir()
    target.write_text("old\n")
    await run(create_edit_tool(tmp_path), path="données/résumé 😀.md", edits=[_edit("old", "new")])
    assert target.read_text() == "new\n"


async def test_empty_edits_list_is_invalid(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match=r"length >= 1 - at `\$\.edits`"):
        await run(create_edit_tool(tmp_path), path="x", edits=[])
