"""End to end in tmux (private server, ``extended-keys on``): keyboard scrolling, Ctrl+C aborting
a live stream, prompt history across restarts, a bracketed paste collapsing, Ctrl+Enter queueing
a follow-up (tmux forwards it only because pi asks for modifyOtherKeys)."""

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
from prompt_toolkit.history import FileHistory

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(180),
]

PI = Path(sys.executable).parent / "pi"


class Tmux:
    """One private tmux server running pi; ``extended-keys on`` as a tmux user would set it."""

    def __init__(self, tmp_path: Path, port: int) -> None:
        self.socket = f"pi-keys-{uuid.uuid4().hex[:8]}"
        self.home = tmp_path / "pi_home"
        self.home.mkdir(exist_ok=True)
        self.project = tmp_path / "project"
        self.project.mkdir(exist_ok=True)
        self.port = port
        self.runs = 0

    def __call__(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        ).stdout

    def start(self) -> None:
        """Start pi (again) in a new window."""
        self.runs += 1
        env = f"PI_HOME={self.home} PI_NO_LOCAL_PROBE=1 LITELLM_LOCAL_MODEL_COST_MAP=True"
        command = (
            f"cd {self.project} && env -u COLUMNS -u LINES {env} {PI} --model openai/fake "
            f"--api-base http://127.0.0.1:{self.port}/v1 --api-key test-key "
            "--permission-mode bypassPermissions; "
            f"echo PI-EXITED-$?-{self.runs}; sleep 60"
        )
        if self.runs == 1:
            self("-f", "/dev/null", "new-session", "-d", "-s", "e2e", "-x", "110", "-y", "40")
            self("set-option", "-s", "extended-keys", "on")
            self("set-option", "-g", "remain-on-exit", "on")
        self("respawn-pane", "-k", "-t", "e2e", command)
        self.wait("interactive coding agent")
        self.wait("ctx 0%")  # the shell is ready (footer filled)

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "e2e")

    def keys(self, *keys: str, literal: bool = False) -> None:
        self("send-keys", "-t", "e2e", *(["-l"] if literal else []), *keys)

    def wait(self, needle: str | Callable[[str], bool], timeout: float = 25.0) -> str:
        check = needle if callable(needle) else (lambda screen: needle in screen)
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"{needle!r} never appeared on screen:\n{screen}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[FakeProviderServer, Path]]:
    log = tmp_path / "requests.jsonl"
    with FakeProviderServer(request_log=log) as server:
        yield server, log


@pytest.fixture
def tmux(tmp_path: Path, served: tuple[FakeProviderServer, Path]) -> Iterator[Tmux]:
    session = Tmux(tmp_path, served[0].port)
    try:
        yield session
    finally:
        session.close()


def _user_texts(request: dict) -> list[str]:
    out = []
    for message in request["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(
                content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
            )
    return out


def test_scrolling_history_and_paste_in_tmux(
    tmux: Tmux, served: tuple[FakeProviderServer, Path], tmp_path: Path
) -> None:
    server, log = served
    long_answer = "\n\n".join(f"Section {i}: words about the terminal window." for i in range(120))
    server.add(Turn(text=long_answer, chunk_size=200), Turn(text="Pasted text received."))
    tmux.start()
    tmux.keys("write a long answer", literal=True)
    tmux.keys("Enter")
    bottom = tmux.wait("Section 119:")
    tmux.keys("PageUp")
    up = tmux.wait(lambda s: "Section 119:" not in s)
    assert up != bottom
    tmux.keys("PageUp")
    higher = tmux.wait(lambda s: s != up)
    assert "Section 119:" not in higher
    tmux.keys("C-Home")
    tmux.wait("interactive coding agent")  # the top of the transcript
    tmux.keys("End")  # the editor is empty: End jumps to the bottom
    tmux.wait("Section 119:")

    # A bracketed paste of 80 lines collapses in the editor and is sent whole.
    pasted = "\n".join(f"pasted line {i}" for i in range(1, 81))
    (tmp_path / "paste.txt").write_text(pasted)
    tmux("load-buffer", str(tmp_path / "paste.txt"))
    tmux("paste-buffer", "-p", "-t", "e2e")
    screen = tmux.wait("[paste #1 +80 lines]")
    assert "pasted line 40" not in screen
    tmux.keys("Enter")
    tmux.wait("Pasted text received.")
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert _user_texts(requests[1])[-1] == pasted

    # History: after a restart, Up recalls the prompts, shared with the plain REPL's file.
    tmux.keys("C-d")
    tmux.wait("PI-EXITED-0-1")
    assert "Resume this session with: pi --session" in tmux.screen()
    tmux.start()
    tmux.keys("Up")
    tmux.wait("pasted line 80")  # the sent text (pastes expanded) is what history keeps
    tmux.keys("Up")
    tmux.wait("write a long answer")
    stored = list(FileHistory(str(tmux.home / "history")).load_history_strings())
    assert stored[:2] == [pasted, "write a long answer"]


