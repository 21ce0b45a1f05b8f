"""pi's git worktrees on real repositories: create from a base, list, refuse to lose work,
hostile names, an existing branch, no repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pi_cli.shell.worktrees import (
    WorktreeError,
    create_worktree,
    find_worktree,
    list_worktrees,
    remove_worktree,
    repo_root,
)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "T")
    (root / "a.txt").write_text("one\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-qm", "first")
    (root / "a.txt").write_text("two\n")
    git(root, "commit", "-qam", "second")
    return root


def test_create_from_a_base_list_and_remove(repo: Path) -> None:
    tree = create_worktree(repo / ".", "feature", "HEAD~1")
    assert tree.path == repo.parent / "repo-feature"
    assert tree.branch == "worktree-feature" and tree.clean
    assert (tree.path / "a.txt").read_text() == "one\n"  # the base, not HEAD
    assert git(repo, "status", "--porcelain") == ""  # the main checkout does not see it
    assert repo_root(tree.path) == repo
    assert [t.name for t in list_worktrees(repo)] == ["feature"]
    removed = remove_worktree(repo, "feature")
    assert removed.name == "feature" and not tree.path.exists()
    assert "worktree-feature" not in git(repo, "branch")
    assert list_worktrees(repo) == []


def test_removal_refuses_to_lose_changes_or_commits(repo: Path) -> None:
    tree = create_worktree(repo, "work")
    (tree.path / "a.txt").write_text("changed\n")
    dirty = find_worktree(repo, "work")
    assert dirty.dirty == [" M a.txt"] and dirty.unpushed == 0
    with pytest.raises(WorktreeError, match="1 uncommitted change"):
        remove_worktree(repo, "work")
    git(tree.path, "commit", "-qam", "in the worktree")
    committed = find_worktree(repo, "work")
    assert committed.clean is False and committed.unpushed == 1 and not committed.dirty
    with pytest.raises(WorktreeError, match="1 unpushed commit"):
        remove_worktree(repo, "work")
    assert tree.path.exists()
    remove_worktree(repo, "work", force=True)
    assert not tree.path.exists() and "worktree-work" not in git(repo, "branch")


@pytest.mark.parametrize(
    "name", ["../escape", "-rf", "a/b", "..", ".hidden", "x.lock", "", "a" * 64, "sp ace", "é"]
)
def test_hostile_names_are_refused(repo: Path, name: str) -> None:
    with pytest.raises(WorktreeError, match="Invalid worktree name"):
        create_worktree(repo, name)
    assert not (repo.parent / "escape").exists() and list_worktrees(repo) == []
    assert sorted(p.name for p in repo.parent.iterdir()) == ["repo"]


def test_an_existing_branch_or_worktree_or_bad_base_is_refused(repo: Path) -> None:
    git(repo, "branch", "worktree-taken")
    with pytest.raises(WorktreeError, match="Branch 'worktree-taken' exists already"):
        create_worktree(repo, "taken")
    create_worktree(repo, "once")
    with pytest.raises(WorktreeError, match="exists already"):
        create_worktree(repo, "once")
    for base in ("no-such-ref", "--output=/tmp/x"):
        with pytest.raises(WorktreeError, match="no commit|Invalid base"):
            create_worktree(repo, "based", base)
    assert [t.name for t in list_worktrees(repo)] == ["once"]


def test_not_a_git_repository(tmp_path: Path) -> None:
    with pytest.raises(WorktreeError, match="not in a git repository"):
        create_worktree(tmp_path, "x")
    with pytest.raises(WorktreeError, match="not in a git repository"):
        list_worktrees(tmp_path)
