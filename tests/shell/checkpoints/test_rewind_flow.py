"""Checkpoints through the shell: real tools change real files (the write/edit tools and bash),
snapshots go into a shadow git repository, and rewinds put the files back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_cli.shell.checkpoints.rewind import NeedsConfirmation, RewindError
from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import reply, text, tool_call
from tests.shell.checkpoints.conftest import tree_bytes
from tests.shell.helpers import make_shell, notices

TOOLS = ["read", "bash", "edit", "write", "ls"]


def write(call: str, path: str, content: str):  # a scripted response
    return reply(tool_call(call, "write", {"path": path, "content": content}))


def bash(call: str, command: str):
    return reply(tool_call(call, "bash", {"command": command}))


def count_snapshots(shell: Any) -> list[str]:
    """The session ids of the snapshots ``shell``'s checkpoints take from now on."""
    taken: list[str] = []
    snapshot_now = shell.checkpoints.snapshot_now

    def counted(session_id: str) -> Any:
        taken.append(session_id)
        return snapshot_now(session_id)

    shell.checkpoints.snapshot_now = counted
    return taken


def checkpoint_kinds(path: Path) -> list[str]:
    entries = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return [e["kind"] for e in entries if e["type"] == "checkpoint"]


async def test_tool_and_bash_changes_are_rewound_and_the_rewind_undone(repo: Path) -> None:
    user_git = tree_bytes(repo / ".git")
    before = tree_bytes(repo)
    shell, _, recorder = make_shell(
        repo,
        write("w1", "app.py", "def main():\n    return 2\n"),
        bash(
            "b1", "echo made by bash > new.txt && rm README.md && mkdir -p pkg && echo x > pkg/m.py"
        ),
        reply(text("done")),
        reply(
            tool_call(
                "e1", "edit", {"path": "app.py", "edits": [{"old_text": "2", "new_text": "3"}]}
            )
        ),
        reply(text("edited")),
        tools=TOOLS,
    )
    await shell.submit("change things")
    await shell.submit("edit again")
    await shell.wait_idle()
    assert (repo / "new.txt").read_text() == "made by bash\n" and not (repo / "README.md").exists()
    assert "return 3" in (repo / "app.py").read_text()
    assert checkpoint_kinds(shell.session.path) == ["turn", "turn", "run_end", "turn", "run_end"]

    points = await shell.checkpoints.points()
    assert [p.text for p in points] == ["change things", "edit again"]
    first, second = points
    assert first.has_code and {f.path for f in first.files} == {
        "app.py",
        "new.txt",
        "README.md",
        "pkg/m.py",
    }
    assert [(f.path, f.added, f.removed) for f in second.files] == [("app.py", 1, 1)]
    assert first.changes() == "4 files +3 -2"

    result = await shell.checkpoints.rewind(first.entry_id)  # code and conversation
    assert result.text == "change things" and result.moved
    assert sorted(result.restored.deleted) == ["new.txt", "pkg/m.py"]
    # Files as they were, ignored ones untouched (what the sandbox created in .git aside).
    assert tree_bytes(repo, besides=shell.sandbox.placeholders) == before
    assert shell.messages == ()  # before the first prompt: nothing left
    assert any(e.reason == "tree" for e in recorder.of_type("session_changed"))

    undone = await shell.checkpoints.undo()
    assert "return 3" in (repo / "app.py").read_text() and (repo / "pkg" / "m.py").is_file()
    assert not (repo / "README.md").exists() and undone.moved
    assert [m.text for m in shell.messages if m.role == "user"] == ["change things", "edit again"]
    # The user's repository never changed (what the sandbox created in it while it runs aside).
    assert tree_bytes(repo / ".git", besides=shell.sandbox.placeholders) == user_git


async def test_code_only_and_conversation_only(repo: Path) -> None:
    shell, _, _ = make_shell(
        repo,
        write("w1", "app.py", "v2\n"),
        reply(text("one")),
        write("w2", "app.py", "v3\n"),
        reply(text("two")),
        tools=TOOLS,
    )
    await shell.submit("first")
    await shell.submit("second")
    points = await shell.checkpoints.points()
    await shell.checkpoints.rewind(points[1].entry_id, conversation=False)
    assert (repo / "app.py").read_text() == "v2\n"
    assert [m.text for m in shell.messages if m.role == "user"] == ["first", "second"]

    await shell.checkpoints.rewind(points[0].entry_id, code=False)
    assert (repo / "app.py").read_text() == "v2\n"  # the code stays
    assert shell.messages == ()


