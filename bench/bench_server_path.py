"""``pi serve``'s own event path, alone (issue 29): what the server adds per line, without the
model stream, the HTTP client or the socket.

A session's shell events (a 600-update answer that grows to ~5 KB, then its ends) go into a
:class:`~pi_cli.server.hosted.HostedSession` with 1 and 5 clients attached; each client's pump
sends to a no-op. Every update is a line (the 30/s coalescing is off), so this is the cost of
the RPC shape, the serialisation (once for all clients), the backlog, the fan-out and the
clients' queues per line. Reported: CPU per event and per line sent (median of 5 runs).

Usage: ``python bench/bench_server_path.py [UPDATES]`` (default 600); ``PI_BENCH_REPO`` measures
another checkout's pi.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(os.environ.get("PI_BENCH_REPO") or Path(__file__).resolve().parents[1])
sys.path.insert(0, str(REPO))
os.environ.setdefault("PI_HOME", tempfile.mkdtemp(prefix="pi-bench-home-"))
os.environ["PI_NO_LOCAL_PROBE"] = "1"

UPDATES = int(sys.argv[1]) if len(sys.argv) > 1 else 600


class _NoModel:
    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("no model is called here")


async def one_run(clients: int, updates: int) -> tuple[float, int]:
    """CPU seconds for one answer's events, and the lines the clients were sent."""
    from agent_core import (
        AgentEnd,
        AgentStart,
        AssistantMessage,
        MessageEnd,
        MessageStart,
        MessageUpdate,
        TextContent,
        TextDelta,
        TurnEnd,
        TurnStart,
    )
    from pi_cli.server.channel import ClientChannel
    from pi_cli.server.hosted import HostedSession
    from pi_cli.shell import CodingAgent, ShellOptions

    project = Path(tempfile.mkdtemp(prefix="pi-bench-project-"))
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=_NoModel(), persist_session=False))
    hosted = HostedSession(shell)
    hosted.output.events.interval = 0.0  # every update is a line
    sent = [0]

    async def send(text: str) -> None:
        sent[0] += 1

    pumps = []
    for _ in range(clients):
        channel = ClientChannel("rpc")
        hosted.attach(channel)
        pumps.append(asyncio.ensure_future(channel.pump(send)))
    await asyncio.sleep(0)
    partial = AssistantMessage(content=[TextContent(text="")], model="m")
    updates_made = [
        MessageUpdate(
            message=partial, assistant_message_event=TextDelta(content_index=0, delta=f"word{i} ")
        )
        for i in range(updates)
    ]  # built before the clock starts: the model's side is not measured
    start = time.process_time()
    for event in (AgentStart(), TurnStart(), MessageStart(message=partial)):
        hosted._event(event)
    for i, update in enumerate(updates_made):
        partial.content[0].text += f"word{i} "  # type: ignore[union-attr]
        hosted._event(update)
        if i % 10 == 0:
            await asyncio.sleep(0)  # the pumps run, as between a stream's chunks
    for event in (
        MessageEnd(message=partial),
        TurnEnd(message=partial, tool_results=[]),
        AgentEnd(messages=[partial]),
    ):
        hosted._event(event)
    for _ in range(20):
        await asyncio.sleep(0)
    cpu = time.process_time() - start
    for pump in pumps:
        pump.cancel()
    await shell.aclose()
    return cpu, sent[0]


def main() -> None:
    asyncio.run(one_run(1, 50))  # imports and first-use costs
    print(f"pi serve's own event path ({UPDATES} updates, ~{UPDATES * 8 / 1000:.0f} KB answer)")
    for clients in (1, 5):
        runs = [asyncio.run(one_run(clients, UPDATES)) for _ in range(5)]
        cpu = statistics.median(c for c, _ in runs)
        lines = runs[0][1]
        print(
            f"  {clients} client(s): {1e6 * cpu / UPDATES:.1f} us CPU per event, "
            f"{1e6 * cpu / lines:.1f} us per line sent ({lines} lines)"
        )


if __name__ == "__main__":
    main()
