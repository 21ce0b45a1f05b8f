"""Marketplaces served from local git repositories made from real ones (../shared/fixtures/i25:
wshobson/agents' claude-code-workflows, MIT; anthropics/claude-plugins-official, Apache-2.0)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.fakes.home import fake_home, project
from tests.shared_fixtures import shared

__all__ = ["fake_home", "project"]

WSHOBSON = shared("i25/wshobson-agents")
OFFICIAL = shared("i25/claude-plugins-official/plugins/explanatory-output-style")
needs_fixtures = pytest.mark.skipif(
    not WSHOBSON.is_dir(), reason="../shared/fixtures/i25 is not available"
)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=T", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def copy_tree(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest)
    for path in [dest, *dest.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # the shared copy is read-only
    return dest


def git_repo(folder: Path) -> Path:
    """Commit ``folder`` and serve it as a bare repository beside it; the bare repo's path."""
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "import")
    bare = folder.with_name(folder.name + ".git")
    git(folder.parent, "clone", "-q", "--bare", str(folder), str(bare))
    return bare


@pytest.fixture
def market_repo(tmp_path: Path) -> Path:
    """claude-code-workflows (two real plugins) as a bare git repository."""
    if not WSHOBSON.is_dir():
        pytest.skip("../shared/fixtures/i25 is not available")
    return git_repo(copy_tree(WSHOBSON, tmp_path / "agents"))
