"""Branching in the same file (/tree, navigate_to) and /fork into a new session file."""

from __future__ import annotations

import json
from pathlib import Path

from pi_cli.shell.session.store import SessionStore
from tests.agent_core.scripted_stream import reply, text
from tests.shell.helpers import make_shell


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_navigate_and_continue_in_the_same_file(project: Path) -> None:
    shell, stream, recorder = make_shell(
        project, reply(text("A1")), reply(text("A2")), reply(text("B2"))
    )
    await shell.submit("q1")
    await shell.submit("q2")
    tree = shell.tree_entries()
    assert [e.preview for e in tree] == ["user: q1", "assistant: A1", "user: q2", "assistant: A2"]
    assert tree[-1].is_leaf and all(e.on_path and e.depth == 0 for e in tree)

    # Selecting a user message: leaf at its parent, its text back for the editor.
    q2 = tree[2]
    assert shell.navigate_to(q2.id) == "q2"
    q2_parent = shell.session.entries[q2.id].parent_id  # A1, or the snapshot taken after its run
    assert shell.session.leaf_id == q2_parent
    assert [e.id for e in shell.tree_entries() if e.is_leaf] == [tree[1].id]
    assert [m.text for m in shell.agent.state.messages] == ["q1", "A1"]
    assert recorder.of_type("session_changed")[-1].reason == "tree"

    await shell.submit("q2 edited")
    assert stream.user_texts(2) == ["q1", "q2 edited"]
    path = shell.session.path
    entries = [e for e in lines(path)[1:] if e["type"] == "message"]
    assert len(entries) == 6  # both branches in one file
    new_user = entries[4]
    assert (
        new_user["parentId"] == q2_parent
        and new_user["message"]["content"][0]["text"] == "q2 edited"
    )

    tree = shell.tree_entries()
    by_preview = {e.preview: e for e in tree}
    assert by_preview["user: q2"].depth == 1 and by_preview["user: q2 edited"].depth == 1
    assert not by_preview["assistant: A2"].on_path and by_preview["assistant: B2"].is_leaf
    # Resume picks up the newest branch.
    assert [m.text for m in SessionStore.open(path).build_context()] == [
        "q1",
        "A1",
        "q2 edited",
        "B2",
    ]

    # Selecting a non-user entry makes it the leaf.
    assert shell.navigate_to(by_preview["assistant: A2"].id) is None
    assert [m.text for m in shell.agent.state.messages] == ["q1", "A1", "q2", "A2"]


async def test_tree_command_lists_and_moves(project: Path) -> None:
    shell, _, _ = make_shell(project, reply(text("A1")))
    await shell.submit("hello")
    result = await shell.submit("/tree")
    assert result.action == "pick_tree" and "user: hello" in result.output and "* " in result.output
    first = shell.tree_entries()[0].id
    moved = await shell.submit(f"/tree {first}")
    assert "Edit and resend: hello" in moved.output and shell.agent.state.messages == []
    bad = await shell.submit("/tree nope")
    assert bad.error and "No entry nope" in bad.output


async def test_fork_copies_the_path_into_a_new_file(project: Path) -> None:
    shell, stream, recorder = make_shell(
        project, reply(text("A1")), reply(text("A2")), reply(text("F2"))
    )
    await shell.submit("q1")
    await shell.submit("q2")
    await shell.wait_idle()  # the run's last snapshot is written after it
    old_path = shell.session.path
    old_text = old_path.read_text()
    a1 = shell.tree_entries()[1].id

    new_path = shell.fork(a1)
    assert new_path != old_path and new_path.parent == old_path.parent
    header, *entries = lines(new_path)
    assert header["type"] == "session" and header["parentSession"] == str(old_path)
    assert [e["type"] for e in entries] == ["message", "message"]
    assert [e["message"]["content"][0]["text"] for e in entries] == ["q1", "A1"]
    assert shell.session.path == new_path and [m.text for m in shell.agent.state.messages] == [
        "q1",
        "A1",
    ]
    assert recorder.of_type("session_changed")[-1].reason == "fork"

    await shell.submit("forked question")
    assert stream.user_texts(2) == ["q1", "forked question"]
    assert old_path.read_text() == old_text  # the original is untouched
    await shell.wait_idle()
    assert [e["type"] for e in lines(new_path)[1:]] == ["message"] * 4 + ["checkpoint"]

    result = await shell.submit("/fork")
    assert result.output.startswith("Forked to ") and shell.session.path != new_path


async def test_fork_refused_without_a_session_file(project: Path) -> None:
    shell, _, _ = make_shell(project, reply(text("A1")), persist=False)
    await shell.submit("q1")
    result = await shell.submit("/fork")
    assert result.error and "not saved" in result.output
