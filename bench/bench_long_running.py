"""The cost of long-running work while idle (issue 30): CPU per minute of an idle loop timer
and of an idle monitor, and the latency from a monitored line to the model's next request.

A shell (scripted model, RPC-like remote approvals, so its schedules are live) idles on its
event loop for WINDOW_S seconds, first with no schedule, then with 50 loops (every 1h: none
falls due in the window), then with 50 cron schedules (``0 * * * *``). Measured: the process's
CPU time over the window, scaled to a minute, and the event loop's pending timers (the
schedules add one). Then the monitor: a shell idles with 10 monitors on silent commands
(``sleep``; in the sandbox when bubblewrap works), CPU per minute as above; and a monitor on
``cat`` of a FIFO: the bench writes one line at a time (spaced beyond ``monitor.intervalS``) and
times it to the model's next request (a run woken while idle: batch wait, queue, input policy,
the run's start). Prints numbers.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions  # noqa: E402
from tests.agent_core.scripted_stream import ScriptedStream  # noqa: E402

WINDOW_S = 20.0


async def idle_cpu(shell: CodingAgent) -> tuple[float, int]:
    """CPU ms per minute while idle, and the loop's pending timers."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(0.2)  # let start-up work settle
    timers = len(loop._scheduled)  # type: ignore[attr-defined]
    cpu = time.process_time()
    await asyncio.sleep(WINDOW_S)
    used = time.process_time() - cpu
    return used * 1000 * 60 / WINDOW_S, timers


async def main() -> None:
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as work:
        import os

        os.environ["PI_HOME"] = home
        shell = CodingAgent(
            ShellOptions(cwd=Path(work), stream_fn=ScriptedStream(), approvals="remote")
        )
        shell.subscribe(lambda event: None)  # starts the schedules' timer
        base, base_timers = await idle_cpu(shell)
        for index in range(50):
            shell.schedules.create(f"check {index}", every_s=3600)
        loops, loop_timers = await idle_cpu(shell)
        shell.schedules.delete_all()
        for index in range(50):
            shell.schedules.create(f"cron {index}", cron="0 * * * *")
        crons, cron_timers = await idle_cpu(shell)
        await shell.aclose()
    print(f"idle shell, no schedule:   {base:6.2f} ms CPU/min, {base_timers} loop timers")
    print(f"idle, 50 loops (every 1h): {loops:6.2f} ms CPU/min, {loop_timers} loop timers")
    print(f"idle, 50 cron schedules:   {crons:6.2f} ms CPU/min, {cron_timers} loop timers")
    print(f"added by the schedules: {loops - base:+.2f} / {crons - base:+.2f} ms CPU per minute")


async def _monitor(shell: CodingAgent, command: str) -> None:
    from agent_core import AbortSignal

    tool = next(t for t in shell.tools if t.name == "monitor")
    args = tool.parameters.model_validate({"command": command, "description": "bench"})
    await tool.execute("bench", args, AbortSignal())


async def monitors() -> None:
    """An idle monitor's CPU per minute; a monitored line's latency to the next request."""
    import os

    from tests.agent_core.scripted_stream import reply, text

    samples = 20
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as work:
        os.environ["PI_HOME"] = home
        calls: list[float] = []
        stream = ScriptedStream(*[reply(text("ok")) for _ in range(samples + 5)])
        stream.on_call = lambda index, context: calls.append(time.perf_counter())
        settings = {"monitor": {"intervalS": 0.2}}
        from pi_cli.shell.config.settings import Settings

        shell = CodingAgent(
            ShellOptions(
                cwd=Path(work),
                stream_fn=stream,
                approvals="remote",
                settings=Settings.model_validate(settings),
            )
        )
        shell.subscribe(lambda event: None)
        base, _ = await idle_cpu(shell)
        for _ in range(10):
            await _monitor(shell, "sleep 3600")
        idle, timers = await idle_cpu(shell)
        fifo = Path(work) / "events"
        os.mkfifo(fifo)
        await _monitor(shell, f"cat {fifo}")
        fd = await asyncio.to_thread(os.open, fifo, os.O_WRONLY)
        latencies = []
        for index in range(samples):
            await shell.wait_idle()
            await asyncio.sleep(0.3)  # past the monitor's interval: one line, one delivery
            before = len(calls)
            start = time.perf_counter()
            os.write(fd, f"event {index}\n".encode())
            while len(calls) == before:
                await asyncio.sleep(0.001)
            latencies.append((calls[before] - start) * 1000)
        os.close(fd)
        await shell.wait_idle()
        sandboxed = shell.sandbox.status.active
        await shell.aclose()
    latencies.sort()
    where = "in the sandbox" if sandboxed else "no sandbox"
    print(f"idle shell, no monitor:    {base:6.2f} ms CPU/min")
    print(f"idle, 10 silent monitors:  {idle:6.2f} ms CPU/min, {timers} loop timers ({where})")
    print(f"added by the monitors: {idle - base:+.2f} ms CPU per minute")
    median, worst = latencies[len(latencies) // 2], latencies[-1]
    print(
        f"monitored line -> next model request (idle, woken run): median {median:.1f} ms, "
        f"max {worst:.1f} ms over {samples} lines (50 ms of it is the batch wait)"
    )


if __name__ == "__main__":
    asyncio.run(main())
    asyncio.run(monitors())
