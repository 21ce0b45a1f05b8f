"""Real terminals for the server's end-to-end tests: tmux (its own socket per test), the
``pi`` console script, and ``pi ps`` read as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.harness import child_env

PI = Path(sys.executable).parent / "pi"


class Tmux:
    """One tmux server of this test (its own socket)."""

    def __init__(self, name: str) -> None:
        self.socket = f"{name}-{os.getpid()}"

    def __call__(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], check=True, capture_output=True, text=True
        ).stdout

    def start(self, command: str, cwd: Path) -> None:
        self("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "50", "-c", str(cwd), command)

    def screen(self) -> str:
        return self("capture-pane", "-p", "-J", "-S", "-300", "-t", "e2e")

    def type(self, text: str, *keys: str) -> None:
        if text:
            self("send-keys", "-t", "e2e", "-l", text)
        for key in keys:
            self("send-keys", "-t", "e2e", key)

    def wait_for(self, predicate: Callable[[str], bool], what: str, timeout: float = 60) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = self.screen()
            if predicate(text):
                return text
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; screen:\n{self.screen()}")

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


@pytest.fixture
def env(pi_home: Path) -> Iterator[dict[str, str]]:
    """The clients' environment; the on-demand server they start is stopped at the end."""
    environment = child_env(pi_home, TERM="xterm-256color")
    yield environment
    subprocess.run([str(PI), "serve", "--stop"], env=environment, capture_output=True, timeout=60)
    info = pi_home / "server" / "server.json"
    end = time.monotonic() + 30
    while info.exists() and time.monotonic() < end:
        time.sleep(0.05)
    if info.exists():  # never leave a server behind, even when stopping it failed
        pid = json.loads(info.read_text())["pid"]
        os.kill(pid, 9)


def pi(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PI), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=90
    )


def listed(env: dict[str, str], cwd: Path) -> list[dict[str, Any]]:
    done = pi(env, cwd, "ps", "--json")
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout)["sessions"])


def wait_listed(
    env: dict[str, str], cwd: Path, predicate: Callable[[dict[str, Any]], bool], what: str
) -> dict[str, Any]:
    end = time.monotonic() + 60
    while time.monotonic() < end:
        found = [s for s in listed(env, cwd) if predicate(s)]
        if found:
            return found[0]
        time.sleep(0.1)
    raise AssertionError(f"pi ps never showed {what}: {listed(env, cwd)}")


def user_texts(messages: list[dict[str, Any]]) -> list[str]:
    return [
        "".join(b.get("text", "") for b in m["content"]) for m in messages if m["role"] == "user"
    ]
