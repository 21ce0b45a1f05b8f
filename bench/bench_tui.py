"""TUI benchmarks: first frame of `pi`, a 20,000-word streamed answer, key latency, resume.

Run: ``.venv/bin/python bench/bench_tui.py`` (``make bench``). Prints numbers; asserts nothing.
Targets: first frame <= 0.3 s; answer fully on screen <= 1.5 s after the last chunk; keys
answered in <= 16 ms (median) while streaming; a 500-turn resume drawn in <= 0.5 s. The same
stream measured end to end in tmux is ``bench_tui_tmux.py``.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WORDS = 20_000
WORDS_PER_CHUNK = 4

FIRST_FRAME_CHILD = r"""
import sys, time
from pathlib import Path
from pi_cli.args import LaunchArgs
from pi_cli.modes.common import try_build_shell
from pi_cli.shell.options import ShellOptions
from pi_cli.tui.app import PiApp, TuiOptions

# As `pi` does (pi_cli/tui/run.py): first frame first, the shell is built in a thread after it.
args = LaunchArgs(shell=ShellOptions(model="openai/fake", api_base="http://127.0.0.1:9/v1",
                  api_key="x", persist_session=False, cwd=Path(sys.argv[1])))
app = PiApp(None, TuiOptions(persist_theme=False, cwd=args.cwd), shell_factory=lambda: try_build_shell(args))

def first_frame() -> None:
    print(f"FRAME {time.time():.6f} litellm={'litellm' in sys.modules}", flush=True)
    app.set_interval(0.002, shell_ready)

def shell_ready() -> None:
    if app.shell is not None:
        print(f"READY {time.time():.6f}", flush=True)
        app.exit(0)

