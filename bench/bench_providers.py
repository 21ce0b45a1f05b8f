"""Seed scenario against the fake provider: native path vs litellm path (not a timed test).

Each path runs in a fresh subprocess so import time counts. Reports time to first request
(process spawn -> first HTTP request at the server), total wall time, and peak RSS. The
native path runs three wires: Chat Completions, Responses and Anthropic Messages; a warm
in-process loop then compares the two OpenAI wires per scenario once everything is imported.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import asyncio, json, resource, sys, time
from typing import Any
from pydantic import BaseModel
from agent_core import Agent, ToolResult
from agent_core.providers import make_stream_fn, resolve_model

class BashArgs(BaseModel):
    command: str

class ReadArgs(BaseModel):
    path: str

class Bash:
    name, description, parameters = "bash", "Run a command", BashArgs
    async def execute(self, tool_call_id, args, cancel, on_update=None):
        return ToolResult.of_text("package.json\nhello.mjs")

class Read:
    name, description, parameters = "read", "Read a file", ReadArgs
    async def execute(self, tool_call_id, args, cancel, on_update=None):
        return ToolResult.of_text('{"name": "hello"}' if args.path == "package.json" else 'console.log("hi")')

async def main() -> None:
    spec, base, transport, api = sys.argv[1:5]
    model = resolve_model(spec, api_base=base, api_key="sk-bench", transport=transport, openai_api=api)
    agent = Agent(make_stream_fn(model), model=model.id, tools=[Bash(), Read()])
    await agent.prompt("List files in the current directory, then tell me what this project is.")
    last = agent.state.messages[-1]
    assert last.stop_reason == "stop", last.error_message
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"done": time.time(), "rss_mib": rss_kib / 1024, "turns": len(agent.state.messages)}))

asyncio.run(main())
"""


def run_once(protocol: str, transport: str) -> dict[str, float]:
    from tests.fakes import FakeProviderServer, seed_script

    with FakeProviderServer(seed_script()) as server:
        base = server.anthropic_base_url if protocol == "anthropic" else server.openai_base_url
        spec = "anthropic/claude-sonnet-4-5" if protocol == "anthropic" else "openai/gpt-4o"
        api = "responses" if protocol == "responses" else "completions"
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
        env.pop("PI_TRANSPORT", None)
        start = time.time()
        out = subprocess.run(
            [sys.executable, "-c", CHILD, spec, base, transport, api],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
        )
        end = time.time()
        if out.returncode != 0:
            raise SystemExit(f"{transport}/{protocol} failed:\n{out.stderr[-2000:]}")
        result = json.loads(out.stdout.strip().splitlines()[-1])
        first = server.request_times[0]
    return {"first_request_s": first - start, "total_s": end - start, "rss_mib": result["rss_mib"]}


def main() -> int:
    runs = int(os.environ.get("BENCH_RUNS", "3"))
    rows = []
    for transport in ("native", "litellm"):
        protocols = (
            ("openai", "responses", "anthropic")
            if transport == "native"
            else ("openai", "anthropic")
        )
        for protocol in protocols:
            samples = [run_once(protocol, transport) for _ in range(runs)]
            rows.append(
                (
                    transport,
                    protocol,
                    *(
                        statistics.median(s[k] for s in samples)
                        for k in ("first_request_s", "total_s", "rss_mib")
                    ),
                )
            )
    print(f"seed scenario (4 turns) vs fake server, median of {runs} fresh processes")
    print(f"{'path':<9}{'protocol':<11}{'first request':>15}{'total wall':>12}{'peak RSS':>11}")
    for transport, protocol, first, total, rss in rows:
        print(f"{transport:<9}{protocol:<11}{first:>13.3f} s{total:>10.3f} s{rss:>7.0f} MiB")
    warm = warm_openai_wires(int(os.environ.get("BENCH_WARM_RUNS", "40")))
    print(f"warm seed scenario, in process, median of {len(warm['openai'])} runs each:")
    chat, responses = (statistics.median(warm[k]) for k in ("openai", "responses"))
    print(
        f"  chat completions {chat * 1000:7.2f} ms   responses {responses * 1000:7.2f} ms   "
        f"({(responses / chat - 1) * 100:+.1f}%)"
    )
    return 0


def warm_openai_wires(runs: int) -> dict[str, list[float]]:
    """Seconds per seed scenario over each OpenAI wire, interleaved, after a warm-up run."""
    import asyncio

    from tests.agent_core.providers.seed import run_seed

    times: dict[str, list[float]] = {"openai": [], "responses": []}

    async def loop() -> None:
        for protocol in times:
            await run_seed(protocol, "native")  # warm-up: imports, first connection
        for _ in range(runs):
            for protocol, samples in times.items():
                start = time.perf_counter()
                await run_seed(protocol, "native")
                samples.append(time.perf_counter() - start)

    asyncio.run(loop())
    return times


if __name__ == "__main__":
    raise SystemExit(main())