async def test_hand_edits_after_the_point_need_confirmation(repo: Path) -> None:
    shell, _, _ = make_shell(
        repo,
        write("w1", "app.py", "agent\n"),
        reply(text("one")),
        write("w2", "other.py", "agent too\n"),
        reply(text("two")),
        tools=TOOLS,
    )
    await shell.submit("first")
    await shell.wait_idle()  # the run's last snapshot is in (a person types slower than that)
    (repo / "app.py").write_text("agent, then my own fix\n")  # by hand, between two runs
    await shell.submit("second")
    await shell.wait_idle()
    (repo / "mine.txt").write_text("created by hand\n")
    first = (await shell.checkpoints.points())[0]

    plan = await shell.checkpoints.plan(first.entry_id)
    assert plan.by_hand == ["app.py", "mine.txt"]
    assert ("D", "other.py") in plan.changes and ("D", "mine.txt") in plan.changes
    with pytest.raises(NeedsConfirmation, match="app.py, mine.txt"):
        await shell.checkpoints.rewind(first.entry_id)
    assert (repo / "other.py").exists()  # nothing was done

    kept = await shell.checkpoints.rewind(first.entry_id, overwrite=False)
    assert (repo / "app.py").read_text() == "agent, then my own fix\n"
    assert (repo / "mine.txt").exists() and not (repo / "other.py").exists()
    assert kept.restored is not None and "other.py" in kept.restored.deleted

    await shell.checkpoints.undo(overwrite=True)
    overwritten = await shell.checkpoints.rewind(
        (await shell.checkpoints.points())[0].entry_id, overwrite=True
    )
    assert (repo / "app.py").read_text() == "def main():\n    return 1\n"
    assert not (repo / "mine.txt").exists() and overwritten.restored is not None


async def test_read_only_turns_take_no_turn_snapshot(repo: Path) -> None:
    shell, _, _ = make_shell(
        repo,
        reply(tool_call("r1", "read", {"path": "app.py"})),
        reply(tool_call("l1", "ls", {})),
        reply(text("read it")),
        tools=TOOLS,
    )
    taken = count_snapshots(shell)
    await shell.submit("look")
    await shell.wait_idle()
    assert checkpoint_kinds(shell.session.path) == ["run_end"]
    assert len(taken) == 1  # the run's end: no turn took one (git never ran for them)


async def test_a_turn_snapshot_starts_when_a_changing_call_streams(repo: Path) -> None:
    """Not at the turn's start: a read, then a write in the next turn, then an answer take
    one snapshot for the write's turn (recorded before it ran) and one at the run's end."""
    shell, _, _ = make_shell(
        repo,
        reply(tool_call("r1", "read", {"path": "app.py"})),
        write("w1", "app.py", "changed\n"),
        reply(text("done")),
        tools=TOOLS,
    )
    taken = count_snapshots(shell)
    await shell.submit("change it")
    await shell.wait_idle()
    assert checkpoint_kinds(shell.session.path) == ["turn", "run_end"]
    assert len(taken) == 2
    points = await shell.checkpoints.points()
    await shell.checkpoints.rewind(points[0].entry_id, conversation=False)
    assert (repo / "app.py").read_text() == "def main():\n    return 1\n"


async def test_a_slow_snapshot_never_stalls_the_tool(repo: Path) -> None:
    settings = Settings()
    settings.checkpoints.wait_ms = 0
    shell, _, recorder = make_shell(
        repo, write("w1", "app.py", "x\n"), reply(text("ok")), tools=TOOLS, settings=settings
    )
    await shell.submit("go")
    await shell.wait_idle()
    assert (repo / "app.py").read_text() == "x\n"  # the tool ran
    assert any("snapshot took longer than 0 s" in n for n in notices(recorder, "warning"))
    assert "turn" not in checkpoint_kinds(shell.session.path)


async def test_rewind_refuses_unknown_entries_and_checkpoints_off(repo: Path) -> None:
    settings = Settings()
    settings.checkpoints.enabled = False
    shell, _, _ = make_shell(
        repo, write("w1", "app.py", "x\n"), reply(text("ok")), tools=TOOLS, settings=settings
    )
    await shell.submit("go")
    points = await shell.checkpoints.points()
    assert points and not points[0].has_code and points[0].changes() == "no snapshot"
    with pytest.raises(RewindError, match="turned off"):
        await shell.checkpoints.rewind(points[0].entry_id)
    with pytest.raises(RewindError, match="No entry nope"):
        await shell.checkpoints.rewind("nope")
    # The conversation alone can still go back.
    await shell.checkpoints.rewind(points[0].entry_id, code=False)
    assert shell.messages == ()


