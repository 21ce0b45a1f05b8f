"""The sandbox with the permission engine, through the real ``pi``: in the ``auto`` mode a
command runs without asking because the sandbox contains it; ``sandbox: false`` always asks;
yolo runs outside unless the sandbox is required; ``--add-dir`` is writable inside."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import ToolCallSpec, Turn
from tests.fakes.provider_server import FakeProviderServer

REPO = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.usefixtures("bwrap")


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as fake:
        yield fake


def pi(
    server: FakeProviderServer, cwd: Path, pi_home: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    env.pop("PI_SANDBOX_MODE", None)
    base = ["--model", "openai/fake", "--api-base", server.openai_base_url, "--api-key", "x"]
    return subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", *base, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def bash(command: str, **extra: object) -> Turn:
    return Turn(tool_calls=[ToolCallSpec("bash", {"command": command, **extra}, id="c1")])


def result_text(server: FakeProviderServer) -> str:
    """What the model was told about its bash call (the tool result in the next request)."""
    message = server.requests[-1]["messages"][-1]
    content = message["content"]
    return content if isinstance(content, str) else json.dumps(content)


def test_auto_mode_runs_inside_the_sandbox_without_asking(
    server: FakeProviderServer, tmp_path: Path, pi_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    server.add(bash("touch made && echo $PI_SANDBOX"), Turn(text="done"))
    done = pi(server, project, pi_home, "-p", "make a file")
    assert done.returncode == 0, done.stderr
    assert (project / "made").exists() and "1" in result_text(server)  # ran, inside


def test_sandbox_false_always_asks(
    server: FakeProviderServer, tmp_path: Path, pi_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    server.add(bash("touch outside-made", sandbox=False), Turn(text="done"))
    done = pi(server, project, pi_home, "-p", "make a file outside")
    assert done.returncode == 7, done.stderr  # one-shot: nobody could approve it
    assert not (project / "outside-made").exists()


def test_yolo_runs_outside_unless_required(
    server: FakeProviderServer, tmp_path: Path, pi_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    server.add(bash("echo ${PI_SANDBOX:-none}"), Turn(text="done"))
    done = pi(server, project, pi_home, "-p", "--permission-mode", "yolo", "where am I")
    assert done.returncode == 0, done.stderr
    assert result_text(server) == "none"
    (pi_home / "settings.json").write_text(json.dumps({"sandbox": {"mode": "required"}}))
    server.add(bash("echo ${PI_SANDBOX:-none}"), Turn(text="done"))
    done = pi(server, project, pi_home, "-p", "--permission-mode", "yolo", "where am I")
    assert done.returncode == 0, done.stderr
    assert result_text(server) == "1"  # required: inside, even in yolo


def test_add_dir_is_writable_inside(
    server: FakeProviderServer, tmp_path: Path, pi_home: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    # Unbound, it would be an empty directory of the private /tmp: the write would not arrive.
    shared = tmp_path / "shared"
    shared.mkdir()
    refused = Path.home() / f".pi-sandbox-refused-{os.getpid()}"
    try:
        server.add(bash(f"echo shared > {shared}/note; echo x > {refused}"), Turn(text="done"))
        done = pi(server, project, pi_home, "-p", "--add-dir", str(shared), "write both")
        assert (shared / "note").read_text() == "shared\n", done.stderr
        assert not refused.exists()
        assert "Read-only file system" in result_text(server)
    finally:
        refused.unlink(missing_ok=True)
