"""``pi serve`` under load (issue 29): 50 sessions streaming at once, one client attached to each.

A small OpenAI-compatible streaming server (its own process) answers every request with chunks
that carry the time they were sent; ``pi serve`` (its own process) hosts 50 sessions; this
process attaches one WebSocket client to each and prompts them all at once. Reported:

- events/s: lines received by all clients per second of the streaming phase;
- latency to an attached client: receive time minus the send time of the newest chunk a line
  carries. ``message_end`` lines are sent as soon as the model's stream ends, so theirs is the
  whole path from the model's last chunk: pi parsing all 50 streams on one event loop (a local
  front end waits for that too), then the server; ``message_update`` lines are coalesced to
  ~30/s by design (pi's RPC shape), so theirs includes up to ~33 ms of that;
- the latency the server adds (in process, instrumented): from the shell's event to an attached
  client's socket, every line;
- the server's RSS: empty, with 50 idle sessions, at the streaming peak, after the runs, and
  after closing the sessions, twice (a second round must not grow it: nothing leaks), with its
  open file descriptors and threads.

Usage: ``python bench/bench_server.py [SESSIONS]`` (default 50).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._util import bench_env

if os.environ.get("PI_BENCH_REPO"):  # measure another checkout's pi (in process too)
    sys.path.insert(0, os.environ["PI_BENCH_REPO"])

from bench._server_scripts import CLIENTS, PROVIDER

SESSIONS = int(sys.argv[1]) if len(sys.argv) > 1 else 50
CHUNKS = 120  # per answer
CHUNK_DELAY_S = 0.01  # ~1.2 s of streaming per answer


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int | None = None) -> float:
    """User + system CPU of ``pid`` (this process and its threads when None)."""
    if pid is None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def newest_stamp(text: str) -> float | None:
    end = text.rfind(">")
    start = text.rfind("<", 0, end)
    if start < 0 or end < 0:
        return None
    try:
        return float(text[start + 1 : end])
    except ValueError:
        return None


async def client(uri: str, socket: str, token: str, stats: dict[str, Any]) -> None:
    from websockets.asyncio.client import unix_connect

    async with unix_connect(
        socket, uri, additional_headers={"Authorization": f"Bearer {token}"}, max_size=None
    ) as ws:
        await ws.recv()  # attached
        await ws.send(json.dumps({"type": "prompt", "id": "p", "message": "stream please"}))
        async for message in ws:
            now = time.time()
            stats["lines"] += 1
            stats["bytes"] += len(message)
            data = json.loads(message)
            kind = data.get("type")
            if kind in ("message_update", "message_end"):
                content = (data.get("message") or {}).get("content") or []
                texts = [b.get("text", "") for b in content if b.get("type") == "text"]
                stamp = newest_stamp(texts[-1]) if texts else None
                if stamp is not None:
                    stats["update" if kind == "message_update" else "end"].append(now - stamp)
            if kind == "agent_end":
                stats["last"] = now
                return


def http(socket: str, token: str) -> Any:
    import httpx

    return httpx.Client(
        base_url="http://localhost",
        transport=httpx.HTTPTransport(uds=socket),
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
    )


async def round_of(server: Any, project: Path, base: str, pid: int) -> dict[str, Any]:
    with http(server["socket"], server["token"]) as api:
        before = rss_mib(pid)
        ids = []
        for _ in range(SESSIONS):
            body = {
                "cwd": str(project),
                "model": "openai/m",
                "apiBase": base,
                "apiKey": "x",
                "tools": ["read"],
            }
            response = api.post("/api/sessions", json=body)
            response.raise_for_status()
            ids.append(response.json()["id"])
        idle = rss_mib(pid)
        stats: dict[str, Any] = {"lines": 0, "bytes": 0, "update": [], "end": [], "last": 0.0}
        peak = [idle]

        async def sample() -> None:
            while True:
                peak.append(rss_mib(pid))
                await asyncio.sleep(0.05)

        sampler = asyncio.ensure_future(sample())
        cpu_before = cpu_seconds(pid)
        start = time.time()
        await asyncio.gather(
            *(
                client(
                    f"ws://localhost/api/sessions/{sid}/ws?client=rpc",
                    server["socket"],
                    server["token"],
                    stats,
                )
                for sid in ids
            )
        )
        sampler.cancel()
        cpu = cpu_seconds(pid) - cpu_before
        after_runs = rss_mib(pid)
        for sid in ids:
            api.delete(f"/api/sessions/{sid}").raise_for_status()
        await asyncio.sleep(1.0)
        closed = rss_mib(pid)
    return {
        "before": before,
        "idle": idle,
        "peak": max(peak),
        "after_runs": after_runs,
        "closed": closed,
        "seconds": stats["last"] - start,
        "cpu": cpu,
        **stats,
    }


def _hub() -> Any:
    """The hub as pi serve makes it (with its heap policy where the checkout has one)."""
    from pi_cli.server.hub import SessionHub
    from pi_cli.shell import load_settings

    settings = load_settings(Path(os.sep))
    try:
        from pi_cli.server.heap import Heap
    except ImportError:  # an older checkout (PI_BENCH_REPO): its pi serve froze once, at start
        return SessionHub(settings)
    return SessionHub(settings, heap=Heap())


def _uvicorn_config(app: Any) -> Any:
    """pi serve's uvicorn options."""
    import uvicorn

    try:
        from pi_cli.server.serve import uvicorn_config
    except ImportError:  # an older checkout (PI_BENCH_REPO): the options its pi serve used
        return uvicorn.Config(
            app, ws="websockets-sansio", ws_per_message_deflate=False, lifespan="off",
            log_config=None, access_log=False,
        )  # fmt: skip
    return uvicorn_config(app)