async def test_two_sessions_in_one_workspace_keep_their_own_index(
    repo: Path, pi_home: Path
) -> None:
    one, _, _ = make_shell(repo, write("w1", "a.txt", "1\n"), reply(text("ok")), tools=TOOLS)
    two, _, _ = make_shell(repo, write("w2", "b.txt", "2\n"), reply(text("ok")), tools=TOOLS)
    await one.submit("one")
    await two.submit("two")
    await one.wait_idle()
    await two.wait_idle()
    indexes = sorted(p.name for p in (pi_home / "checkpoints").glob("*/indexes/*"))
    assert indexes == sorted([one.session.session_id, two.session.session_id])
    refs = sorted(p.name for p in (pi_home / "checkpoints").glob("*/git/refs/pi/sessions/*"))
    assert refs == indexes  # each session's snapshots are kept alive by its own ref
    await one.aclose()
    await two.aclose()


async def test_slash_rewind_lists_and_rewinds_by_number(repo: Path) -> None:
    shell, _, _ = make_shell(repo, write("w1", "app.py", "v2\n"), reply(text("one")), tools=TOOLS)
    await shell.submit("first prompt")
    listed = await shell.submit("/rewind")
    assert (
        listed.action == "pick_rewind"
        and "1. " in listed.output
        and "first prompt" in listed.output
    )
    assert "1 file +1 -2" in listed.output
    done = await shell.submit("/rewind 1 code")
    assert not done.error and "Restored 1 file(s)" in done.output
    assert (repo / "app.py").read_text().startswith("def main")
    bad = await shell.submit("/rewind 7")
    assert bad.error and "No prompt 7" in bad.output
    undone = await shell.submit("/rewind undo")
    assert not undone.error and (repo / "app.py").read_text() == "v2\n"


async def test_a_tree_already_kept_is_not_committed_again(repo: Path) -> None:
    """Each recorded snapshot stays alive through a commit on the session's ref; turns that
    change nothing record the same tree, which the newest commit already holds."""
    shell, _, _ = make_shell(
        repo,
        bash("b1", "pwd > /dev/null"),  # not proven read-only (a redirection): snapshotted
        bash("b2", "ls > /dev/null"),
        reply(text("nothing changed")),
        bash("b3", "echo new > new.txt"),
        reply(text("one file")),
        tools=TOOLS,
    )
    await shell.submit("look around")
    await shell.wait_idle()
    await shell.submit("add a file")
    await shell.wait_idle()
    await shell.checkpoints.aclose()
    git = shell.checkpoints.git
    ref = git.ref(shell.session.session_id)
    commits = git.run("rev-list", ref).decode().split()
    trees = [git.run("rev-parse", f"{c}^{{tree}}").decode().strip() for c in commits]
    kinds = checkpoint_kinds(shell.session.path)
    assert kinds == ["turn", "turn", "run_end", "turn", "run_end"]
    assert len(commits) == 2 and len(set(trees)) == 2  # the start's tree, then new.txt's
    recorded = [
        json.loads(line)["tree"]
        for line in shell.session.path.read_text().splitlines()[1:]
        if json.loads(line)["type"] == "checkpoint"
    ]
    assert set(recorded) == set(trees)  # every recorded tree is kept by a commit


async def test_a_bash_command_proved_read_only_waits_for_no_snapshot(repo: Path) -> None:
    """The permissions' classifier proves ``ls``/``cat`` read-only: no turn checkpoint before
    them (a snapshot started while the call streamed is not waited for). A command it cannot
    prove (a redirection) still gets one."""
    shell, _, _ = make_shell(
        repo,
        bash("b1", "ls -la && cat app.py"),
        reply(text("looked")),
        bash("b2", "echo new > new.txt"),
        reply(text("wrote")),
        tools=TOOLS,
    )
    await shell.submit("look")
    await shell.wait_idle()
    assert checkpoint_kinds(shell.session.path) == ["run_end"]
    await shell.submit("write")
    await shell.wait_idle()
    assert checkpoint_kinds(shell.session.path) == ["run_end", "turn", "run_end"]
    points = await shell.checkpoints.points()
    await shell.checkpoints.rewind(points[-1].entry_id, conversation=False)
    assert not (repo / "new.txt").exists()
