"""SIGTERM and SIGHUP to pi in a real terminal (tmux): the plain REPL and the TUI abort the run,
stop every process the tools started, restore the terminal (no alternate screen, no mouse
reporting left on) and exit 143 / 129; closing the terminal itself (the pty goes away) too."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import ToolCallSpec, Turn
from tests.fakes.provider_server import FakeProviderServer
from tests.tools.sandbox.procs import marker, stubborn_tree, tagged, wait_until
from tests.tools.sandbox.test_signals import CODES, _tree_running

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(180),
]
PI = Path(sys.executable).parent / "pi"
WRAPPER = Path(__file__).with_name("hup_wrapper.py")


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as fake:
        yield fake


def _pi_pid(tag: str) -> int | None:
    """pi's own process (its command line runs the ``pi`` script; its environment has the tag)."""
    for pid in tagged(tag):
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if len(args) > 1 and args[1] == str(PI).encode():  # python .venv/bin/pi ...
            return pid
    return None


def _start(server: FakeProviderServer, tmp_path: Path, tag: str, ui: str) -> tuple[str, Path, Path]:
    """A tmux session running pi; returns (session, exit-code file, PI_HOME)."""
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    exit_file = tmp_path / "exit-code"
    env = {
        "PI_HOME": str(home),
        "PI_NO_LOCAL_PROBE": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PI_TEST_TAG": tag,
    }
    exports = [f"{k}={v}" for k, v in env.items()]
    flags = ["--plain"] if ui == "plain" else []
    pi = [str(PI), *flags, "--model", "openai/fake", "--api-base", server.openai_base_url]
    # The wrapper plays the login shell: it forwards SIGHUP to pi and records its exit code.
    command = [sys.executable, str(WRAPPER), str(exit_file), "env", *exports, *pi, "--api-key", "x"]
    session = f"pi-sig-{uuid.uuid4().hex[:8]}"
    size = ["-x", "100", "-y", "30"]
    _tmux("new-session", "-d", "-s", session, *size, "-c", str(project), *command)
    return session, exit_file, home


def _run_tool(server: FakeProviderServer, session: str, tag: str, ui: str) -> int:
    """Type a prompt whose tool call starts the stubborn tree; returns pi's pid."""
    ready = "›" if ui == "plain" else "interactive coding agent"  # the prompt is up
    assert wait_until(lambda: ready in _tmux("capture-pane", "-p", "-t", session), timeout=30)
    _tmux("send-keys", "-t", session, "-l", "go")
    _tmux("send-keys", "-t", session, "Enter")
    assert wait_until(lambda: _tree_running(tag), timeout=30), _tmux(
        "capture-pane", "-p", "-t", session
    )
    pid = _pi_pid(tag)
    assert pid is not None
    return pid


def _screen_state(session: str) -> str:
    return _tmux("display", "-p", "-t", session, "#{alternate_on} #{mouse_any_flag}").strip()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
@pytest.mark.parametrize("ui", ["plain", "tui"])
def test_signal_in_a_terminal(
    server: FakeProviderServer, tmp_path: Path, ui: str, sig: signal.Signals
) -> None:
    tag = marker()
    command = stubborn_tree(tag) + f"; sleep {tag}4"
    server.add(Turn(tool_calls=[ToolCallSpec("bash", {"command": command}, id="call_1")]))
    session, exit_file, home = _start(server, tmp_path, tag, ui)
    try:
        pid = _run_tool(server, session, tag, ui)
        if ui == "tui":
            assert _screen_state(session).startswith("1")  # the TUI is in the alternate screen
        os.kill(pid, sig)
        written = lambda: exit_file.exists() and exit_file.read_text() != ""  # noqa: E731
        assert wait_until(written, timeout=30), _tmux("capture-pane", "-p", "-t", session)
        assert exit_file.read_text().strip() == str(CODES[sig])
        assert tagged(tag) == [], "a process started by the tool survived pi"
        assert _screen_state(session) == "0 0", "the terminal was not restored"
        files = list((home / "sessions").glob("*/*.jsonl"))
        entries = [json.loads(line) for line in files[0].read_text().splitlines()]
        last = [e["message"] for e in entries if e.get("type") == "message"][-1]
        assert last["role"] == "assistant" and last["stopReason"] == "aborted"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, check=False)


@pytest.mark.parametrize("ui", ["plain", "tui"])
def test_closing_the_terminal(server: FakeProviderServer, tmp_path: Path, ui: str) -> None:
    """The pty goes away (the window closed, ssh dropped): SIGHUP, writes to the terminal fail."""
    tag = marker()
    command = stubborn_tree(tag) + f"; sleep {tag}4"
    server.add(Turn(tool_calls=[ToolCallSpec("bash", {"command": command}, id="call_1")]))
    session, exit_file, _ = _start(server, tmp_path, tag, ui)
    try:
        pid = _run_tool(server, session, tag, ui)
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, check=False)
        assert wait_until(lambda: not Path(f"/proc/{pid}").exists(), timeout=30), "pi lives on"
        written = lambda: exit_file.exists() and exit_file.read_text() != ""  # noqa: E731
        assert wait_until(written, timeout=10), "no exit code written"
        assert exit_file.read_text().strip() == "129", exit_file.read_text()
        assert tagged(tag) == [], "a process started by the tool survived pi"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, check=False)


@pytest.mark.parametrize("ui", ["plain", "tui"])
def test_an_idle_pi_exits_when_its_tmux_server_dies(
    server: FakeProviderServer, tmp_path: Path, ui: str
) -> None:
    """pi as the pane's own process (no shell between), idle at its prompt; the whole tmux server
    is killed: the kernel sends SIGHUP then SIGCONT, and Textual's SIGCONT handler would resume
    onto the dead terminal and hang at exit. pi must be gone, not orphaned."""
    tag = marker()
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    socket = f"pi-dies-{uuid.uuid4().hex[:8]}"
    flags = "--plain" if ui == "plain" else ""
    command = (
        f"exec env PI_HOME={home} PI_NO_LOCAL_PROBE=1 PI_TEST_TAG={tag} {PI} {flags} "
        f"--model openai/fake --api-base {server.openai_base_url} --api-key x --no-session"
    )
    tmux = ["tmux", "-L", socket, "-f", "/dev/null"]
    subprocess.run([*tmux, "new-session", "-d", "-s", "s", "-x", "100", "-y", "30", "-c",
                    str(project), command], check=True)  # fmt: skip
    try:
        ready = "›" if ui == "plain" else "interactive coding agent"

        def screen() -> str:
            out = subprocess.run(
                [*tmux, "capture-pane", "-p", "-t", "s"], capture_output=True, text=True
            )
            return out.stdout

        assert wait_until(lambda: ready in screen(), timeout=30), screen()
        pid = _pi_pid(tag)
        assert pid is not None
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)
    assert wait_until(lambda: not Path(f"/proc/{pid}").exists(), timeout=20), (
        "pi outlived its terminal"
    )
