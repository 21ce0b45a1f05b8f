"""A git repository with seeded bugs, and ``pi review`` run against the fake provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.provider_server import FakeProviderServer

REPO = Path(__file__).resolve().parents[3]
RunPi = Callable[..., subprocess.CompletedProcess[str]]

BASE_FILES = {
    "app/stats.py": "def total(items):\n    result = 0\n    for i in range(len(items)):\n        result += items[i]\n    return result\n",
    "app/db.py": 'def find_user(cursor, name):\n    cursor.execute("SELECT * FROM users WHERE name = ?", (name,))\n    return cursor.fetchone()\n',
    "app/files.py": "def read_config(path):\n    with open(path) as handle:\n        return handle.read()\n",
    "README.md": "# demo\n",
}
BUGGY_FILES = {
    # line 3: an off-by-one (reads one past the end)
    "app/stats.py": "def total(items):\n    result = 0\n    for i in range(len(items) + 1):\n        result += items[i]\n    return result\n",
    # line 2: SQL injection
    "app/db.py": 'def find_user(cursor, name):\n    cursor.execute("SELECT * FROM users WHERE name = \'" + name + "\'")\n    return cursor.fetchone()\n',
    # lines 2-3: a file handle never closed
    "app/files.py": "def read_config(path):\n    handle = open(path)\n    data = handle.read()\n    return data\n",
}


def require_git() -> None:
    """Skip when git is missing (.ci/run installs it)."""
    import shutil

    if shutil.which("git") is None:
        pytest.skip("git is not installed (.ci/run installs it)")


def git(cwd: Path, *args: str) -> str:
    """Run git quietly in ``cwd``; its stdout."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
    }  # fmt: skip
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def write(root: Path, files: dict[str, str | bytes]) -> None:
    """Write ``files`` (text or bytes) under ``root``."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))


def commit(root: Path, message: str) -> str:
    """Commit everything; the new commit's id."""
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository on ``main``: a clean first commit, then a commit that seeds three bugs."""
    require_git()
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(root, dict(BASE_FILES))
    commit(root, "clean start")
    write(root, dict(BUGGY_FILES))
    commit(root, "seed bugs")
    return root


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    """A started fake provider."""
    with FakeProviderServer() as fake:
        yield fake


@pytest.fixture
def run_pi(repo: Path, pi_home: Path) -> RunPi:
    """``pi`` as a subprocess in the repository."""

    def run(
        *args: str, cwd: Path | None = None, timeout: float = 60, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        full = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        full.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
        full.update({"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"})
        full.update(env or {})
        return subprocess.run(
            [sys.executable, "-m", "pi_cli.cli", *args],
            cwd=cwd or repo,
            env=full,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    return run


def fake_args(server: FakeProviderServer, *extra: str) -> list[str]:
    """``pi review`` flags pointing at the fake server."""
    return [
        "--model",
        "openai/fake-model",
        "--api-base",
        server.openai_base_url,
        "--api-key",
        "k",
        *extra,
    ]


def answer(*findings: dict[str, Any], summary: str = "Reviewed.") -> str:
    """A reviewer's JSON answer."""
    return json.dumps({"summary": summary, "findings": list(findings)})


def finding(
    file: str, start: int, end: int, severity: str = "high", title: str = "Bug", **more: Any
) -> dict[str, Any]:
    """One finding as the reviewer writes it."""
    return {"file": file, "startLine": start, "endLine": end, "severity": severity, "title": title,
            "explanation": more.pop("explanation", "Because."), **more}  # fmt: skip


def user_texts(body: dict[str, Any]) -> list[str]:
    """The user messages' texts of an OpenAI request."""
    out = []
    for message in body["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(
                content
                if isinstance(content, str)
                else " ".join(p.get("text", "") for p in content)
            )
    return out
