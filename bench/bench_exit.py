"""How long pi and what it started outlive their terminal (issue 25).

pi runs as the only process of a tmux pane (a private tmux server) against the fake server:
the TUI and the plain REPL idle at their prompt, running a command, or with a long answer on
screen; a one-shot running a command. The whole tmux server is killed (as a closed window or a
dropped ssh ends a terminal) and the clock runs until no process of pi's tree (pi, bubblewrap,
the process helper, the command) is left. Target: all gone within 1 s. Prints numbers.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes import ToolCallSpec, Turn  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer  # noqa: E402

PI = Path(sys.executable).parent / "pi"
RUNS = 3
CASES = [("tui", "idle"), ("tui", "busy"), ("tui", "long"), ("plain", "idle"),
         ("plain", "busy"), ("plain", "long"), ("oneshot", "busy")]  # fmt: skip
Process = tuple[int, str]


def tree(root: int) -> list[Process]:
    found: list[Process] = []
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            for task in os.listdir(f"/proc/{pid}/task"):
                todo += [
                    int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
                ]
        except OSError:
            continue
        found.append((pid, stat[stat.rfind(")") + 2 :].split()[19]))
    return found


def running(process: Process) -> bool:
    try:
        stat = Path(f"/proc/{process[0]}/stat").read_text()
    except OSError:
        return False
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] == process[1] and fields[0] not in ("Z", "X")


def wait(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def one(ui: str, state: str, root: Path) -> tuple[float, int] | None:
    """(seconds until pi's whole tree is gone, how many processes it had), or None."""
    with FakeProviderServer() as server:
        if state == "busy":
            server.add(Turn(tool_calls=[ToolCallSpec("bash", {"command": "sleep 3600"}, id="c1")]))
        else:
            text = "done here"
            if state == "long":
                words = " ".join(f"word{n}" for n in range(20000))
                text = (
                    "\n\n".join(words[i : i + 800] for i in range(0, len(words), 800))
                    + "\n\n"
                    + text
                )
            call = ToolCallSpec("bash", {"command": "true"}, id="c1")
            server.add(Turn(tool_calls=[call]), Turn(text=text))
        run_dir = Path(tempfile.mkdtemp(dir=root))
        (run_dir / "home").mkdir()
        flags = {"plain": "--plain", "tui": "", "oneshot": "-p go"}[ui]
        command = (
            f"exec env PI_HOME={run_dir / 'home'} PI_NO_LOCAL_PROBE=1 {PI} {flags} "
            f"--model openai/fake --api-base {server.openai_base_url} --api-key x"
        )
        tmux = ["tmux", "-L", f"pi-bench-{uuid.uuid4().hex[:8]}", "-f", "/dev/null"]
        subprocess.run([*tmux, "new-session", "-d", "-s", "s", "-x", "120", "-y", "40", "-c",
                        str(run_dir), command], check=True)  # fmt: skip

        def screen() -> str:
            out = subprocess.run([*tmux, "capture-pane", "-p", "-t", "s"], capture_output=True)
            return out.stdout.decode(errors="replace")

        def pane_pid() -> int:
            out = subprocess.run([*tmux, "list-panes", "-t", "s", "-F", "#{pane_pid}"],
                                 capture_output=True, text=True)  # fmt: skip
            return int(out.stdout.split()[0])

        try:
            if ui != "oneshot":
                ready = "›" if ui == "plain" else "interactive coding agent"
                if not wait(lambda: ready in screen(), 60):
                    return None
                subprocess.run([*tmux, "send-keys", "-t", "s", "-l", "go"], check=True)
                subprocess.run([*tmux, "send-keys", "-t", "s", "Enter"], check=True)
            pid = pane_pid()
            if state == "busy":
                ok = wait(lambda: any(b"sleep\x003600" in _cmdline(p) for p, _ in tree(pid)), 60)
            else:
                ok = wait(lambda: "done here" in screen(), 120)
            if not ok:
                return None
            time.sleep(0.2)
            processes = tree(pid)
        finally:
            start = time.monotonic()
            subprocess.run([*tmux, "kill-server"], capture_output=True, check=False)
        gone = wait(lambda: not any(running(p) for p in processes), 30)
        elapsed = time.monotonic() - start
        for process in processes:
            if running(process):
                os.kill(process[0], 9)
        return (elapsed if gone else float("inf")), len(processes)


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def main() -> None:
    if shutil.which("tmux") is None:
        print("tmux is not installed: skipped")
        return
    print(f"pi's process tree after its terminal goes away (tmux kill-server), {RUNS} runs each:")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for ui, state in CASES:
            results = [r for r in (one(ui, state, Path(tmp)) for _ in range(RUNS)) if r]
            if not results:
                print(f"  {ui:<8} {state:<5} [FAILED to reach the state]")
                continue
            times = [r[0] for r in results]
            worst = max(worst, max(times))
            print(
                f"  {ui:<8} {state:<5} all {results[0][1]} processes gone after: median "
                f"{statistics.median(times):.2f} s, max {max(times):.2f} s"
            )
    print(
        f"  target: none alive 1 s later: worst {worst:.2f} s [{'met' if worst <= 1 else 'NOT met'}]"
    )


if __name__ == "__main__":
    main()
