"""Seed scenario against the fake provider: native path vs litellm path (not a timed test).

Each path runs in a fresh subprocess so import time counts. Reports time to first request
(process spawn -> first HTTP request at the server), total wall time, and peak RSS.
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
    spec, base, transport = sys.argv[1:4]
    model = resolve_model(spec, api_base=base, api_key="sk-bench", transport=transport)
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
        base = server.openai_base_url if protocol == "openai" else server.anthropic_base_url
        spec = "openai/gpt-4o" if protocol == "openai" else "anthropic/claude-sonnet-4-5"
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
        env.pop("PI_TRANSPORT", None)
        start = time.time()
        out = subprocess.run(
            [sys.executable, "-c", CHILD, spec, base, transport],
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
        for protocol in ("openai", "anthropic"):
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
