"""``pi -w`` in a real terminal: leaving a worktree with changes asks ``Keep it? [Y/n/remove]``;
Enter keeps it, ``n`` removes it and its branch (the plain REPL and the TUI)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.worktrees.test_worktrees import git, repo  # noqa: F401 - the fixture
from tests.tui.test_approval_tmux import _tmux, _wait_for

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(150),
]
PI = Path(sys.executable).parent / "pi"


@pytest.mark.parametrize(
    ("ui", "answer", "kept"),
    [("plain", "", True), ("plain", "n", False), ("tui", "remove", False)],
)
def test_leaving_a_changed_worktree_asks_whether_to_keep_it(
    repo: Path,  # noqa: F811
    tmp_path: Path,
    ui: str,
    answer: str,
    kept: bool,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    session = f"pi-wt-{uuid.uuid4().hex[:8]}"
    write = ToolCallSpec("write", {"path": "a.txt", "content": "wt\n"}, id="w")
    with FakeProviderServer([Turn(tool_calls=[write]), Turn(text="Wrote it.")]) as server:
        command = (
            f"cd {repo} && env PI_HOME={home} PI_NO_LOCAL_PROBE=1 {PI} -w feat "
            f"--model openai/fake --api-base {server.openai_base_url} --api-key x "
            f"--no-session --permission-mode bypassPermissions {'--plain' if ui == 'plain' else ''}"
            "; echo PI-EXITED-$?; sleep 30"
        )
        _tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", command)
        try:

            def capture() -> str:
                return _tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", session)

            _wait_for(capture, "Esc" if ui == "plain" else "interactive coding agent")
            _tmux("send-keys", "-t", session, "-l", "change a.txt")
            _tmux("send-keys", "-t", session, "Enter")
            _wait_for(capture, "Wrote it.")
            _tmux("send-keys", "-t", session, "C-d" if ui == "plain" else "C-q")
            _wait_for(capture, "Keep it? [Y/n/remove]")
            if answer:
                _tmux("send-keys", "-t", session, "-l", answer)
            _tmux("send-keys", "-t", session, "Enter")
            screen = " ".join(_wait_for(capture, "PI-EXITED-0").split())
        finally:
            subprocess.run(
                ["tmux", "kill-session", "-t", session], capture_output=True, check=False
            )
    tree = repo.parent / "repo-feat"
    assert "worktree feat has 1 uncommitted change" in screen, screen
    if kept:
        assert "kept worktree feat (1 uncommitted change)" in screen, screen
        assert (tree / "a.txt").read_text() == "wt\n"
        assert "worktree-feat" in git(repo, "branch")
    else:
        assert "removed worktree feat and branch worktree-feat" in screen, screen
        assert not tree.exists() and "worktree-feat" not in git(repo, "branch")
    assert (repo / "a.txt").read_text() == "two\n"  # the main checkout never changed
