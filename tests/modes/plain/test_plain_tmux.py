"""End to end: the real ``pi --plain`` in tmux against the fake provider server subprocess.

Types a prompt, a steer (Enter) and a follow-up (M-Enter, which tmux sends as ESC CR) while the
first turn's bash tool sleeps, then checks the screen and what the model was sent.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn

REPO = Path(__file__).resolve().parents[3]
PI = Path(sys.executable).parent / "pi"


def _providers_ready() -> bool:
    try:
        from agent_core.providers import resolve_model  # noqa: F401
    except ImportError:
        return False
    return True


pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(
        not _providers_ready(), reason="agent_core.providers.resolve_model not importable yet"
    ),
    pytest.mark.skipif(
        not PI.exists(), reason="the pi console script is not installed in this venv"
    ),
    # Five waits of up to 15 s each plus start-up: more than the default 60 s under load.
    pytest.mark.timeout(180),
]


@pytest.fixture
def fake_server(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    script = [
        # Waits for a gate file the test creates once both queued messages are shown, so the
        # steer always lands mid-batch however slow the machine is.
        Turn(
            tool_calls=[
                ToolCallSpec(
                    "bash",
                    {
                        "command": f"until [ -e {tmp_path / 'project' / 'gate'} ]; do sleep 0.05; done; echo slept"
                    },
                    id="call_1",
                )
            ]
        ),
        Turn(text="Steer noted."),
        Turn(text="Follow-up answered."),
    ]
    log = tmp_path / "requests.jsonl"
    # In-process (a thread): pi runs in tmux as its own process and reaches it over loopback.
    with FakeProviderServer(script, request_log=log) as server:
        yield server.port, log


def test_plain_repl_in_tmux(tmp_path: Path, pi_home: Path, fake_server: tuple[int, Path]) -> None:
    port, log = fake_server
    project = tmp_path / "project"
    project.mkdir()
    socket_name = f"pi-plain-e2e-{os.getpid()}"

    def tmux(*args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", socket_name, *args], check=True, capture_output=True, text=True
        ).stdout

    def screen() -> str:
        return tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", "e2e")

    def wait_for(predicate: Callable[[str], bool], what: str, timeout: float = 15) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = screen()
            if predicate(text):
                return text
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; screen:\n{screen()}")

    command = (
        f"env PI_HOME={pi_home} PI_NO_LOCAL_PROBE=1 TERM=xterm-256color {PI} --plain --no-session "
        f"--model openai/fake --api-base http://127.0.0.1:{port}/v1 --api-key x"
        # The gate loop is not read-only; this test is about queueing, not approvals.
        " --permission-mode bypassPermissions"
    )
    tmux("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", "-c", str(project), command)
    try:
        wait_for(lambda s: "›" in s, "the prompt")
        tmux("send-keys", "-t", "e2e", "-l", "start the job")
        tmux("send-keys", "-t", "e2e", "Enter")
        wait_for(lambda s: "▸ bash" in s, "the bash tool call")
        tmux("send-keys", "-t", "e2e", "-l", "e2e steer")
        tmux("send-keys", "-t", "e2e", "Enter")
        tmux("send-keys", "-t", "e2e", "-l", "e2e follow-up")
        tmux("send-keys", "-t", "e2e", "M-Enter")
        wait_for(
            lambda s: "queued steer: e2e steer" in s and "queued follow-up: e2e follow-up" in s,
            "both queued messages",
        )
        (tmp_path / "project" / "gate").touch()  # the workspace: visible in the sandbox
        text = wait_for(
            lambda s: "Follow-up answered." in s and s.count("tokens") >= 1, "the follow-up answer"
        )
        assert "── turn 1 · bash $ until [ -e" in text  # the tool words its title
        assert "slept" in text
        assert "» delivered: e2e steer" in text
        assert "» delivered: e2e follow-up" in text
        assert (
            text.index("Steer noted.")
            < text.index("» delivered: e2e follow-up")
            < text.index("Follow-up answered.")
        )
        tmux("send-keys", "-t", "e2e", "C-d")
        end = time.monotonic() + 5
        while (
            time.monotonic() < end
            and "e2e"
            in subprocess.run(
                ["tmux", "-L", socket_name, "list-sessions"], capture_output=True, text=True
            ).stdout
        ):
            time.sleep(0.05)
    finally:
        subprocess.run(["tmux", "-L", socket_name, "kill-server"], capture_output=True)

    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(requests) == 3

    def user_texts(body: dict) -> list[str]:
        texts = []
        for message in body["messages"]:
            if message["role"] == "user":
                content = message["content"]
                texts.append(
                    content
                    if isinstance(content, str)
                    else "".join(p.get("text", "") for p in content)
                )
        return texts

    assert user_texts(requests[0]) == ["start the job"]
    assert user_texts(requests[1]) == ["start the job", "e2e steer"]  # steer reached turn 2
    assert user_texts(requests[2]) == [
        "start the job",
        "e2e steer",
        "e2e follow-up",
    ]  # after the answer
    assert (pi_home / "history").read_text().count("e2e steer") == 1
