"""The rename tool against a fake server answering any edit, hostile ones too: off unless the
user turns it on; the permission engine decides on every file it changes (with the diff as the
approval's preview); nothing is written when an edit is malformed, reaches outside the
workspace unapproved, or a file changed after the rename was planned. Applying text edits:
CRLF, byte order marks, UTF-16 columns, insertions at one place, the end of a file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pi_cli.shell.coding_agent import CodingAgent
from pi_cli.shell.config.layers import Layer, gate
from pi_cli.shell.events import PermissionRequested
from pi_cli.shell.lsp.workspace_edit import EditRefused, TextEdit, apply, decode, text_edits
from tests.agent_core.scripted_stream import Recorder, ScriptedStream, reply, text, tool_call
from tests.shell.lsp.conftest import fake, lsp_shell, results

A = "x = 1\nprint(x)\n"
B = "from a import x\ny = x + 1\n"


def _edit(uri: str, *spans: tuple[int, int, int, int]) -> dict[str, Any]:
    edits = [
        {
            "range": {
                "start": {"line": sl, "character": sc},
                "end": {"line": el, "character": ec},
            },
            "newText": "NEW",
        }
        for sl, sc, el, ec in spans
    ]
    return {"textDocument": {"uri": uri, "version": None}, "edits": edits}


RENAME_X = {
    "documentChanges": [
        _edit("ROOT/a.fk", (0, 0, 0, 1), (1, 6, 1, 7)),
        _edit("ROOT/b.fk", (0, 14, 0, 15), (1, 4, 1, 5)),
    ]
}


def _rename(call_id: str, new_name: str = "count") -> object:
    args = {"path": "a.fk", "line": 1, "symbol": "x", "new_name": new_name}
    return tool_call(call_id, "lsp_rename", args)


async def _run(
    work: Path,
    answer: Any,
    *calls: object,
    lsp: dict[str, Any] | None = None,
    on_event: Any = None,
    **options: Any,
) -> tuple[dict[str, str], Recorder, CodingAgent]:
    """Read a.fk (the server starts), then one turn per call; the results' texts."""
    (work / "a.fk").write_text(A)
    (work / "b.fk").write_text(B)
    entry = fake(env={"FAKE_LSP_RENAME": json.dumps(answer)})
    stream = ScriptedStream(
        reply(tool_call("r1", "read", {"path": "a.fk"})),
        reply(text("read it")),
        *[reply(call) for call in calls],
        reply(text("done")),
    )
    shell = lsp_shell(
        work, stream, {"servers": {"fake": entry}, "rename": True, **(lsp or {})}, **options
    )
    recorder = Recorder()
    shell.subscribe(recorder)
    if on_event is not None:
        shell.subscribe(lambda event: on_event(shell, event))
    try:
        await shell.submit("read")
        await shell.lsp.started.idle()  # type: ignore[union-attr]  # the server is ready
        await shell.submit("go")
    finally:
        await shell.aclose()
    return {k: v.result.text for k, v in results(recorder).items()}, recorder, shell


async def test_the_rename_tool_is_off_unless_the_user_turns_it_on(tmp_path: Path) -> None:
    found, _, _ = await _run(tmp_path, RENAME_X, _rename("n1"), lsp={"rename": False})
    assert "Tool lsp_rename not found" in found["n1"]
    assert (tmp_path / "a.fk").read_text() == A


async def test_a_rename_changes_every_file_and_reports_their_diagnostics(tmp_path: Path) -> None:
    answer = {"documentChanges": [_edit("ROOT/a.fk", (0, 0, 0, 1))]}
    answer["documentChanges"][0]["edits"][0]["newText"] = "BAD"
    answer["documentChanges"].append(RENAME_X["documentChanges"][1])
    found, _, shell = await _run(tmp_path, answer, _rename("n1"))
    assert found["n1"].startswith(
        "Renamed x to count: 3 changes in 2 files:\n  a.fk (1)\n  b.fk (2)"
    )
    assert "a.fk:1:1: error: bad thing" in found["n1"]  # the diagnostics of the changed files
    assert (tmp_path / "a.fk").read_text() == "BAD = 1\nprint(x)\n"
    assert (tmp_path / "b.fk").read_text() == "from a import count\ny = count + 1\n"
    assert [t.name for t in shell.tools if t.name.startswith("lsp")] == ["lsp", "lsp_rename"]