app.call_after_refresh(first_frame)
app.run(headless=True, size=(120, 40))
"""


def first_frame_headless(runs: int = 5) -> tuple[list[float], list[float]]:
    """Seconds from process spawn to the first refresh, and to the shell being ready (headless)."""
    times, ready = [], []
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        env = {
            **os.environ,
            "PI_HOME": home,
            "PI_NO_LOCAL_PROBE": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
        for _ in range(runs):
            start = time.time()
            out = subprocess.run(
                [sys.executable, "-c", FIRST_FRAME_CHILD, cwd],
                capture_output=True,
                text=True,
                env=env,
                cwd=ROOT,
                check=True,
            ).stdout
            line = next(li for li in out.splitlines() if li.startswith("FRAME"))
            times.append(float(line.split()[1]) - start)
            ready_line = next(li for li in out.splitlines() if li.startswith("READY"))
            ready.append(float(ready_line.split()[1]) - start)
            if "litellm=True" in line:
                print("  WARNING: litellm was imported before the first frame")
    return times, ready


def first_frame_tmux(runs: int = 3) -> list[float]:
    """Seconds from `tmux new-session ... pi` to the header being visible (real terminal)."""
    if shutil.which("tmux") is None:
        return []
    pi = Path(sys.executable).parent / "pi"
    times = []
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        for index in range(runs):
            session = f"pi-bench-{os.getpid()}-{index}"
            # Bare `pi`, as a user starts it: the model comes from settings and the key from the env.
            Path(home, "settings.json").write_text(
                '{"model": "openai/fake", "apiBase": "http://127.0.0.1:9/v1"}'
            )
            command = f"cd {cwd} && env PI_HOME={home} PI_NO_LOCAL_PROBE=1 OPENAI_API_KEY=x {pi}"
            start = time.monotonic()
            subprocess.run(
                ["tmux", "new-session", "-d", "-s", session, "-x", "120", "-y", "40", command],
                check=True,
            )
            try:
                while time.monotonic() - start < 10:
                    screen = subprocess.run(
                        ["tmux", "capture-pane", "-p", "-t", session],
                        capture_output=True,
                        text=True,
                    ).stdout
                    if "interactive coding agent" in screen:
                        times.append(time.monotonic() - start)
                        break
                    time.sleep(0.005)
            finally:
                subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    return times


class BigAnswer:
    """A StreamFn streaming ~20,000 words of Markdown in small chunks, like a fast provider."""

    def __init__(self) -> None:
        rng = random.Random(7)
        vocab = [
            "agent",
            "turn",
            "tool",
            "stream",
            "markdown",
            "queue",
            "steer",
            "`code`",
            "**bold**",
            "model",
        ]
        words = [rng.choice(vocab) for _ in range(WORDS)]
        self.chunks: list[str] = []
        for i in range(0, WORDS, WORDS_PER_CHUNK):
            piece = " ".join(words[i : i + WORDS_PER_CHUNK]) + " "
            if i and i % 120 == 0:
                piece = "\n\n" + ("## Section\n\n" if i % 1200 == 0 else "") + piece
            self.chunks.append(piece)
        self.text = "".join(self.chunks)
        self.last_chunk_at = 0.0

    def __call__(self, context: Any, options: Any) -> AsyncIterator[Any]:
        return self._run()

    async def _run(self) -> AsyncIterator[Any]:
        from agent_core import AssistantMessageBuilder, TextDelta, TextEnd, TextStart

        builder = AssistantMessageBuilder(api="bench", provider="bench", model="bench")
        start = TextStart(content_index=0)
        builder.apply(start)
        yield start
        for index, chunk in enumerate(self.chunks):
            if index % 16 == 0:
                await asyncio.sleep(0.001)  # network pacing: the loop gets to run between reads
            event = TextDelta(content_index=0, delta=chunk)
            builder.apply(event)
            yield event
        self.last_chunk_at = time.perf_counter()
        end = TextEnd(content_index=0, content=self.text)
        builder.apply(end)
        yield end
        yield builder.finish("stop")


async def streamed_answer() -> tuple[float, float, list[float]]:
    """(stream duration, seconds from last chunk to fully on screen, key latencies while streaming)."""
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
    from pi_cli.tui.app import PiApp, TuiOptions

    stream = BigAnswer()
    with tempfile.TemporaryDirectory() as cwd:
        shell = CodingAgent(
            ShellOptions(cwd=Path(cwd), stream_fn=stream, persist_session=False, no_tools=True)
        )
        app = PiApp(shell, TuiOptions(persist_theme=False, cursor_blink=False))
        latencies: list[float] = []
        async with app.run_test(size=(120, 40)) as pilot:
            for key in "go":
                await pilot.press(key)

            async def type_while_streaming() -> None:
                from textual import events

                while not shell.busy:
                    await asyncio.sleep(0.001)
                while not stream.last_chunk_at:
                    count = app.editor.text.count("x")
                    before = time.perf_counter()
                    app.post_message(events.Key("x", "x"))  # as the driver delivers a key press
                    while app.editor.text.count("x") == count:
                        await asyncio.sleep(0.0005)
                    latencies.append(time.perf_counter() - before)
                    await asyncio.sleep(0.05)

            typing = asyncio.create_task(type_while_streaming())
            started = time.perf_counter()
            await pilot.press("enter")
            await typing
            while True:
                turns = app.transcript.turns
                if app.is_settled and turns and turns[0].text == stream.text:
                    break
                await asyncio.sleep(0.005)
            await pilot.pause()  # one more refresh: it is painted
            done = time.perf_counter()
        return stream.last_chunk_at - started, done - stream.last_chunk_at, latencies


async def resumed_turns(turns: int = 500, runs: int = 3) -> tuple[list[float], list[float]]:
    """(wall seconds, CPU seconds) to draw a resumed session of ``turns`` turns with tool
    blocks (headless); CPU time is what a loaded machine does not inflate."""
    from agent_core import messages as M
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
    from pi_cli.tui import messages as m
    from pi_cli.tui.app import PiApp, TuiOptions
    from pi_cli.tui.document.turn import TurnBlock

    history: list[Any] = []
    for i in range(turns):
        call = M.ToolCall(id=f"c{i}", name="bash", arguments={"command": f"make step{i}"})
        output = "\n".join(f"line {n}: some output" for n in range(40))
        history += [
            M.UserMessage(content=f"Step {i}: continue."),
            M.AssistantMessage(content=[M.TextContent(text="Running it."), call]),
            M.ToolResultMessage(tool_call_id=f"c{i}", tool_name="bash", content=output),
            M.AssistantMessage(content=[M.TextContent(text=f"Step {i} **done**.\n\n- a\n- b")]),
        ]
    times, cpu = [], []
    with tempfile.TemporaryDirectory() as cwd:
        shell = CodingAgent(
            ShellOptions(cwd=Path(cwd), stream_fn=BigAnswer(), persist_session=False)
        )
        app = PiApp(shell, TuiOptions(persist_theme=False, cursor_blink=False))
        async with app.run_test(size=(120, 40)) as pilot:
            shell.agent.replace_messages(history)
            for _ in range(runs):
                started, cpu_started = time.perf_counter(), time.process_time()
                app.post_message(m.SessionSwitched("resume"))
                while not any(isinstance(b, TurnBlock) for b in app.transcript.view.entries):
                    await asyncio.sleep(0.001)
                await pilot.pause()  # laid out and painted
                times.append(time.perf_counter() - started)
                cpu.append(time.process_time() - cpu_started)
    return times, cpu


def main() -> None:
    print("first frame (headless, spawn -> first refresh):")
    frames, ready = first_frame_headless()
    print(f"  median {statistics.median(frames):.3f} s  min {min(frames):.3f} s  (target <= 0.3 s)")
    print(f"  shell ready (model, tools, session loaded): median {statistics.median(ready):.3f} s")
    tmux = first_frame_tmux()
    if tmux:
        print(
            f"first frame (tmux, spawn -> header on screen): median {statistics.median(tmux):.3f} s "
            f"min {min(tmux):.3f} s"
        )
    duration, tail, latencies = asyncio.run(streamed_answer())
    print(
        f"20,000-word answer: streamed in {duration:.2f} s; fully on screen {tail:.3f} s after the last chunk "
        "(target <= 1.5 s)"
    )
    resume, resume_cpu = asyncio.run(resumed_turns())
    print(
        f"resume of a 500-turn session with tool blocks drawn: median {statistics.median(resume):.3f} s "
        f"({statistics.median(resume_cpu):.3f} s CPU; target <= 0.5 s)"
    )
    if latencies:
        print(
            f"key latency while streaming: n={len(latencies)} median {statistics.median(latencies) * 1000:.1f} ms "
            f"max {max(latencies) * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main()
