"""The transcript search in a real terminal: the transcript stays drawn above the search bar
(every screen used to paint the app's background over what is below it)."""

from __future__ import annotations

import shutil
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.tui.test_approval_tmux import _tmux, _wait_for

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(180),
]
PI = Path(sys.executable).parent / "pi"


def test_the_transcript_stays_in_view_while_searching(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    session = f"pi-search-{uuid.uuid4().hex[:8]}"
    with FakeProviderServer([Turn(text="an answer with a needle in it")]) as server:
        command = (
            f"cd {project} && env PI_HOME={home} PI_NO_LOCAL_PROBE=1 {PI} --model openai/fake "
            f"--api-base {server.openai_base_url} --api-key x --no-session; sleep 30"
        )
        _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command)
        try:

            def capture() -> str:
                return _tmux("capture-pane", "-p", "-t", session)

            _wait_for(capture, "interactive coding agent")
            _tmux("send-keys", "-t", session, "-l", "hi")
            _tmux("send-keys", "-t", session, "Enter")
            _wait_for(capture, "needle in it")
            _tmux("send-keys", "-t", session, "C-f")
            _wait_for(capture, "[Esc] Close")
            _tmux("send-keys", "-t", session, "-l", "needle")
            screen = _wait_for(capture, "1 of 1")
            assert "an answer with a needle in it" in screen  # drawn above the bar
            _tmux("send-keys", "-t", session, "Escape")
            deadline = time.monotonic() + 30
            while "[Esc] Close" in capture() and time.monotonic() < deadline:
                time.sleep(0.1)
            assert "[Esc] Close" not in capture() and "needle in it" in capture()
        finally:
            _tmux("kill-session", "-t", session)