async def test_the_approval_shows_the_diff_of_every_file_and_a_denial_writes_nothing(
    tmp_path: Path,
) -> None:
    asked: list[PermissionRequested] = []

    def answer(shell: CodingAgent, event: object) -> None:
        if isinstance(event, PermissionRequested):
            asked.append(event)
            shell.answer(event.id, "allow_once" if len(asked) == 2 else "deny")

    found, _, _ = await _run(
        tmp_path,
        RENAME_X,
        _rename("n1"),
        _rename("n2"),
        on_event=answer,
        approvals="interactive",
        permission_mode="default",
    )
    assert found["n1"] == "denied by the user"
    preview = asked[0].preview
    assert preview.startswith("rename x -> count (fake): 2 files\n--- a/a.fk\n+++ b/a.fk\n")
    assert "-x = 1\n-print(x)\n+count = 1\n+print(count)\n" in preview
    assert "+from a import count\n+y = count + 1\n" in preview
    assert asked[0].reason == "edits need approval in this mode"
    assert found["n2"].startswith("Renamed x to count: 4 changes in 2 files:")
    assert (tmp_path / "b.fk").read_text() == "from a import count\ny = count + 1\n"


async def test_a_file_changed_after_the_rename_was_planned_stops_it(tmp_path: Path) -> None:
    def meddle(shell: CodingAgent, event: object) -> None:
        if isinstance(event, PermissionRequested):  # the user edits b.fk, then approves
            (tmp_path / "b.fk").write_text("from a import x\ny = x + 2\n")
            shell.answer(event.id, "allow_once")

    found, _, _ = await _run(
        tmp_path,
        RENAME_X,
        _rename("n1"),
        on_event=meddle,
        approvals="interactive",
        permission_mode="default",
    )
    assert "nothing was renamed: b.fk changed since the rename was planned" in found["n1"]
    assert (tmp_path / "a.fk").read_text() == A  # all or nothing


async def test_an_edit_outside_the_workspace_asks(tmp_path: Path) -> None:
    work, outside = tmp_path / "work", tmp_path / "outside.fk"
    work.mkdir()
    outside.write_text("x\n")
    answer = {"changes": {"ROOT/a.fk": [], outside.as_uri(): _edit("", (0, 0, 0, 1))["edits"]}}
    found, _, _ = await _run(work, answer, _rename("n1"))  # one-shot: nobody to ask
    assert "needs the user's approval" in found["n1"] and f"{outside}, outside" in found["n1"]
    assert outside.read_text() == "x\n"


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (None, "cannot be renamed (no edit)"),
        ({"documentChanges": [{"kind": "create", "uri": "ROOT/c.fk"}]}, "would create a file"),
        ({"changes": {"https://example.com/a.fk": []}}, "not a local file"),
        ({"changes": {"ROOT/a.fk": [{"range": {}, "newText": "y"}]}}, "without a range"),
        ({"documentChanges": [_edit("ROOT/a.fk", (0, 0, 0, 3), (0, 2, 0, 4))]}, "overlap"),
        ({"documentChanges": [_edit("ROOT/a.fk", (9, 0, 9, 1))]}, "past its end"),
        ({"documentChanges": [_edit("ROOT/a.fk", (-1, 0, 0, 1))]}, "invalid position"),
        ({"documentChanges": [_edit("ROOT/nothere.fk", (0, 0, 0, 1))]}, "cannot read"),
        ({"changes": {}}, "changes nothing"),
        ({"changes": {"ROOT/a.fk": "all of it"}}, "no list of changes"),
    ],
)
async def test_a_malformed_or_hostile_edit_writes_nothing(
    tmp_path: Path, answer: Any, why: str
) -> None:
    found, _, _ = await _run(tmp_path, answer, _rename("n1"))
    assert found["n1"].startswith("lsp_rename: ") and why in found["n1"], found["n1"]
    assert (tmp_path / "a.fk").read_text() == A and (tmp_path / "b.fk").read_text() == B


