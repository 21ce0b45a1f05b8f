"""Fixtures: a real git project (the user's own repository) and a shell over it with real tools."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "u",
    "GIT_AUTHOR_EMAIL": "u@example.com",
    "GIT_COMMITTER_NAME": "u",
    "GIT_COMMITTER_EMAIL": "u@example.com",
}


def require_git() -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed (.ci/run installs it)")


def git(cwd: Path, *args: str) -> str:
    import os

    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def tree_bytes(root: Path, besides: Iterable[Path] = ()) -> dict[str, str]:
    """Every file under ``root`` (relative path -> sha256 of its bytes, or the link target),
    except ``besides`` (what a sandbox created in ``.git`` while it runs)."""
    found: dict[str, str] = {}
    skip = set(besides)
    for path in sorted(root.rglob("*")):
        if path in skip and (path.is_file() or (path.is_dir() and not any(path.iterdir()))):
            continue
        rel = str(path.relative_to(root))
        if path.is_symlink():
            found[rel] = "link:" + str(path.readlink())
        elif path.is_file():
            found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            found[rel + "/"] = "dir"
    return found


@pytest.fixture(autouse=True)
def fake_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME in a temp dir (no user git config, skills or themes reach the tests)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The user's project: a real git repository with a commit, a .gitignore and a stash."""
    require_git()
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".gitignore").write_text("build/\n*.log\n")
    (root / "app.py").write_text("def main():\n    return 1\n")
    (root / "README.md").write_text("# demo\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    (root / "README.md").write_text("# demo, changed\n")
    git(root, "stash", "-q")
    (root / "notes.txt").write_text("staged\n")
    git(root, "add", "notes.txt")  # the user's own index has something staged
    (root / "build").mkdir()
    (root / "build" / "out.bin").write_bytes(b"\x00ignored")
    (root / "debug.log").write_text("ignored log\n")
    return root
