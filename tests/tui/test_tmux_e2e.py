"""End to end in a real terminal: tmux runs the real ``pi`` CLI against the fake provider server.

``send-keys`` types a prompt, a steer (Enter while the run is live) and a follow-up (``M-Enter``:
tmux sends Alt+Enter as ESC CR, which pi's parser must recognise). ``capture-pane`` shows what
was on screen; the server's request log proves in which request each queued message arrived.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    # Its waits add up to 90 s in the worst case (a loaded 2-core machine), over the default 60.
    pytest.mark.timeout(180),
]

ROOT = Path(__file__).resolve().parents[2]
PI = Path(sys.executable).parent / "pi"


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def _user_texts(request: dict) -> list[str]:
    out = []
    for message in request["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(
                content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
            )
    return out


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """The fake server as a subprocess: (port, request log)."""
    script = [
        # The tool waits for a gate file the test creates once both queued messages are on
        # screen, so the steer always lands mid-batch however slow the machine is.
        Turn(
            tool_calls=[
                ToolCallSpec(
                    "bash",
                    {
                        "command": f"until [ -e {tmp_path / 'project' / 'gate'} ]; do sleep 0.05; done; echo built"
                    },
                    id="call_1",
                )
            ]
        ),
        Turn(text="Steered reply: using ninja."),
        Turn(text="Follow-up reply: tests pass."),
    ]
    log = tmp_path / "requests.jsonl"
    # In-process (a thread): pi runs in tmux as its own process and reaches it over loopback.
    with FakeProviderServer(script, request_log=log) as server:
        yield server.port, log


def _wait_for(capture: Callable[[], str], needle: str, timeout: float = 20.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture()
        if needle in screen:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{needle!r} never appeared on screen:\n{screen}")


def test_prompt_steer_and_follow_up_through_tmux(server: tuple[int, Path], tmp_path: Path) -> None:
    port, log = server
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "pi_home"
    home.mkdir()
    session = f"pi-e2e-{uuid.uuid4().hex[:8]}"
    env = {"PI_HOME": str(home), "PI_NO_LOCAL_PROBE": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    exports = " ".join(f"{k}={v}" for k, v in env.items())
    command = (
        f"cd {project} && env {exports} {PI} --model openai/fake --api-base http://127.0.0.1:{port}/v1 "
        # The gate loop is not read-only; approvals have their own tmux test.
        f"--api-key x --no-session --permission-mode bypassPermissions; echo PI-EXITED-$?; sleep 30"
    )
    _tmux("new-session", "-d", "-s", session, "-x", "110", "-y", "45", command)
    try:

        def capture() -> str:
            return _tmux("capture-pane", "-p", "-t", session)

        _wait_for(capture, "interactive coding agent")
        _tmux("send-keys", "-t", session, "-l", "build the project")
        _tmux("send-keys", "-t", session, "Enter")
        _wait_for(capture, "$ until")
        _tmux("send-keys", "-t", session, "-l", "use ninja instead")
        _tmux("send-keys", "-t", session, "Enter")  # live run: Enter steers
        _tmux("send-keys", "-t", session, "-l", "then run the tests")
        _tmux("send-keys", "-t", session, "M-Enter")  # ESC CR: must queue a follow-up
        queued = _wait_for(capture, "Follow-up: then run the tests")
        assert "Steering: use ninja instead" in queued
        (tmp_path / "project" / "gate").touch()  # the workspace: visible in the sandbox
        done = _wait_for(capture, "Follow-up reply: tests pass.", timeout=30)
        assert "Steered reply: using ninja." in done
        assert "Steering:" not in done and "Follow-up: then" not in done  # delivered, queue gone
        assert "› use ninja instead" in done and "› then run the tests" in done
        assert (
            done.index("Steered reply")
            < done.index("› then run the tests")
            < done.index("Follow-up reply")
        )

        requests = [json.loads(line) for line in log.read_text().splitlines()]
        assert len(requests) == 3
        assert _user_texts(requests[0]) == ["build the project"]
        assert _user_texts(requests[1]) == ["build the project", "use ninja instead"]
        assert _user_texts(requests[2]) == [
            "build the project",
            "use ninja instead",
            "then run the tests",
        ]

        _tmux("send-keys", "-t", session, "C-d")  # empty editor: quit
        _wait_for(capture, "PI-EXITED-0")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True, check=False)
