"""Proxy overhead per request (not a timed test): one model call over TLS, direct vs through a
CONNECT proxy, with a new connection each time (the worst case: pooled connections pay the
CONNECT once) and over one pooled connection.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


async def _calls(base: str, network: object, runs: int, fresh: bool) -> list[float]:
    from agent_core import LlmContext, StreamOptions, user_message
    from agent_core.abort import AbortSignal
    from agent_core.providers import RetryConfig, make_stream_fn, resolve_model

    model = resolve_model("openai/gpt-4o", api_base=base, api_key="sk-bench", env={})
    fn = make_stream_fn(model, retry=RetryConfig(max_retries=0), network=network)  # type: ignore[arg-type]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        options = StreamOptions(model=model.id, cancel=AbortSignal())
        async for item in fn(LlmContext("s", [user_message("hi")]), options):
            final = item
        assert getattr(final, "stop_reason", "") == "stop", getattr(final, "error_message", "")
        times.append(time.perf_counter() - start)
        if fresh:
            await fn.aclose()  # type: ignore[attr-defined]
    await fn.aclose()  # type: ignore[attr-defined]
    return times


def main() -> int:
    from agent_core.net import NetworkConfig
    from tests.fakes import FakeProviderServer, Turn
    from tests.fakes.proxy import FakeProxy
    from tests.fakes.tls import TEST_HOST, ThrowawayCA

    runs = int(os.environ.get("BENCH_NET_RUNS", "60"))
    with tempfile.TemporaryDirectory() as folder:
        ca = ThrowawayCA(Path(folder))
        turns = [Turn(text="ok") for _ in range(8 * runs)]
        with FakeProviderServer(turns, tls=(ca.cert_file, ca.key_file)) as server:
            with FakeProxy(hosts={TEST_HOST: "127.0.0.1"}) as proxy:
                direct_cfg = NetworkConfig(ca_file=str(ca.ca_file), use_env=False)
                proxy_cfg = NetworkConfig(proxy=proxy.url, ca_file=str(ca.ca_file), use_env=False)
                direct = f"https://127.0.0.1:{server.port}/v1"
                proxied = f"https://{TEST_HOST}:{server.port}/v1"
                rows = []
                for fresh in (True, False):
                    d = asyncio.run(_calls(direct, direct_cfg, runs, fresh))
                    p = asyncio.run(_calls(proxied, proxy_cfg, runs, fresh))
                    rows.append((fresh, statistics.median(d), statistics.median(p)))
    print(f"one model call over TLS, median of {runs}")
    for fresh, d, p in rows:
        label = "new connection each call" if fresh else "pooled connection"
        print(
            f"  {label:<26} direct {d * 1000:6.2f} ms  via proxy {p * 1000:6.2f} ms  "
            f"overhead {(p - d) * 1000:+6.2f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
