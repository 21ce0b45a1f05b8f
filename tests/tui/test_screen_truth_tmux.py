"""In a real terminal: while an answer streams, its turn's title says it is running, not
"waiting for the model" (ux-review-3 saw the title lag the body)."""

from __future__ import annotations

import shutil
import subprocess
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
    pytest.mark.timeout(120),
]
PI = Path(sys.executable).parent / "pi"


def test_the_turn_title_follows_the_streaming_answer(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    answer = "The directory contains two files: " + " ".join(f"word{i}" for i in range(60))
    script = [Turn(text=answer, chunk_size=4, chunk_delay_s=0.15)]  # ~10 s of streaming
    session = f"pi-title-{uuid.uuid4().hex[:8]}"
    with FakeProviderServer(script) as server:
        command = (
            f"cd {project} && env PI_HOME={home} PI_NO_LOCAL_PROBE=1 {PI} --model openai/fake "
            f"--api-base http://127.0.0.1:{server.port}/v1 --api-key x --no-session; sleep 30"
        )
        _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command)
        try:

            def capture() -> str:
                return _tmux("capture-pane", "-p", "-t", session)

            _wait_for(capture, "interactive coding agent")
            _tmux("send-keys", "-t", session, "-l", "what is here")
            _tmux("send-keys", "-t", session, "Enter")
            _wait_for(capture, "The directory")
            # Every frame while the answer streams: the title says running, never waiting.
            seen = 0
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                screen = capture()
                if "word59" in screen:
                    break
                title = next((r for r in screen.splitlines() if "Turn 1 ·" in r), "")
                if "The directory" in screen and "word" in screen and title:
                    assert "waiting for the model" not in title, screen
                    seen += 1
                time.sleep(0.2)
            assert seen >= 3, "the answer streamed too fast to look at its title"
        finally:
            subprocess.run(
                ["tmux", "kill-session", "-t", session], capture_output=True, check=False
            )