def test_ctrl_c_aborts_a_streaming_answer_in_tmux(
    tmux: Tmux, served: tuple[FakeProviderServer, Path]
) -> None:
    server, _ = served
    words = " ".join(f"word{i}" for i in range(4000))
    server.add(Turn(text=words, chunk_size=8, chunk_delay_s=0.01))
    tmux.start()
    tmux.keys("stream a lot", literal=True)
    tmux.keys("Enter")
    tmux.wait("word20")
    tmux.keys("C-c")
    screen = tmux.wait("Aborted.")
    assert "PI-EXITED" not in screen
    time.sleep(1.0)
    later = tmux.screen()
    assert "PI-EXITED" not in later and "word3999" not in later  # the stream really stopped
    tmux.keys("C-c")
    tmux.wait("Press Ctrl+C again to quit")
    tmux.keys("C-c")
    tmux.wait("PI-EXITED-0-1")


def test_ctrl_enter_queues_a_follow_up_in_tmux(
    tmux: Tmux, served: tuple[FakeProviderServer, Path], tmp_path: Path
) -> None:
    server, log = served
    gate = tmp_path / "gate"
    server.add(
        Turn(
            tool_calls=[
                ToolCallSpec(
                    "bash", {"command": f"until [ -e {gate} ]; do sleep 0.05; done; echo ok"}
                )
            ]
        ),
        Turn(text="Batch done."),
        Turn(text="Follow-up answered."),
    )
    tmux.start()
    tmux.keys("start", literal=True)
    tmux.keys("Enter")
    tmux.wait("$ until")
    tmux.keys("then this follow-up", literal=True)
    tmux.keys("C-Enter")  # CSI 13;5u: only because pi asked for modifyOtherKeys
    tmux.wait("Follow-up: then this follow-up")
    gate.touch()
    tmux.wait("Follow-up answered.")
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(requests) == 3
    assert _user_texts(requests[1]) == ["start"]  # not a steer: the batch turn got none
    assert _user_texts(requests[2]) == ["start", "then this follow-up"]
    tmux.keys("C-d")
    tmux.wait("PI-EXITED-0-1")


def test_sigterm_restores_the_terminal_in_tmux(tmux: Tmux) -> None:
    tmux.start()
    shell_pid = tmux("display", "-p", "-t", "e2e", "#{pane_pid}").strip()
    assert tmux("display", "-p", "-t", "e2e", "#{alternate_on}").strip() == "1"
    children = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", shell_pid], capture_output=True, text=True, check=True
    ).stdout.split()
    assert len(children) == 1
    subprocess.run(["kill", "-TERM", children[0]], check=True)
    tmux.wait("PI-EXITED-143-1")
    state = tmux("display", "-p", "-t", "e2e", "#{alternate_on} #{mouse_any_flag} #{cursor_flag}")
    assert state.split() == ["0", "0", "1"]  # alt screen off, mouse reporting off, cursor on
