"""Checkpoints and rewind in a session run inside one of pi's git worktrees (``pi -w``): the
worktree's ``.git`` is a file pointing into the main repository; snapshots and rewinds work
on the worktree's files and leave the main checkout alone."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.worktrees import create_worktree
from tests.agent_core.scripted_stream import reply, text, tool_call
from tests.shell.checkpoints.conftest import tree_bytes
from tests.shell.helpers import make_shell


async def test_rewind_inside_a_worktree(repo: Path) -> None:
    tree = create_worktree(repo, "rw")
    assert (tree.path / ".git").is_file()
    main_before = _outside_git(tree_bytes(repo))
    before = tree_bytes(tree.path)
    shell, _, _ = make_shell(
        tree.path,
        reply(tool_call("w1", "write", {"path": "app.py", "content": "changed\n"})),
        reply(tool_call("b1", "bash", {"command": "echo new > made.txt"})),
        reply(text("done")),
        tools=["read", "bash", "write"],
    )
    await shell.submit("change the worktree")
    await shell.wait_idle()
    assert (tree.path / "app.py").read_text() == "changed\n" and (tree.path / "made.txt").exists()
    points = await shell.checkpoints.points()
    assert [p.text for p in points] == ["change the worktree"]
    assert {f.path for f in points[0].files} == {"app.py", "made.txt"}
    await shell.checkpoints.rewind(points[0].entry_id)
    assert tree_bytes(tree.path, besides=shell.sandbox.placeholders) == before
    assert _outside_git(tree_bytes(repo)) == main_before  # the main checkout's files
    await shell.aclose()


def _outside_git(files: dict[str, str]) -> dict[str, str]:
    return {path: digest for path, digest in files.items() if not path.startswith(".git/")}
