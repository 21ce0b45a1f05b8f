"""The cost of long-running work while idle (issue 30): CPU per minute of an idle loop timer.

A shell (scripted model, RPC-like remote approvals, so its schedules are live) idles on its
event loop for WINDOW_S seconds, first with no schedule, then with 50 loops (every 1h: none
falls due in the window), then with 50 cron schedules (``0 * * * *``). Measured: the process's
CPU time over the window, scaled to a minute, and the event loop's pending timers (the
schedules add one). Prints numbers.
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


if __name__ == "__main__":
    asyncio.run(main())
