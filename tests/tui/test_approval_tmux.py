"""End to end in tmux: the real `pi` TUI asks approvals; allow once, always, deny (server log)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(180),
]
PI = Path(sys.executable).parent / "pi"


def _tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def _wait_for(capture: Callable[[], str], needle: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = capture()
        if needle in screen:
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{needle!r} never appeared on screen:\n{screen}")


def _tool_result(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "tool"][-1]["content"]


def bash(command: str, call_id: str) -> Turn:
    return Turn(tool_calls=[ToolCallSpec("bash", {"command": command}, id=call_id)])


def test_allow_once_always_and_deny_in_the_tui(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "pi_home"
    home.mkdir()
    script = [
        bash("touch a", "c1"),
        bash("touch b", "c2"),
        bash("touch c", "c3"),
        bash("mkdir d", "c4"),
        Turn(text="All done here."),
    ]
    log = tmp_path / "requests.jsonl"
    session = f"pi-approve-{uuid.uuid4().hex[:8]}"
    with FakeProviderServer(script, request_log=log) as server:
        command = (
            f"cd {project} && env PI_HOME={home} PI_NO_LOCAL_PROBE=1 PI_SANDBOX_MODE=off {PI} --model openai/fake "
            f"--api-base {server.openai_base_url} --api-key x --no-session; "
            "echo PI-EXITED-$?; sleep 30"
        )
        _tmux("new-session", "-d", "-s", session, "-x", "110", "-y", "45", command)
        try:

            def capture() -> str:
                return _tmux("capture-pane", "-p", "-t", session)

            _wait_for(capture, "interactive coding agent")
            _tmux("send-keys", "-t", session, "-l", "make the files")
            _tmux("send-keys", "-t", session, "Enter")
            screen = _wait_for(capture, "Allow bash: $ touch a?")
            assert "[y] Allow once" in screen and "[a] Always" in screen
            _tmux("send-keys", "-t", session, "y")
            _wait_for(capture, "Allow bash: $ touch b?")
            _tmux("send-keys", "-t", session, "a")
            _wait_for(capture, "[p] Always, in the project settings (Bash(touch:*))")
            _tmux("send-keys", "-t", session, "p")
            _wait_for(capture, "Allow bash: $ mkdir d?")  # touch c needed no question
            _tmux("send-keys", "-t", session, "n")
            _wait_for(capture, "All done here.")
            _tmux("send-keys", "-t", session, "C-d")
            _wait_for(capture, "PI-EXITED-0")
        finally:
            subprocess.run(
                ["tmux", "kill-session", "-t", session], capture_output=True, check=False
            )
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(requests) == 5
    assert [_tool_result(r) for r in requests[1:4]] == ["(no output)"] * 3
    assert _tool_result(requests[4]) == "denied by the user"
    assert [(project / n).exists() for n in "abcd"] == [True, True, True, False]
    saved = json.loads((project / ".pi" / "settings.json").read_text())
    assert saved == {"permissions": {"allow": ["Bash(touch:*)"]}}


def test_the_tui_asks_to_trust_a_folder_before_its_hooks_run(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".pi" / "hooks").mkdir(parents=True)
    marker = tmp_path / "hook-ran"
    hook = project / ".pi" / "hooks" / "hello.py"
    hook.write_text(f"open({str(marker)!r}, 'a').write('ran\\n')\n")
    home = tmp_path / "pi_home"
    home.mkdir()
    socket = f"pi-trust-{uuid.uuid4().hex[:8]}"  # its own server: sessions start and end here

    def tmux(*args: str) -> str:
        return _tmux("-L", socket, *args)

    def new_session(*args: str) -> None:
        for _ in range(50):  # the previous server may still be shutting down
            if (
                subprocess.run(["tmux", "-L", socket, "new-session", *args], check=False).returncode
                == 0
            ):
                return
            time.sleep(0.1)
        raise AssertionError("tmux new-session kept failing")

    with FakeProviderServer([]) as server:
        for answer, expect in (("y", "ran\n"), ("n", "ran\n")):
            session = f"trust-{answer}"
            command = (
                f"cd {project} && env PI_HOME={home} PI_NO_LOCAL_PROBE=1 PI_SANDBOX_MODE=off {PI} --model openai/fake "
                f"--api-base {server.openai_base_url} --api-key x --no-session; "
                "echo PI-EXITED-$?; sleep 30"
            )
            new_session("-d", "-s", session, "-x", "110", "-y", "45", command)
            try:

                def capture(session: str = session) -> str:
                    return tmux("capture-pane", "-p", "-t", session)

                screen = _wait_for(capture, "Trust this folder?")
                assert ".pi/hooks/hello.py (Python hook" in screen
                assert not marker.exists() or answer == "n"  # nothing ran before the answer
                tmux("send-keys", "-t", session, answer)
                _wait_for(capture, "interactive coding agent")
                time.sleep(0.5)
                tmux("send-keys", "-t", session, "C-d")
                _wait_for(capture, "PI-EXITED-0")
            finally:
                subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)
            assert marker.read_text() == expect
            record = json.loads((home / "trust.json").read_text())["folders"][str(project)]
            assert record["trusted"] is (answer == "y")
            hook.write_text(hook.read_text() + "# changed by a git pull\n")  # asks again
