"""A real ``pi --plain`` in a tmux pane of its own server, for end-to-end tests of the REPL."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

PI = Path(sys.executable).parent / "pi"
needs_tmux = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(not PI.exists(), reason="the pi console script is not in this venv"),
    pytest.mark.timeout(180),
]


class Pane:
    """One tmux server with one pane running ``command`` (killed by :meth:`close`)."""

    def __init__(self, command: str, cwd: Path, width: int = 100, height: int = 40) -> None:
        self.socket = f"pi-plain-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        config = cwd.parent / f"{self.socket}.conf"  # the whole session stays in the scrollback
        config.write_text("set -g history-limit 20000\n")
        subprocess.run(
            ["tmux", "-L", self.socket, "-f", str(config), "new-session", "-d", "-s", "p"]
            + ["-x", str(width), "-y", str(height), "-c", str(cwd), command],
            check=True,
            capture_output=True,
        )

    def tmux(self, *args: str) -> str:
        """Run a tmux command on this pane's server."""
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], check=True, capture_output=True, text=True
        ).stdout

    def screen(self) -> str:
        """Everything in the pane and its scrollback (lines joined where they wrapped)."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "p")

    def rows(self) -> str:
        """The pane and its scrollback as the terminal shows them (wrapped rows kept apart)."""
        return self.tmux("capture-pane", "-p", "-S", "-", "-t", "p")

    def wait_for(
        self, predicate: Callable[[str], bool] | str | re.Pattern[str], timeout: float = 30
    ) -> str:
        """The screen once ``predicate`` holds for it (a string or a pattern: once it is on
        screen)."""
        if isinstance(predicate, str):
            test: Callable[[str], bool] = lambda s: predicate in s  # noqa: E731
        elif isinstance(predicate, re.Pattern):
            test = lambda s: predicate.search(s) is not None  # noqa: E731
        else:
            test = predicate
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = self.screen()
            if test(text):
                return text
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {predicate!r}; screen:\n{self.screen()}")

    def type(self, text: str, *keys: str) -> None:
        """Type ``text`` literally, then press ``keys`` (``Enter``, ``C-c``...)."""
        if text:
            self.tmux("send-keys", "-t", "p", "-l", text)
        for key in keys:
            self.tmux("send-keys", "-t", "p", key)

    def close(self) -> None:
        """Kill the server (and pi in it)."""
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def plain_command(home: Path, port: int, *extra: str, term: str = "xterm-256color") -> str:
    """The shell command starting ``pi --plain`` against the fake provider on ``port``."""
    return (
        f"env -u COLUMNS -u LINES PI_HOME={home} PI_NO_LOCAL_PROBE=1 TERM={term} {PI} --plain "
        "--no-session "
        f"--model openai/fake --api-base http://127.0.0.1:{port}/v1 --api-key x {' '.join(extra)}"
        "; echo PI-EXITED-$?; sleep 60"
    )
