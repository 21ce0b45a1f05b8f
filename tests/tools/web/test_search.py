"""web_search against a local server replaying the backends' answers (tests/fixtures/web_search)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from agent_core import AbortSignal, ToolError
from agent_core.net import NetworkConfig
from tools.web._search_backends import SearchBackend
from tools.web.search import WebSearchArgs, WebSearchConfig, WebSearchTool

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "web_search"
KEY = "tvly-SECRETKEY-0123456789"


class _Backend(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.seen.append((self.command, self.path, dict(self.headers), body))
        status, payload = self.server.answer
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = _reply
    do_POST = _reply


@contextmanager
def backend_server(status: int, payload: Any) -> Iterator[Any]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Backend)
    server.seen = []
    server.answer = (status, payload)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        server.url = f"http://127.0.0.1:{server.server_address[1]}"
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


async def run(tool: WebSearchTool, **args: Any) -> Any:
    return await tool.execute("c1", WebSearchArgs(**args), AbortSignal())


def tool_for(kind: str, url: str, key: str | None = None, **config: Any) -> WebSearchTool:
    backend = SearchBackend(kind, url, key, NetworkConfig(use_env=False))  # type: ignore[arg-type]
    return WebSearchTool(WebSearchConfig(backend, **config))


async def test_searxng_instance() -> None:
    with backend_server(200, fixture("searxng_search.json")) as server:
        result = await run(tool_for("searxng", server.url), query="httpx  proxy")
    method, path, headers, _ = server.seen[0]
    assert method == "GET" and urlsplit(path).path == "/search"
    assert parse_qs(urlsplit(path).query)["q"] == ["httpx proxy"]
    assert parse_qs(urlsplit(path).query)["format"] == ["json"]
    text = result.text
    assert "1. Proxies - HTTPX\n   https://www.python-httpx.org/advanced/proxies/" in text
    # HTML entities and tags become plain text; rows without an http(s) URL are dropped.
    assert "How to use a SOCKS proxy? · encode/httpx" in text
    assert 'pass proxy="socks5://localhost:1080"' in text and "<b>" not in text
    assert "javascript:" not in text and "without a URL" not in text
    assert [r["url"] for r in result.details["results"]] == [
        "https://www.python-httpx.org/advanced/proxies/",
        "https://github.com/encode/httpx/discussions/2993",
    ]


async def test_brave_sends_the_key_in_its_header_only() -> None:
    with backend_server(200, fixture("brave_web_search.json")) as server:
        result = await run(
            tool_for("brave", server.url + "/res/v1/web/search", "BSA-key-123456"),
            query="httpx proxy",
        )
    _, path, headers, _ = server.seen[0]
    assert headers["X-Subscription-Token"] == "BSA-key-123456"
    assert "BSA-key" not in path
    assert "HTTPX supports setting up HTTP proxies via the proxy parameter" in result.text
    assert "corporate proxy & custom CA" in result.text
    assert "BSA-key" not in result.text and "BSA-key" not in json.dumps(result.details)


async def test_brave_documented_answer() -> None:
    """Brave's own documented example, byte for byte (placeholders and a rich hint included)."""
    raw = (FIXTURES / "brave_documented_example.json").read_bytes()
    with backend_server(200, raw) as server:
        result = await run(
            tool_for("brave", server.url + "/res/v1/web/search", "BSA-key-123456"),
            query="python frameworks",
        )
    assert result.text == (
        "Results for 'python frameworks' (brave):\n\n"
        "1. Top Python Web Frameworks\n"
        "   https://example.com/python-frameworks\n"
        "   A comprehensive guide to Python web frameworks..."
    )
    assert [r["url"] for r in result.details["results"]] == [
        "https://example.com/python-frameworks"
    ]
    assert "BSA-key" not in result.text


async def test_tavily_recorded_answer_capped() -> None:
    with backend_server(200, fixture("tavily_basic_search.json")) as server:
        tool = tool_for("tavily", server.url + "/search", KEY)
        result = await run(tool, query="What is Pydantic AI?", max_results=2)
    _, _, headers, body = server.seen[0]
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert json.loads(body)["query"] == "What is Pydantic AI?" and KEY not in body.decode()
    assert len(result.details["results"]) == 2
    assert result.text.count("\n   https://") == 2
    # The first snippet is ~1700 characters: cut at the snippet cap.
    first = result.text.split("\n")[4]
    assert len(first) <= 3 + 400 and first.endswith("…")


async def test_domain_filters_and_the_shells_veto() -> None:
    with backend_server(200, fixture("tavily_basic_search.json")) as server:
        veto = WebSearchConfig(
            SearchBackend("tavily", server.url, KEY), domain_denied=lambda h: h == "www.youtube.com"
        )
        tool = WebSearchTool(veto)
        only = await run(tool, query="pydantic ai", allowed_domains=["medium.com"])
        blocked = await run(
            tool, query="pydantic ai", blocked_domains=["*.medium.com", "medium.com"]
        )
    assert {r["url"].split("/")[2] for r in only.details["results"]} == {"medium.com"}
    hosts = {r["url"].split("/")[2] for r in blocked.details["results"]}
    assert "medium.com" not in hosts and "www.youtube.com" not in hosts and hosts


@pytest.mark.parametrize(
    ("status", "payload", "expected"),
    [
        (401, {"detail": {"error": f"Unauthorized: key {KEY} is invalid"}}, "TAVILY_API_KEY"),
        (429, {"detail": {"error": "rate limited"}}, "HTTP 429"),
        (200, b"<html>not json</html>", "not JSON"),
        (200, {"results": "nonsense"}, "No results"),
    ],
)
async def test_failures_are_clear_and_keyless(status: int, payload: Any, expected: str) -> None:
    with backend_server(status, payload) as server:
        tool = tool_for("tavily", server.url, KEY)
        try:
            text = (await run(tool, query="anything")).text
        except ToolError as exc:
            text = str(exc)
    assert expected in text and KEY not in text and "\n" not in text.strip().split("\n")[0]


async def test_unconfigured_tool_says_how_to_configure() -> None:
    with pytest.raises(ToolError, match="webSearch.backend"):
        await run(WebSearchTool(), query="x y")


async def test_unreachable_backend() -> None:
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{held.getsockname()[1]}"
        with pytest.raises(ToolError, match="searxng could not be reached"):
            await run(tool_for("searxng", url), query="x y")


async def test_goes_through_the_proxy() -> None:
    from tests.fakes.proxy import FakeProxy
    from tests.fakes.tls import TEST_HOST

    with backend_server(200, fixture("searxng_search.json")) as server:
        port = server.url.rsplit(":", 1)[1]
        with FakeProxy(hosts={TEST_HOST: "127.0.0.1"}) as proxy:
            backend = SearchBackend(
                "searxng",
                f"http://{TEST_HOST}:{port}",
                None,
                NetworkConfig(proxy=proxy.url, use_env=False),
            )
            result = await run(WebSearchTool(WebSearchConfig(backend)), query="httpx proxy")
    assert result.details["results"]
    assert proxy.requests[0].startswith(f"GET http://{TEST_HOST}:{port}/search?")
