"""Quitting says what it stopped, in a real terminal: the TUI (a line after the app has gone)
and the plain REPL, with a live run and a background shell."""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.tools.sandbox.procs import kill_leftovers, marker, tagged
from tests.tui.test_approval_tmux import _tmux, _wait_for

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(150),
]
PI = Path(sys.executable).parent / "pi"


@pytest.fixture
def tag() -> Iterator[str]:
    """A marker in the commands' argv, to find what they left behind."""
    value = marker()
    yield value
    kill_leftovers()


def _script(tag: str) -> list[Turn]:
    background = ToolCallSpec(
        "bash", {"command": f"exec sleep {tag}1", "background": True}, id="call_bg"
    )
    live = ToolCallSpec("bash", {"command": f"echo working; exec sleep {tag}2"}, id="call_live")
    return [
        Turn(tool_calls=[background]),
        Turn(text="Started it in the background."),
        Turn(tool_calls=[live]),
        Turn(text="never reached"),
    ]


@pytest.mark.parametrize("plain", [False, True], ids=["tui", "plain"])
def test_quitting_with_a_live_run_and_a_background_shell_says_what_it_stopped(
    tmp_path: Path, tag: str, plain: bool
) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    (home / "settings.json").write_text('{"sandbox": {"mode": "off"}}')
    session = f"pi-quit-{uuid.uuid4().hex[:8]}"
    with FakeProviderServer(_script(tag)) as server:
        command = (
            f"cd {project} && env PI_HOME={home} PI_NO_LOCAL_PROBE=1 {PI} --model openai/fake "
            f"--api-base http://127.0.0.1:{server.port}/v1 --api-key x --no-session "
            f"--permission-mode bypassPermissions {'--plain' if plain else ''}; "
            "echo PI-EXITED-$?; sleep 30"
        )
        _tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", command)
        try:

            def capture() -> str:
                return _tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", session)

            _wait_for(capture, "Esc" if plain else "interactive coding agent")
            _tmux("send-keys", "-t", session, "-l", "start the server")
            _tmux("send-keys", "-t", session, "Enter")
            _wait_for(capture, "Started it in the background.")
            _tmux("send-keys", "-t", session, "-l", "now build")
            _tmux("send-keys", "-t", session, "Enter")
            _wait_for(capture, "working")  # the live tool runs
            # Quit at once, mid-run: Ctrl+Q in the TUI, Ctrl+D (twice: the first aborts a
            # live line's input in prompt_toolkit only when it is empty) in the plain REPL.
            _tmux("send-keys", "-t", session, "C-d" if plain else "C-q")
            # Words, not rows: the line wraps at the pane's width.
            screen = " ".join(_wait_for(capture, "PI-EXITED-").split())
            assert "Stopped on quit: the run in progress (aborted); 1 background shell: " in screen
            assert f"bash_1 (exec sleep {tag}1)" in screen, screen
            assert tagged(tag) == []  # and they are really stopped
        finally:
            subprocess.run(
                ["tmux", "kill-session", "-t", session], capture_output=True, check=False
            )


def test_quitting_an_idle_pi_says_nothing_was_stopped(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    session = f"pi-quit-{uuid.uuid4().hex[:8]}"
    command = (
        f"cd {project} && env PI_HOME={home} PI_NO_LOCAL_PROBE=1 {PI} --model openai/fake "
        "--api-base http://127.0.0.1:9/v1 --api-key x --no-session; echo PI-EXITED-$?; sleep 30"
    )
    _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command)
    try:

        def capture() -> str:
            return _tmux("capture-pane", "-p", "-t", session)

        _wait_for(capture, "interactive coding agent")
        _tmux("send-keys", "-t", session, "C-q")
        assert "Stopped on quit" not in _wait_for(capture, "PI-EXITED-0")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, check=False)
