"""``pi -w`` end to end (a session in a fresh worktree: create, work, keep or remove on exit),
``pi worktree list|remove``, and the hostile cases, on the fake provider."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.worktrees.test_worktrees import git, repo  # noqa: F401 - the fixture

REPO = Path(__file__).resolve().parents[2]


def pi(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_HOME": str(home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    return subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def fake(server: FakeProviderServer) -> list[str]:
    return ["--model", "openai/fake-model", "--api-base", server.openai_base_url, "--api-key", "k"]


def test_a_session_in_a_worktree_is_kept_with_changes_and_removed_without(
    repo: Path,  # noqa: F811
    pi_home: Path,
) -> None:
    with FakeProviderServer() as server:
        server.add(
            Turn(tool_calls=[ToolCallSpec("write", {"path": "a.txt", "content": "wt\n"}, id="w")]),
            Turn(text="Wrote it."),
            Turn(text="Nothing to do."),
        )
        done = pi(repo, pi_home, "-w", "feat", *fake(server), "-p", "change a.txt")
        assert done.returncode == 0, done.stderr
        tree = repo.parent / "repo-feat"
        assert (tree / "a.txt").read_text() == "wt\n"
        assert (repo / "a.txt").read_text() == "two\n"  # the main checkout is untouched
        assert "working in worktree feat" in done.stderr
        assert "kept worktree feat (1 uncommitted change)" in done.stderr
        listed = pi(repo, pi_home, "worktree", "list")
        assert listed.returncode == 0 and listed.stdout.startswith("feat  worktree-feat  1 unc")
        refused = pi(repo, pi_home, "worktree", "remove", "feat")
        assert refused.returncode == 1 and "--force" in refused.stderr and tree.exists()
        forced = pi(repo, pi_home, "worktree", "remove", "feat", "--force")
        assert forced.returncode == 0 and not tree.exists()

        clean = pi(repo, pi_home, "--worktree=tidy", "--base", "HEAD~1", *fake(server), "-p", "hi")
        assert clean.returncode == 0, clean.stderr
        assert "removed worktree tidy (no changes)" in clean.stderr
        assert not (repo.parent / "repo-tidy").exists()
        assert "worktree-tidy" not in git(repo, "branch")


def test_hostile_worktree_invocations(repo: Path, pi_home: Path, tmp_path: Path) -> None:  # noqa: F811
    git(repo, "branch", "worktree-taken")
    taken = pi(repo, pi_home, "-w", "taken", "-p", "x")
    assert taken.returncode == 2 and "Branch 'worktree-taken' exists already" in taken.stderr
    bad = pi(repo, pi_home, "--worktree=../up", "-p", "x")
    assert bad.returncode == 2 and "Invalid worktree name" in bad.stderr
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    outside = pi(elsewhere, pi_home, "-w", "x", "-p", "x")
    assert outside.returncode == 2 and "not in a git repository" in outside.stderr
    assert not (repo.parent / "up").exists()
    assert pi(repo, pi_home, "worktree", "list").stdout.startswith("No worktrees")


def test_git_commit_works_from_a_sandboxed_worktree_session_and_hooks_stay_read_only(
    repo: Path,  # noqa: F811
    pi_home: Path,
) -> None:
    import pytest

    from tools.sandbox import _bwrap

    if not _bwrap.probe().ok:
        pytest.skip(f"no sandbox here: {_bwrap.probe().reason}")
    command = (
        "echo 3 > a.txt && git commit -qam third && echo committed; "
        "touch ../repo/.git/hooks/evil; echo hooks=$?; echo x >> ../repo/.git/config; echo config=$?"
    )
    config = (repo / ".git" / "config").read_text()
    with FakeProviderServer() as server:
        server.add(
            Turn(tool_calls=[ToolCallSpec("bash", {"command": command}, id="b")]),
            Turn(text="Committed."),
        )
        done = pi(repo, pi_home, "-w", "sb", *fake(server), "--permission-mode", "auto", "-p", "go")
        result = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"][0]["content"]
    assert done.returncode == 0, done.stderr
    assert "committed" in result and "hooks=1" in result and "config=1" in result
    assert "Read-only file system" in result
    assert git(repo, "log", "--format=%s", "worktree-sb") == "third\nsecond\nfirst\n"
    assert not (repo / ".git" / "hooks" / "evil").exists()
    assert (repo / ".git" / "config").read_text() == config
    assert "kept worktree sb (1 unpushed commit)" in done.stderr
