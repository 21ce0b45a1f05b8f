"""When pi's terminal goes away (a killed tmux server, a closed window, a dropped ssh), pi and
everything it started — bubblewrap, the process helper, the commands — are gone, whether pi sat
idle at its prompt, was running a tool, or had a long transcript on screen, in the TUI, the
plain REPL and a one-shot run (issue 25). How fast is measured by ``bench/bench_exit.py``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import ToolCallSpec, Turn
from tests.fakes.provider_server import FakeProviderServer
from tests.tools.sandbox.procs import marker, tagged, wait_until

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(180),
]
PI = Path(sys.executable).parent / "pi"
Process = tuple[int, str, str]  # pid, start time (clock ticks since boot), command line


def process_tree(root: int) -> list[Process]:
    """``root`` and all its descendants now (bubblewrap's, the helper's, the commands')."""
    found: list[Process] = []
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            for task in os.listdir(f"/proc/{pid}/task"):
                children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
                todo += [int(child) for child in children]
        except OSError:
            continue  # ended meanwhile
        found.append((pid, stat[stat.rfind(")") + 2 :].split()[19], cmdline.strip()))
    return found


def still_running(process: Process) -> bool:
    """The same process (not a reused pid), alive and not a zombie."""
    pid, start, _ = process
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] == start and fields[0] not in ("Z", "X")


class Pane:
    """pi as the only process of a tmux pane, on a private tmux server."""

    def __init__(self, server: FakeProviderServer, tmp_path: Path, ui: str, tag: str) -> None:
        home, project = tmp_path / "home", tmp_path / "project"
        home.mkdir()
        project.mkdir()
        flags = {"plain": "--plain", "tui": "", "oneshot": "-p go"}[ui]
        command = (
            f"exec env PI_HOME={home} PI_NO_LOCAL_PROBE=1 PI_TEST_TAG={tag} {PI} {flags} "
            f"--model openai/fake --api-base {server.openai_base_url} --api-key x"
        )
        self.tmux = ["tmux", "-L", f"pi-exit-{uuid.uuid4().hex[:8]}", "-f", "/dev/null"]
        size = ["-x", "100", "-y", "30"]
        subprocess.run([*self.tmux, "new-session", "-d", "-s", "s", *size, "-c", str(project),
                        command], check=True)  # fmt: skip
        self.tag = tag

    def screen(self) -> str:
        out = subprocess.run([*self.tmux, "capture-pane", "-p", "-t", "s"], capture_output=True)
        return out.stdout.decode(errors="replace")

    def type(self, text: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", "s", "-l", text], check=True)
        subprocess.run([*self.tmux, "send-keys", "-t", "s", "Enter"], check=True)

    def pi_pid(self) -> int:
        found = self.find_pi()
        if found is None:
            raise AssertionError("pi is not running:\n" + self.screen())
        return found

    def find_pi(self) -> int | None:
        """pi's pid, or None while the pane's shell has not exec'd it yet (or it ended)."""
        for pid in tagged(self.tag):
            try:
                args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue  # a command that ended meanwhile
            if len(args) > 1 and args[1] == str(PI).encode():
                return pid
        return None

    def kill_server(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True, check=False)


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as fake:
        yield fake


def _script(server: FakeProviderServer, state: str, tag: str) -> None:
    if state == "busy":  # the terminal goes while a command runs
        call = ToolCallSpec("bash", {"command": f"sleep {tag}1"}, id="c1")
        server.add(Turn(tool_calls=[call]))
        return
    text = "done here"
    if state == "long":  # a long transcript on screen (the TUI unmounted it at exit)
        words = " ".join(f"word{n}" for n in range(4000))
        text = "\n\n".join(words[i : i + 600] for i in range(0, len(words), 600)) + "\n\ndone here"
    call = ToolCallSpec("bash", {"command": "true"}, id="c1")
    server.add(Turn(tool_calls=[call]), Turn(text=text))


@pytest.mark.parametrize(
    ("ui", "state"),
    [
        ("tui", "idle"),
        ("tui", "busy"),
        ("tui", "long"),
        ("plain", "idle"),
        ("plain", "busy"),
        ("oneshot", "busy"),
    ],
)
def test_nothing_of_pi_outlives_its_terminal(
    server: FakeProviderServer, tmp_path: Path, ui: str, state: str
) -> None:
    tag = marker()
    _script(server, state, tag)
    pane = Pane(server, tmp_path, ui, tag)
    try:
        if ui != "oneshot":
            ready = "›" if ui == "plain" else "interactive coding agent"
            assert wait_until(lambda: ready in pane.screen(), timeout=60), pane.screen()
            pane.type("go")
        if state == "busy":
            # A one-shot pane has no prompt to wait for: pi may not be exec'd at the first look.
            assert wait_until(lambda: pane.find_pi() is not None, timeout=60), pane.screen()
            running = lambda: any(f"{tag}1" in p[2] for p in process_tree(pane.pi_pid()))  # noqa: E731
            assert wait_until(running, timeout=60), pane.screen()
        else:
            assert wait_until(lambda: "done here" in pane.screen(), timeout=60), pane.screen()
        tree = process_tree(pane.pi_pid())
        helpers = [p for p in tree if "_proc_helper.py" in p[2]]
        assert helpers, f"no process helper in pi's tree: {tree}"  # the test sees what it checks
    finally:
        pane.kill_server()
    gone = lambda: not any(still_running(p) for p in tree)  # noqa: E731
    assert wait_until(gone, timeout=20), [p[2][:100] for p in tree if still_running(p)]
    assert tagged(tag) == []
