"""ACP: ``initialize`` sent -> the seed prompt answered, with a stdlib JSON-RPC client (issue 25).

The client (perf-3's method) spawns ``pi --mode acp`` against the fake server, sends
``initialize`` (protocol 1, no fs, no terminal) at once, then ``session/new`` and
``session/prompt`` (the seed scenario: bash, two reads, an answer), answers any
``session/request_permission`` with the first allow option and any other request with -32601,
then closes stdin and waits for the exit. Reported: each phase from the spawn, initialize ->
prompt answered, peak RSS and CPU (``wait4``), and ``import acp`` alone. Target:
initialize -> seed done <= 0.5 s. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._util import bench_env, fake_pi_argv  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer  # noqa: E402
from tests.fakes.script import SEED_FINAL_TEXT, seed_script  # noqa: E402

RUNS = 7


class Client:
    """One JSON object per line over the agent's stdin/stdout."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.next_id = 0
        self.text: list[str] = []

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        wanted = self.next_id
        self.send({"jsonrpc": "2.0", "id": wanted, "method": method, "params": params})
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"pi exited during {method}")
            message = json.loads(line)
            if message.get("id") == wanted and "method" not in message:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]  # type: ignore[no-any-return]
            self._other(message)

    def _other(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method == "session/update":
            update = message["params"]["update"]
            if update.get("sessionUpdate") == "agent_message_chunk":
                self.text.append(update["content"].get("text", ""))
        elif method == "session/request_permission" and "id" in message:
            options = message["params"]["options"]
            chosen = next(o for o in options if o["kind"] in ("allow_always", "allow_once"))
            result = {"outcome": {"outcome": "selected", "optionId": chosen["optionId"]}}
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        elif "id" in message and method is not None:
            error = {"code": -32601, "message": "not supported"}
            self.send({"jsonrpc": "2.0", "id": message["id"], "error": error})


def one_run(project: Path, env: dict[str, str]) -> dict[str, float] | None:
    with FakeProviderServer(seed_script()) as server:
        argv = fake_pi_argv(server.openai_base_url, "--no-session", "--mode", "acp")
        spawn = time.perf_counter()
        process = subprocess.Popen(
            argv, cwd=project, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = Client(process)
        try:
            capabilities = {
                "fs": {"readTextFile": False, "writeTextFile": False},
                "terminal": False,
            }
            sent = time.perf_counter()
            client.call("initialize", {"protocolVersion": 1, "clientCapabilities": capabilities})
            initialized = time.perf_counter()
            session = client.call("session/new", {"cwd": str(project), "mcpServers": []})
            created = time.perf_counter()
            prompt = [{"type": "text", "text": "explain this project"}]
            client.call("session/prompt", {"sessionId": session["sessionId"], "prompt": prompt})
            done = time.perf_counter()
            assert process.stdin is not None
            process.stdin.close()
            _, _, usage = os.wait4(process.pid, 0)
        except (RuntimeError, OSError, ValueError):
            process.kill()
            process.wait()
            return None
    if "".join(client.text).strip() != SEED_FINAL_TEXT:
        return None
    return {
        "initialize": initialized - spawn,
        "session/new": created - spawn,
        "prompt done": done - spawn,
        "initialize -> done": done - sent,
        "rss": usage.ru_maxrss / 1024,
        "cpu": usage.ru_utime + usage.ru_stime,
    }


def import_acp() -> float:
    code = "import time; t = time.perf_counter(); import acp; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def import_acp_as_pi_does() -> float:
    code = (
        "import time; t = time.perf_counter(); import pi_cli.modes.acp.sdk; "
        "print(time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        (project / "package.json").write_text('{"name": "hello", "main": "hello.mjs"}\n')
        (project / "hello.mjs").write_text('console.log("Hello, world!");\n')
        env = bench_env(root / "home")
        runs = [r for r in (one_run(project, env) for _ in range(RUNS)) if r is not None]
    if not runs:
        print("ACP seed scenario: [FAILED]")
        return
    print(f"ACP seed scenario, stdlib JSON-RPC client ({len(runs)} of {RUNS} runs ok), medians:")
    for key in ("initialize", "session/new", "prompt done"):
        print(f"  spawn -> {key} answered: {statistics.median(r[key] for r in runs):.3f} s")
    total = statistics.median(r["initialize -> done"] for r in runs)
    print(
        f"  peak RSS {statistics.median(r['rss'] for r in runs):.0f} MiB, CPU "
        f"{statistics.median(r['cpu'] for r in runs):.2f} s"
    )
    plain = statistics.median(import_acp() for _ in range(3))
    ours = statistics.median(import_acp_as_pi_does() for _ in range(3))
    print(
        f"  import acp: {plain:.3f} s as it is, {ours:.3f} s as pi imports it (agent_core included)"
    )
    print(
        f"  target: initialize -> seed done <= 0.5 s: {total:.3f} s [{'met' if total <= 0.5 else 'NOT met'}]"
    )


if __name__ == "__main__":
    main()
