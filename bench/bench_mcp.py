"""MCP and ACP numbers (issue 18).

- one-shot seed scenario: no servers, two stdio servers that each take 1 s to initialize
  (started in parallel: the wait is ~1 s, not ~2 s), and a server that hangs (the wait is
  bounded by ``mcp.startupTimeoutS``, 2 s here);
- interactive: building the shell and its first request with those two slow servers configured
  (in process; the TUI draws its first frame before it builds the shell, so MCP cannot delay it);
- ACP: the seed scenario end to end, driven by the ACP TypeScript SDK's client (spawn ``pi
  --mode acp``, initialize, session/new, session/prompt, exit); needs node and the SDK in the
  npm cache (.ci/run installs it).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._util import bench_env, fake_pi_argv, median, run_measured
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import SEED_FINAL_TEXT, seed_script

ROGUE = str(Path(__file__).resolve().parents[1] / "tests" / "shell" / "mcp" / "rogue_server.py")
RUNS = 3
SLOW = {"command": sys.executable, "args": [ROGUE], "env": {"ROGUE_INIT_DELAY": "1"}}


def one_shot(project: Path, home: Path, servers: dict[str, object]) -> tuple[float, bool]:
    home.mkdir(exist_ok=True)
    settings = {"mcpServers": servers, "mcp": {"startupTimeoutS": 2}}
    (home / "settings.json").write_text(json.dumps(settings))
    walls, ok = [], True
    for _ in range(RUNS):
        with FakeProviderServer(seed_script()) as server:
            args = fake_pi_argv(
                server.openai_base_url,
                "--no-session",
                "explain this project",
            )
            wall, _, code, out = run_measured(args, cwd=project, env=bench_env(home))
            walls.append(wall)
            ok = ok and code == 0 and out.decode().strip() == SEED_FINAL_TEXT
    return median(walls), ok


async def interactive(project: Path, servers: dict[str, object]) -> tuple[float, float]:
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
    from pi_cli.shell.config.settings import Settings
    from tests.agent_core.scripted_stream import ScriptedStream, reply, text

    began = time.perf_counter()
    shell = CodingAgent(
        ShellOptions(
            cwd=project,
            stream_fn=ScriptedStream(reply(text("hi"))),
            approvals="interactive",
            settings=Settings.model_validate({"mcpServers": servers}),
            persist_session=False,
        )
    )
    built = time.perf_counter() - began
    await shell.submit("hello")
    first = time.perf_counter() - began
    await shell.aclose()
    return built, first


def first_frame(home: Path, cwd: Path, servers: dict[str, object]) -> tuple[float, float]:
    """Headless TUI: spawn -> first frame, spawn -> shell ready (bench_tui's child)."""
    from bench.bench_tui import FIRST_FRAME_CHILD

    home.mkdir(exist_ok=True)
    (home / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    env = {**os.environ, "PI_HOME": str(home), "PI_NO_LOCAL_PROBE": "1"}
    frames, ready = [], []
    for _ in range(RUNS):
        start = time.time()
        out = subprocess.run(
            [sys.executable, "-c", FIRST_FRAME_CHILD, str(cwd)],
            capture_output=True,
            text=True,
            env=env,
            cwd=Path(__file__).resolve().parents[1],
            check=True,
        ).stdout
        frame = next(x for x in out.splitlines() if x.startswith("FRAME"))
        done = next(x for x in out.splitlines() if x.startswith("READY"))
        frames.append(float(frame.split()[1]) - start)
        ready.append(float(done.split()[1]) - start)
    return median(frames), median(ready)


def acp_seed(project: Path, home: Path) -> float | None:
    cache = Path(os.environ.get("PI_TEST_NPM_CACHE") or Path.home() / ".cache" / "pi-test" / "npm")
    sdk = cache / "node_modules" / "@agentclientprotocol" / "sdk"
    if shutil.which("node") is None or not sdk.exists():
        return None
    (home / "settings.json").write_text("{}")
    totals = []
    for _ in range(RUNS):
        with FakeProviderServer(seed_script()) as server:
            command = fake_pi_argv(server.openai_base_url, "--mode", "acp")
            plan = {
                "command": command,
                "cwd": str(project),
                "steps": [{"op": "new"}, {"op": "prompt", "text": "explain this project"}],
            }
            client = Path(__file__).resolve().parents[1] / "tests" / "modes" / "acp" / "client.mjs"
            began = time.perf_counter()
            out = subprocess.run(
                ["node", str(client), str(sdk), json.dumps(plan)],
                capture_output=True,
                text=True,
                env=bench_env(home),
                timeout=60,
            )
            totals.append(time.perf_counter() - began)
            log = json.loads(out.stdout.strip().splitlines()[-1])
            assert log["responses"][-1]["result"]["stopReason"] == "end_turn", log
    return median(totals)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        (project / "package.json").write_text('{"name": "hello", "main": "hello.mjs"}\n')
        (project / "hello.mjs").write_text('console.log("Hello, world!");\n')
        base, ok0 = one_shot(project, root / "h0", {})
        two, ok2 = one_shot(project, root / "h2", {"a": SLOW, "b": SLOW})
        hang, ok3 = one_shot(
            project, root / "h3", {"stuck": {"command": sys.executable, "args": [ROGUE, "hang"]}}
        )
        print(f"one-shot seed, no MCP server      {base:.3f} s  [{'ok' if ok0 else 'FAILED'}]")
        print(
            f"  two servers, 1 s start each     {two:.3f} s  (+{two - base:.2f} s; parallel: ~+1 s, not +2 s) [{'ok' if ok2 else 'FAILED'}]"
        )
        print(
            f"  one hanging server (timeout 2s) {hang:.3f} s  (+{hang - base:.2f} s; bounded by mcp.startupTimeoutS) [{'ok' if ok3 else 'FAILED'}]"
        )
        none_built, none_first = asyncio.run(interactive(project, {}))
        built, first = asyncio.run(interactive(project, {"a": SLOW, "b": SLOW}))
        print(
            f"interactive shell build / first request: no servers {none_built * 1000:.0f} / {none_first * 1000:.0f} ms, "
            f"two slow servers {built * 1000:.0f} / {first * 1000:.0f} ms (not delayed)"
        )
        frame0, ready0 = first_frame(root / "f0", project, {})
        frame2, ready2 = first_frame(root / "f2", project, {"a": SLOW, "b": SLOW})
        print(
            f"TUI first frame / shell ready: no servers {frame0:.3f} / {ready0:.3f} s, "
            f"two slow servers {frame2:.3f} / {ready2:.3f} s"
        )
        acp = acp_seed(project, root / "h0")
        print(
            "ACP seed scenario end to end "
            + (f"{acp:.3f} s (budget 0.6 s)" if acp else "skipped (node or the ACP SDK missing)")
        )


if __name__ == "__main__":
    main()