async def test_a_fifo_the_edit_names_is_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.fk")
    answer = {"documentChanges": [_edit("ROOT/pipe.fk", (0, 0, 0, 1))]}
    found, _, _ = await _run(tmp_path, answer, _rename("n1"))
    assert "pipe.fk is not a regular file" in found["n1"]


async def test_a_name_that_is_not_one_identifier_is_refused(tmp_path: Path) -> None:
    found, _, _ = await _run(tmp_path, RENAME_X, _rename("n1", "two\nlines"), _rename("n2", ""))
    assert "new_name must be one identifier" in found["n1"]
    assert "Invalid arguments for tool lsp_rename" in found["n2"]
    assert (tmp_path / "a.fk").read_text() == A


def test_an_untrusted_project_cannot_turn_rename_on(tmp_path: Path) -> None:
    layer = Layer(tmp_path / ".pi" / "settings.json", "project", "pi", {"lsp": {"rename": True}})
    gated, ignored = gate(layer, trusted=False)
    assert gated.data == {} and ignored == [f"lsp.rename true in {layer.label}"]
    off = Layer(tmp_path / ".pi" / "settings.json", "project", "pi", {"lsp": {"rename": False}})
    assert gate(off, trusted=False)[0].data == {"lsp": {"rename": False}}


# ---------------------------------------------------------------------------- applying edits


def _text_edit(sl: int, sc: int, el: int, ec: int, new: str) -> TextEdit:
    return TextEdit((sl, sc), (el, ec), new)


def test_edits_keep_crlf_and_count_utf16_columns() -> None:
    text = "a = '😀'; b = 1\r\nprint(b)\r\n"
    edits = [_text_edit(0, 10, 0, 11, "count"), _text_edit(1, 6, 1, 7, "count")]
    assert apply(text, edits, "utf-16", Path("f")) == "a = '😀'; count = 1\r\nprint(count)\r\n"
    utf8 = [_text_edit(0, 12, 0, 13, "c")]  # the emoji is 4 UTF-8 bytes
    assert apply(text, utf8, "utf-8", Path("f")).startswith("a = '😀'; c = 1")


def test_insertions_at_one_place_keep_their_order_and_the_end_is_reachable() -> None:
    edits = [_text_edit(0, 0, 0, 0, "a"), _text_edit(0, 0, 0, 0, "b"), _text_edit(1, 0, 1, 0, "!")]
    assert apply("x\n", edits, "utf-16", Path("f")) == "abx\n!"
    past = [_text_edit(0, 99, 0, 99, ";")]  # a column past the line's end means its end
    assert apply("x\ny\n", past, "utf-16", Path("f")) == "x;\ny\n"
    with pytest.raises(EditRefused, match="past its end"):
        apply("x\n", [_text_edit(3, 0, 3, 0, "!")], "utf-16", Path("f"))


def test_a_byte_order_mark_is_kept_and_other_encodings_are_refused() -> None:
    assert decode("\ufeffx = 1\n".encode(), Path("f")) == ("\ufeff", "x = 1\n")
    with pytest.raises(EditRefused, match="not UTF-8 text"):
        decode(b"x = '\xff'\n", Path("f"))


def test_both_shapes_of_a_workspace_edit_and_one_spelling_per_file(tmp_path: Path) -> None:
    uri = (tmp_path / "a.fk").as_uri()
    edit = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}
    changes = {uri: [{**edit, "newText": "1"}], uri.replace("/a.fk", "/./a.fk"): []}
    assert list(text_edits({"changes": changes})) == [tmp_path / "a.fk"]
    documents = {
        "documentChanges": [{"textDocument": {"uri": uri}, "edits": [{**edit, "newText": "2"}]}]
    }
    both = {**documents, "changes": changes}  # documentChanges win
    assert text_edits(both)[tmp_path / "a.fk"][0].new_text == "2"
    with pytest.raises(EditRefused, match="more than"):
        text_edits({"changes": {uri: [{**edit, "newText": "x"}] * 20_001}})