async def added_latency(
    project: Path, base: str, home: Path
) -> tuple[list[tuple[float, str, float]], float]:
    """Emit -> receive for every line (in-process server, instrumented; clients apart), and
    the server's CPU seconds per line sent (this process: the server, the shells, the HTTP
    clients of the provider; not the clients' process). Each delay with its line's kind and
    when it arrived (seconds after the first line)."""
    import uvicorn

    from pi_cli.server import hosted as hosted_module
    from pi_cli.server.app import build_app
    from pi_cli.server.auth import Guard
    from pi_cli.server.serve import bind_unix
    from pi_cli.server.token import TokenSource
    from pi_cli.server.wire import OpenSession

    emitted: dict[str, list[float]] = {}
    original = hosted_module.HostedSession._publish

    def publish(self: Any, data: dict[str, Any]) -> None:
        if self.clients:
            emitted.setdefault(self.id, []).append(time.time())
        original(self, data)

    hosted_module.HostedSession._publish = publish  # type: ignore[method-assign]
    hub = _hub()
    tokens = TokenSource()
    socket_path = home / "bench.sock"
    sock = bind_unix(socket_path)
    server = uvicorn.Server(_uvicorn_config(Guard(build_app(hub), tokens, None)))
    gc.collect()
    gc.freeze()  # what pi serve does once its app is built (Heap.settle, or before it was)
    serving = asyncio.ensure_future(server.serve(sockets=[sock]))
    await asyncio.sleep(0.5)
    ids = []
    for _ in range(SESSIONS):
        body = OpenSession(
            cwd=str(project), model="openai/m", api_base=base, api_key="x", tools=["read"]
        )
        ids.append((await hub.open(body)).id)
    out = home / "records.json"
    cpu_before = cpu_seconds()
    clients = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        CLIENTS,
        str(socket_path),
        tokens.current(),
        str(out),
        stdin=asyncio.subprocess.PIPE,
    )
    await clients.communicate(json.dumps(ids).encode())
    cpu = cpu_seconds() - cpu_before
    server.should_exit = True
    await serving
    await hub.aclose()
    gc.unfreeze()
    hosted_module.HostedSession._publish = original  # type: ignore[method-assign]
    delays = []
    records = json.loads(out.read_text())
    first = min((received for _, _, received, _ in records), default=0.0)
    for index, k, received, kind in records:
        sent = emitted.get(ids[index], [])
        if k < len(sent):
            delays.append((received - sent[k], kind, received - first))
    return delays, cpu / max(1, sum(len(v) for v in emitted.values()))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir()
        (project / ".git").mkdir()
        env = bench_env(home)
        provider = subprocess.Popen(
            [sys.executable, "-c", PROVIDER, str(CHUNKS), str(CHUNK_DELAY_S)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert provider.stdout is not None
        port = int(provider.stdout.readline())
        serve = subprocess.Popen(
            [sys.executable, "-m", "pi_cli.cli", "serve"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            info_path = home / "server" / "server.json"
            while not info_path.exists():
                time.sleep(0.05)
            time.sleep(0.5)
            info = json.loads(info_path.read_text())
            server = {
                "socket": info["socket"],
                "token": (home / "server" / "token").read_text().strip(),
            }
            base = f"http://127.0.0.1:{port}/v1"
            empty = rss_mib(serve.pid)
            fd0, th0 = fds(serve.pid), threads(serve.pid)
            rounds = [asyncio.run(round_of(server, project, base, serve.pid)) for _ in range(2)]
            fd1, th1 = fds(serve.pid), threads(serve.pid)
            serve.terminate()
            serve.wait(30)
            os.environ.update(env)
            delays, cpu_per_line = asyncio.run(added_latency(project, base, home))
        finally:
            if serve.poll() is None:
                serve.terminate()
                serve.wait(30)
            provider.terminate()
            provider.wait(10)
    print(f"pi serve: {SESSIONS} sessions streaming at once, one attached client each (2 rounds)")
    print(f"  server RSS empty: {empty:.1f} MiB")
    for number, r in enumerate(rounds, 1):
        per_idle = (r["idle"] - r["before"]) / SESSIONS
        per_active = (r["peak"] - r["before"]) / SESSIONS
        print(
            f"  round {number}: {r['lines'] / r['seconds']:.0f} events/s to clients "
            f"({r['lines']} lines, {r['bytes'] / 1e6:.1f} MB in {r['seconds']:.2f} s); "
            f"server CPU {r['cpu']:.2f} s = {1e6 * r['cpu'] / max(1, r['lines']):.0f} us per line"
        )
        print(
            f"    latency, the model stream's last chunk -> message_end at the client (parsing 50 streams included): p50 {1000 * statistics.median(r['end']):.1f} ms, "
            f"p99 {1000 * percentile(r['end'], 0.99):.1f} ms"
        )
        print(
            f"    latency, message_update (incl. ~33 ms coalescing): p50 {1000 * statistics.median(r['update']):.1f} ms, "
            f"p99 {1000 * percentile(r['update'], 0.99):.1f} ms"
        )
        print(
            f"    RSS {r['before']:.1f} -> {r['idle']:.1f} idle ({per_idle:.2f} MiB/session) -> "
            f"{r['peak']:.1f} streaming ({per_active:.2f} MiB/session) -> {r['after_runs']:.1f} after "
            f"-> {r['closed']:.1f} MiB closed"
        )
    every = [d for d, _, _ in delays]
    print(
        f"  added latency (the shell's event -> an attached client's socket, every line): "
        f"p50 {1000 * statistics.median(every):.1f} ms, p99 {1000 * percentile(every, 0.99):.1f} ms, "
        f"max {1000 * max(every):.1f} ms ({len(every)} lines); "
        f"server CPU {1e6 * cpu_per_line:.0f} us per line"
    )
    for label, chosen in (
        ("message_update lines", [d for d, kind, _ in delays if kind == "message_update"]),
        ("other lines", [d for d, kind, _ in delays if kind != "message_update"]),
        ("after the first 0.5 s (streaming)", [d for d, _, at in delays if at > 0.5]),
    ):
        if chosen:
            print(
                f"    {label}: p50 {1000 * statistics.median(chosen):.1f} ms, "
                f"p99 {1000 * percentile(chosen, 0.99):.1f} ms ({len(chosen)})"
            )
    growth = rounds[1]["closed"] - rounds[0]["closed"]
    print(
        f"  leak check: RSS after round 2 vs round 1 {growth:+.1f} MiB; fds {fd0} -> {fd1}; threads {th0} -> {th1}"
    )


if __name__ == "__main__":
    main()
