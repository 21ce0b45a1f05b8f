"""The streamed-answer figure END TO END: the real ``pi`` in tmux against the fake server.

First the reference document of the issue (``../shared/fixtures/perf/long-answer-20000-words.md``:
headings, paragraphs, nested lists, fenced code) streamed as its README says (3 words per SSE
chunk, whitespace kept, no delay): the server's last chunk -> the document's last line on screen
(target <= 0.5 s) and pi's CPU over the whole answer (target <= 1 CPU-s); the TypeScript pi in
the same harness where it is installed. Then pi's own paragraph-and-heading document:

A 20,000-word Markdown answer is streamed as fast as the server can write it (about 6,700 SSE
chunks). Measured per run: the server's last chunk -> the answer's last line on the tmux screen
(``capture-pane`` polled every 5 ms), the whole stream's duration, and the CPU time the pi
process used meanwhile; the same answer in the plain REPL (``--plain``, in tmux) and through
``--mode json`` (the marker's event line read from pi's stdout). Also: resuming a 500-turn session with tool blocks (``pi -c``) until
its last turn is on screen.

Run: ``.venv/bin/python bench/bench_tui_tmux.py`` (``make bench``). Prints numbers; asserts
nothing. Skipped without tmux.
"""

from __future__ import annotations

import json
import os
import random
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

from tests.fakes.provider_server import FakeProviderServer  # noqa: E402
from tests.fakes.script import Turn  # noqa: E402

WORDS = 20_000
MARKER = "END-OF-THE-ANSWER"
RUNS = 3
PI = Path(sys.executable).parent / "pi"
TICKS = os.sysconf("SC_CLK_TCK")


def big_answer() -> str:
    """~20,000 words of Markdown: paragraphs, headings, bold and code, then the marker."""
    rng = random.Random(7)
    vocab = ["agent", "turn", "tool", "stream", "markdown", "queue", "steer", "`code`", "**bold**"]
    parts: list[str] = []
    for i in range(0, WORDS, 120):
        if i % 1200 == 0:
            parts.append(f"## Section {i // 1200}")
        parts.append(" ".join(rng.choice(vocab) for _ in range(120)))
    return "\n\n".join(parts) + f"\n\n{MARKER}\n"


