"""HTTP client lifecycle (aclose, no leaked sockets) and proxy settings of the native transport."""

from __future__ import annotations

import asyncio
import gc
import os
import socket
import sys
import threading
import time
import warnings
from typing import Any

import pytest

from agent_core import AbortSignal, AssistantMessage, LlmContext, StreamOptions, user_message
from agent_core.providers import RetryConfig, make_stream_fn, resolve_model
from agent_core.providers._transport import is_local_endpoint
from tests.fakes import FakeProviderServer, Turn


async def _final(fn: Any) -> AssistantMessage:
    options = StreamOptions(model="m", cancel=AbortSignal())
    final = None
    async for item in fn(LlmContext(system_prompt="", messages=[user_message("hi")]), options):
        if isinstance(item, AssistantMessage):
            final = item
    assert final is not None
    return final


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts /proc/self/fd")
def test_aclose_releases_the_client_of_each_asyncio_run() -> None:
    runs = 6
    with FakeProviderServer([Turn(text="ok")] * (runs + 1)) as server:
        model = resolve_model(
            "openai/gpt-4o", api_base=server.openai_base_url, env={"OPENAI_API_KEY": "k"}
        )
        fn = make_stream_fn(model, retry=RetryConfig(max_retries=0))

        async def once() -> None:
            assert (await _final(fn)).text == "ok"
            await fn.aclose()
            assert fn.config._clients == {}

        asyncio.run(once())  # warm-up: imports, lazily opened files
        gc.collect()  # earlier tests' garbage must not count (its warnings, its sockets)
        before = _open_fds()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ResourceWarning)
            for _ in range(runs):
                asyncio.run(once())
            gc.collect()
        deadline = time.monotonic() + 3  # the server threads close their side asynchronously
        while _open_fds() > before and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _open_fds() <= before
        assert not [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]


async def test_aclose_without_a_client_is_harmless_and_the_fn_still_works() -> None:
    with FakeProviderServer([Turn(text="one"), Turn(text="two")]) as server:
        model = resolve_model(
            "openai/gpt-4o", api_base=server.openai_base_url, env={"OPENAI_API_KEY": "k"}
        )
        fn = make_stream_fn(model)
        await fn.aclose()
        assert (await _final(fn)).text == "one"
        await fn.aclose()
        assert (await _final(fn)).text == "two"  # a new client is opened on demand
        await fn.aclose()


@pytest.mark.parametrize(
    "url, local",
    [
        ("http://gpu-box:8000/v1", True),
        ("https://localhost:8443/v1", True),
        ("https://127.0.0.1/v1", True),
        ("https://[::1]:9/v1", True),
        ("https://api.openai.com/v1", False),
        (None, False),
    ],
)
def test_is_local_endpoint(url: str | None, local: bool) -> None:
    assert is_local_endpoint(url) is local


class _ProxyProbe:
    """A TCP listener recording the first request line it receives (a would-be proxy)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.first_line = b""
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(5)
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            self.first_line = conn.recv(4096).split(b"\r\n", 1)[0]
            conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")

    def close(self) -> None:
        self.sock.close()
        self.thread.join(timeout=5)


async def test_https_endpoint_honours_https_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    probe = _ProxyProbe()
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{probe.port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    try:
        model = resolve_model(
            "openai/gpt-4o", api_base="https://api.example.invalid/v1", env={"OPENAI_API_KEY": "k"}
        )
        fn = make_stream_fn(model, retry=RetryConfig(max_retries=0), connect_timeout_s=3)
        final = await _final(fn)
        await fn.aclose()
    finally:
        probe.close()
    assert final.stop_reason == "error"
    assert probe.first_line.startswith(b"CONNECT api.example.invalid:443")


async def test_local_endpoint_ignores_proxy_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    with FakeProviderServer([Turn(text="direct")]) as server:
        model = resolve_model(
            "openai/gpt-4o", api_base=server.openai_base_url, env={"OPENAI_API_KEY": "k"}
        )
        fn = make_stream_fn(model, retry=RetryConfig(max_retries=0))
        assert (await _final(fn)).text == "direct"
        await fn.aclose()


async def test_a_local_plain_http_endpoint_makes_no_ssl_context(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """OpenSSL's first context costs ~2 ms of a start; a local server never uses one."""
    import ssl

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("an SSL context was made for a plain-http endpoint")

    with FakeProviderServer([Turn(text="no tls"), Turn(text="again")]) as server:
        model = resolve_model(
            "openai/gpt-4o", api_base=server.openai_base_url, env={"OPENAI_API_KEY": "k"}
        )
        fn = make_stream_fn(model, retry=RetryConfig(max_retries=0))
        monkeypatch.setattr(ssl.SSLContext, "__new__", refuse)
        assert (await _final(fn)).text == "no tls"
        assert (await _final(fn)).text == "again"  # the kept connection, from the same pool
        monkeypatch.undo()
        await fn.aclose()
    assert len(server.requests) == 2
