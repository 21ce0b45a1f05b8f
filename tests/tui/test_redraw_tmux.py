"""F5 redraws the whole screen in a real terminal (after another program wrote over it)."""

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


def test_f5_redraws_what_another_program_wrote_over(tmp_path: Path) -> None:
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
        _tmux("send-keys", "-t", session, "F5")
        deadline = time.monotonic() + 20
        while "GARBAGE-FROM-ELSEWHERE" in capture() and time.monotonic() < deadline:
            time.sleep(0.1)
        screen = capture()
        assert "GARBAGE-FROM-ELSEWHERE" not in screen and "interactive coding agent" in screen
    finally:
        _tmux("kill-session", "-t", session)
