"""Ctrl+L (or F5) redraws the whole screen in a real terminal (after another program wrote over
it), and so does resuming after Ctrl+Z and ``fg``."""

from __future__ import annotations

import shutil
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.tui.test_approval_tmux import _tmux, _wait_for

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(120),
]
PI = Path(sys.executable).parent / "pi"


@pytest.mark.parametrize("key", ["C-l", "F5"])
def test_the_redraw_key_redraws_what_another_program_wrote_over(tmp_path: Path, key: str) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    session = f"pi-redraw-{uuid.uuid4().hex[:8]}"
    command = (
        f"cd {project} && env PI_HOME={home} PI_NO_LOCAL_PROBE=1 {PI} --model openai/fake "
        "--api-base http://127.0.0.1:9/v1 --api-key x --no-session; sleep 30"
    )
    _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command)
    try:

        def capture() -> str:
            return _tmux("capture-pane", "-p", "-t", session)

        _wait_for(capture, "interactive coding agent")
        time.sleep(0.5)  # the first frame is complete
        tty = _tmux("display", "-p", "-t", session, "#{pane_tty}").strip()
        with open(tty, "w") as terminal:  # another program writes over pi's screen
            terminal.write("\x1b[2J\x1b[HGARBAGE-FROM-ELSEWHERE\n")
        _wait_for(capture, "GARBAGE-FROM-ELSEWHERE")
        _tmux("send-keys", "-t", session, key)
        deadline = time.monotonic() + 20
        while "GARBAGE-FROM-ELSEWHERE" in capture() and time.monotonic() < deadline:
            time.sleep(0.1)
        screen = capture()
        assert "GARBAGE-FROM-ELSEWHERE" not in screen and "interactive coding agent" in screen
    finally:
        _tmux("kill-session", "-t", session)


def test_after_ctrl_z_and_fg_the_whole_screen_is_painted_again(tmp_path: Path) -> None:
    """Suspend from an interactive shell, ``fg``: the transcript, the editor's frame and the
    footer come back at once (SIGCONT), not only the editor's line."""
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    session = f"pi-fg-{uuid.uuid4().hex[:8]}"
    _tmux(
        "new-session", "-d", "-s", session, "-x", "100", "-y", "30",
        "env PS1='shell$ ' bash --norc --noprofile",
    )  # fmt: skip
    try:

        def capture() -> str:
            return _tmux("capture-pane", "-p", "-t", session)

        _wait_for(capture, "shell$")
        command = (
            f"cd {project} && env PI_HOME={home} PI_NO_LOCAL_PROBE=1 {PI} --model openai/fake "
            "--api-base http://127.0.0.1:9/v1 --api-key x --no-session"
        )
        _tmux("send-keys", "-t", session, "-l", command)
        _tmux("send-keys", "-t", session, "Enter")
        _wait_for(capture, "interactive coding agent")
        _tmux("send-keys", "-t", session, "-l", "!echo marker-from-bash")
        _tmux("send-keys", "-t", session, "Enter")
        _wait_for(capture, "marker-from-bash\n")  # the command's output, in the transcript
        _tmux("send-keys", "-t", session, "C-z")
        _wait_for(capture, "Stopped")
        _tmux("send-keys", "-t", session, "-l", "fg")
        _tmux("send-keys", "-t", session, "Enter")
        deadline = time.monotonic() + 20
        screen = capture()
        while time.monotonic() < deadline and not (
            "marker-from-bash" in screen and "Stopped" not in screen and "╰" in screen
        ):
            time.sleep(0.1)
            screen = capture()
        assert "Stopped" not in screen, screen  # pi's screen is back over the shell's lines
        assert "interactive coding agent" in screen and "marker-from-bash" in screen, screen
        assert "╰" in screen, screen  # the editor's frame, not only its line
        _tmux("send-keys", "-t", session, "C-q")
        _wait_for(capture, "shell$")
    finally:
        _tmux("kill-session", "-t", session)