class Pane:
    """pi in a private tmux server."""

    def __init__(self, home: Path, cwd: Path) -> None:
        self.socket = f"pi-bench-{uuid.uuid4().hex[:8]}"
        self.home, self.cwd = home, cwd

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True
        ).stdout

    def start(self, port: int, *flags: str) -> int:
        """Start pi; returns its pid once the footer shows the shell is ready (the TUI's
        context figure, or the plain REPL's key line)."""
        env = f"PI_HOME={self.home} PI_NO_LOCAL_PROBE=1 LITELLM_LOCAL_MODEL_COST_MAP=True"
        command = (
            f"cd {self.cwd} && exec env -u COLUMNS -u LINES {env} {PI} --model openai/fake "
            f"--api-base http://127.0.0.1:{port}/v1 --api-key bench-key {' '.join(flags)}"
        )
        self.tmux(
            "-f", "/dev/null", "new-session", "-d", "-s", "b", "-x", "120", "-y", "40", command
        )
        if "--plain" in flags:
            self.wait(lambda screen: "Ctrl+D quit" in screen, 20)
        else:
            self.wait(lambda screen: "ctx " in screen and "starting…" not in screen, 20)
        return int(self.tmux("display", "-p", "-t", "b", "#{pane_pid}").strip())

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "b")

    def wait(self, check, timeout: float, every: float = 0.005) -> float:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if check(self.screen()):
                return time.time()
            time.sleep(every)
        raise RuntimeError(f"not on screen in {timeout} s:\n{self.screen()}")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "b", *keys)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` and its threads so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def fixture_answer(tui: str) -> tuple[list[float], list[float], int]:
    """The reference document in ``tui`` ("pi" or "pi-ts"): (last chunk -> last line on screen,
    CPU of the agent's process tree from the prompt to then) per run, and the SSE chunk count."""
    from bench._tui_harness import (
        FIXTURE,
        openai_sse,
        pi_ts_tui,
        pi_tui,
        tree_cpu_seconds,
        word_chunks,
    )
    from bench._tui_harness import Pane as AgentPane

    assert FIXTURE is not None
    text = FIXTURE.read_text()
    last_line = [line for line in text.splitlines() if line.strip()][-1].lstrip("-*0123456789. ")
    events = openai_sse(word_chunks(text, 3))
    tails, cpus = [], []
    with tempfile.TemporaryDirectory() as top:
        for run in range(RUNS):
            cwd, home = Path(top) / f"run{run}", Path(top) / f"home{run}"
            cwd.mkdir()
            home.mkdir()
            with FakeProviderServer([Turn(raw=events)]) as server:
                if tui == "pi":
                    argv, env, ready = pi_tui(cwd, home, server.port)
                else:
                    argv, env, ready = pi_ts_tui(home, server.port)
                pane = AgentPane(cwd, env)
                try:
                    pid = pane.start(argv, lambda screen, ready=ready: ready in screen)
                    time.sleep(0.5)
                    before = tree_cpu_seconds(pid)
                    pane.keys("-l", "write the long answer")
                    pane.keys("Enter")
                    try:
                        seen = pane.wait(lambda screen: last_line in screen, 60)
                    except RuntimeError as exc:
                        print(f"  (a run lost: {str(exc).strip().splitlines()[-3:]})")
                        continue
                    cpus.append(tree_cpu_seconds(pid) - before)
                    (ended,) = server.stream_end_times
                    tails.append(seen - ended)
                finally:
                    pane.close()
    return tails, cpus, len(events)


def report_fixture() -> None:
    from bench._tui_harness import FIXTURE, pi_ts_available

    if FIXTURE is None:
        print(
            "the reference document (../shared/fixtures/perf) is not beside the checkout: skipped"
        )
        return
    tails, cpus, chunks = fixture_answer("pi")
    print(f"the reference 20,000-word document in tmux ({chunks} SSE chunks of 3 words):")
    if tails:
        print(
            f"  pi: last chunk -> last line on screen median {statistics.median(tails):.3f} s "
            f"(min {min(tails):.3f}, max {max(tails):.3f}; target <= 0.5 s), CPU "
            f"{statistics.median(cpus):.2f} s (target <= 1.0 s)"
        )
    if not pi_ts_available():
        print("  (pi-ts is not installed: .ci/run installs it)")
        return
    ts_tails, ts_cpus, _ = fixture_answer("pi-ts")
    if ts_tails:
        print(
            f"  pi-ts 0.73.1: last chunk -> last line on screen median "
            f"{statistics.median(ts_tails):.3f} s, CPU {statistics.median(ts_cpus):.2f} s"
        )
        if tails:
            print(
                f"  ratio pi / pi-ts: on screen {statistics.median(tails) / statistics.median(ts_tails):.2f}"
                f", CPU {statistics.median(cpus) / statistics.median(ts_cpus):.2f}"
            )


def streamed_answer(*flags: str) -> tuple[list[float], list[float], list[float], int]:
    """(tail latencies, stream durations, pi CPU seconds, SSE chunks) over :data:`RUNS` runs
    (``flags``: ``--plain`` for the plain REPL)."""
    text = big_answer()
    chunk = max(1, len(text) // 6700)
    tails, durations, cpus = [], [], []
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as top:
        for run in range(RUNS):
            # A folder per run: a pi killed with its tmux server may leave the sandbox's
            # placeholder mount points behind, which the next start would ask to trust.
            cwd = Path(top) / f"run{run}"
            cwd.mkdir()
            with FakeProviderServer([Turn(text=text, chunk_size=chunk)]) as server:
                pane = Pane(Path(home), cwd)
                try:
                    pid = pane.start(server.port, "--no-session", *flags)
                    before = cpu_seconds(pid)
                    pane.keys("-l", "write the long answer")
                    pane.keys("Enter")
                    try:
                        seen = pane.wait(lambda screen: MARKER in screen, 60)
                    except RuntimeError as exc:  # reported, not fatal: the other runs count
                        last = str(exc).strip().splitlines()[-3:]
                        print(
                            f"  (a run lost: the marker never reached the screen; it ended {last})"
                        )
                        continue
                    cpu = cpu_seconds(pid) - before
                    (started,) = server.request_times
                    (ended,) = server.stream_end_times
                    tails.append(seen - ended)
                    durations.append(ended - started)
                    cpus.append(cpu)
                finally:
                    pane.close()
    return tails, durations, cpus, len(text) // chunk + 3


def json_mode_answer() -> tuple[list[float], list[float]]:
    """``pi --mode json``, the same answer: (server's last chunk -> the marker's event line read
    from pi's stdout, pi CPU from its request to its exit) per run."""
    from bench._util import bench_env, pi_argv

    text = big_answer()
    chunk = max(1, len(text) // 6700)
    tails, cpus = [], []
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        env = bench_env(Path(home))
        for _ in range(RUNS):
            with FakeProviderServer([Turn(text=text, chunk_size=chunk)]) as server:
                argv = pi_argv(
                    "--model",
                    "openai/fake",
                    "--api-base",
                    server.openai_base_url,
                    "--api-key",
                    "bench-key",
                    "--no-session",
                    "--mode",
                    "json",
                    "write the long answer",
                )
                process = subprocess.Popen(
                    argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
                )
                assert process.stdout is not None
                seen, at_request = None, None
                for line in process.stdout:
                    if at_request is None and server.request_times:
                        at_request = cpu_seconds(process.pid)
                    if seen is None and MARKER.encode() in line:
                        seen = time.time()
                _, _, usage = os.wait4(process.pid, 0)
                (ended,) = server.stream_end_times
                if seen is not None:
                    tails.append(seen - ended)
                    cpus.append(usage.ru_utime + usage.ru_stime - (at_request or 0.0))
    return tails, cpus


def _line(data: dict) -> str:
    return json.dumps(data, separators=(",", ":")) + "\n"


def write_session(directory: Path, cwd: Path, turns: int) -> None:
    """A session file of ``turns`` turns, each a prompt, a bash call with output, an answer."""
    directory.mkdir(parents=True, exist_ok=True)
    ts = "2026-01-01T00:00:00.000Z"
    lines = [
        _line({"type": "session", "version": 1, "id": "benchres", "timestamp": ts, "cwd": str(cwd)})
    ]
    parent = None
    n = 0

    def entry(message: dict) -> None:
        nonlocal parent, n
        n += 1
        lines.append(
            _line(
                {
                    "type": "message",
                    "id": f"{n:08x}",
                    "parentId": parent,
                    "timestamp": ts,
                    "message": message,
                }
            )
        )
        parent = f"{n:08x}"

    output = "\n".join(f"line {i}: some output" for i in range(40))
    for i in range(turns):
        entry({"role": "user", "content": [{"type": "text", "text": f"Step {i}: continue."}]})
        call = {
            "type": "toolCall",
            "id": f"c{i}",
            "name": "bash",
            "arguments": {"command": f"make step{i}"},
        }
        entry({"role": "assistant", "content": [{"type": "text", "text": "Running it."}, call]})
        entry(
            {
                "role": "toolResult",
                "toolCallId": f"c{i}",
                "toolName": "bash",
                "content": [{"type": "text", "text": output}],
            }
        )
        final = f"Step {i} **done**: the build passed.\n\n- item a\n- item b"
        if i == turns - 1:
            final += f"\n\n{MARKER}"
        entry({"role": "assistant", "content": [{"type": "text", "text": final}]})
    (directory / "2026-01-01T00-00-00-000Z_benchres.jsonl").write_text("".join(lines))


def resumed_session() -> tuple[list[float], list[float]]:
    """(seconds from ``pi -c`` to the last of 500 resumed turns on screen, seconds from a bare
    ``pi`` to its ready footer) per run."""
    from pi_cli.shell.paths import sessions_dir

    times, bare = [], []
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        os.environ["PI_HOME"] = home
        write_session(sessions_dir(Path(cwd).resolve()), Path(cwd).resolve(), 500)
        with FakeProviderServer() as server:
            for _ in range(RUNS):
                for flags, into in ((("-c",), times), (("--no-session",), bare)):
                    pane = Pane(Path(home), Path(cwd))
                    try:
                        start = time.time()
                        pane.start(server.port, *flags)
                        marker = MARKER if flags == ("-c",) else "ctx "
                        seen = pane.wait(lambda screen, marker=marker: marker in screen, 30)
                        into.append(seen - start)
                    finally:
                        pane.close()
    return times, bare


def main() -> None:
    if shutil.which("tmux") is None:
        print("tmux is not installed: skipped")
        return
    report_fixture()
    tails, durations, cpus, chunks = streamed_answer()
    print(f"20,000-word answer in tmux ({chunks} SSE chunks, {len(tails)} of {RUNS} runs):")
    if tails:
        print(
            f"  server's last chunk -> last line on screen: median {statistics.median(tails):.3f}"
            f" s (min {min(tails):.3f}, max {max(tails):.3f})"
        )
        print(f"  stream (request -> last chunk): median {statistics.median(durations):.3f} s")
        print(f"  pi CPU during the run: median {statistics.median(cpus):.2f} s")
    tails, _, cpus, _ = streamed_answer("--plain")
    if tails:
        print(
            f"  the same in the plain REPL (pi --plain in tmux, {len(tails)} of {RUNS} runs): "
            f"last line on screen after {statistics.median(tails):.3f} s, "
            f"pi CPU {statistics.median(cpus):.2f} s"
        )
    tails, cpus = json_mode_answer()
    if tails:
        print(
            f"  the same through --mode json: the marker's line read {statistics.median(tails):.3f}"
            f" s after the server's last chunk, pi CPU from request to exit "
            f"{statistics.median(cpus):.2f} s"
        )
    resume, bare = resumed_session()
    print(
        f"pi -c of a 500-turn session with tool blocks, start -> last turn on screen: "
        f"median {statistics.median(resume):.3f} s; a bare start to ready: "
        f"{statistics.median(bare):.3f} s (the difference is the resume)"
    )


if __name__ == "__main__":
    main()
