"""web_fetch against a real HTTP server on loopback serving saved real pages and hostile answers.

The server is on 127.0.0.1, which web_fetch refuses by default: each test allows exactly its
port (``WebServer.address``), so the default policy is what the other ports meet.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from agent_core import AbortSignal, ToolError
from tests.fakes.web_server import BIG_BYTES, WebServer
from tests.tools._helpers import run
from tools.web.fetch import WebFetchConfig, WebFetchTool


@pytest.fixture(scope="module")
def web() -> Iterator[WebServer]:
    with WebServer() as server:
        yield server


def allowed(web: WebServer, **config: object) -> WebFetchTool:
    return WebFetchTool(WebFetchConfig(allow_private=[web.address], **config))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "present", "absent"),
    [
        ("wikipedia", ["**Mozilla** is a [free-software]", "## History"], ["wgCanonicalNamespace"]),
        (
            "v8-blog",
            [
                "standalone Wasm",
                "# Outside the web: standalone WebAssembly binaries using Emscripten",
            ],
            ["<script", "gtag("],
        ),
        ("mozilla-1", ["Make your Firefox your own", "Awesome Bar"], ["<nav", "{"]),
        ("ietf-1", ["remoteStorage", "IETF Trust"], ["<pre", "<style"]),
    ],
)
async def test_saved_pages_become_markdown(
    web: WebServer, name: str, present: list[str], absent: list[str]
) -> None:
    result = await run(allowed(web), url=web.url(f"/page/{name}"))
    text = result.text
    assert text.startswith(f"URL: {web.url(f'/page/{name}')}\n(converted from HTML to Markdown)")
    for snippet in present:
        assert snippet in text, snippet
    for snippet in absent:
        assert snippet not in text, snippet
    assert result.details["kind"] == "html"


async def test_a_long_page_comes_in_windows_from_the_cache(web: WebServer) -> None:
    tool = allowed(web, max_bytes=300 * 1024)  # 300 lines of 1 KiB: windows of 50 KB
    url = web.url("/big")
    first = await run(tool, url=url)
    total = first.details["total_lines"]
    end = first.details["end_line"]
    assert end < total and f"Use offset={end + 1} to continue." in first.text
    before = len(web.requests)
    second = await run(tool, url=url, offset=end + 1)
    assert len(web.requests) == before  # paged from the cache, not fetched again
    assert second.details["start_line"] == end + 1
    last = first
    while "offset=" in last.text:
        last = await run(tool, url=url, offset=last.details["end_line"] + 1)
    assert last.details["end_line"] == total
    assert len(web.requests) == before
    with pytest.raises(ToolError, match="beyond the end"):
        await run(tool, url=url, offset=total + 5)


async def test_compressed_and_untyped_pages(web: WebServer) -> None:
    plain = await run(allowed(web), url=web.url("/page/v8-blog"))
    zipped = await run(allowed(web), url=web.url("/gzip/v8-blog"))
    bare = await run(allowed(web), url=web.url("/bare/v8-blog"))

    def body(text: str) -> str:  # the page, without the lines naming its URL
        return "\n".join(line for line in text.splitlines() if "/v8-blog" not in line)

    assert body(zipped.text) == body(plain.text)
    assert bare.details["kind"] == "html" and "standalone Wasm" in bare.text
    assert web.requests[-1]["headers"]["Accept-Encoding"] == "gzip, deflate"


async def test_text_types_come_back_as_they_are(web: WebServer) -> None:
    tool = allowed(web)
    text = (await run(tool, url=web.url("/text"))).text
    assert text.endswith("\nline one\nline two") and "offset=" not in text
    assert '"name": "pi"' in (await run(tool, url=web.url("/json"))).text
    assert "café crème" in (await run(tool, url=web.url("/latin1"))).text


async def test_a_pdf_and_an_image_are_refused_cleanly(web: WebServer) -> None:
    with pytest.raises(ToolError, match=r"is a PDF document; web_fetch reads only web pages"):
        await run(allowed(web), url=web.url("/pdf"))
    with pytest.raises(ToolError, match="image/png content"):
        await run(allowed(web), url=web.url("/image"))


async def test_a_redirect_to_another_loopback_port_is_refused(web: WebServer) -> None:
    with WebServer() as other:  # same host, a port nobody allowed
        target = other.url("/text")
        with pytest.raises(ToolError, match=r"refused to fetch from 127\.0\.0\.1.*loopback"):
            await run(allowed(web), url=web.url(f"/redirect?to={target}"))
        assert other.requests == []  # never connected


async def test_redirects_within_the_host_are_followed_others_reported(web: WebServer) -> None:
    tool = allowed(web)
    moved = await run(tool, url=web.url("/redirect?to=/page/v8-blog"))
    assert moved.details["url"] == web.url("/page/v8-blog") and "standalone Wasm" in moved.text
    count = len(web.requests)
    away = f"http://localhost:{web.port}/text"
    elsewhere = await run(tool, url=web.url(f"/redirect?to={away}"))
    assert len(web.requests) == count + 1  # the redirect only: the other host was not fetched
    assert elsewhere.details["redirect"] == away and "call web_fetch again" in elsewhere.text
    with pytest.raises(ToolError, match="more than 5 redirects"):
        await run(tool, url=web.url("/loop"))
    with pytest.raises(ToolError, match="only http and https"):
        await run(tool, url=web.url("/redirect?to=file:///etc/passwd"))


async def test_a_50_mb_body_is_cut(web: WebServer) -> None:
    started = time.monotonic()
    result = await run(allowed(web, max_bytes=2 * 1024 * 1024), url=web.url("/big"))
    assert result.details["truncated"] is True
    assert "cut; the rest is missing" in result.text
    assert len(result.text.encode()) <= 60 * 1024  # one window of the 2 MB read
    assert time.monotonic() - started < 20
    await asyncio.sleep(0.2)
    assert web.big_bytes_sent < BIG_BYTES / 2  # the client stopped reading long before 50 MB


async def test_a_compression_bomb_stops_at_the_cap(web: WebServer) -> None:
    tool = allowed(web, max_bytes=1024 * 1024)
    result = await run(tool, url=web.url("/bomb"))
    assert result.details["truncated"] is True


async def test_http_errors_and_silence(web: WebServer) -> None:
    with pytest.raises(ToolError, match="HTTP 404"):
        await run(allowed(web), url=web.url("/status/404"))
    started = time.monotonic()
    with pytest.raises(ToolError, match="within 1s"):
        await run(allowed(web, timeout_s=1.0), url=web.url("/hang"))
    assert time.monotonic() - started < 5


async def test_abort_ends_a_hanging_fetch(web: WebServer) -> None:
    cancel = AbortSignal()
    task = asyncio.ensure_future(run(allowed(web), cancel=cancel, url=web.url("/hang")))
    await asyncio.sleep(0.3)
    task.cancel()  # what the loop's run_abortable does on Esc
    with pytest.raises(asyncio.CancelledError):
        await task


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "localhost",
        "2130706433",  # 127.0.0.1 as one number
        "0x7f.1",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "0.0.0.0",
    ],
)
async def test_the_default_policy_refuses_loopback_in_any_spelling(
    web: WebServer, host: str
) -> None:
    before = len(web.requests)
    with pytest.raises(ToolError, match="refused to fetch"):
        await run(WebFetchTool(), url=f"http://{host}:{web.port}/text")
    assert len(web.requests) == before


@pytest.mark.parametrize(
    "address", ["10.1.2.3", "192.168.0.7", "169.254.169.254", "100.64.0.1", "fd00::1", "fe80::1"]
)
async def test_private_answers_from_dns_are_refused(address: str) -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return [address]

    tool = WebFetchTool(WebFetchConfig(resolver=resolve))
    with pytest.raises(ToolError, match=r"refused to fetch from internal\.example"):
        await run(tool, url="http://internal.example/admin")


async def test_a_name_with_a_public_and_a_private_answer_is_refused() -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return ["93.184.216.34", "10.0.0.1"]

    with pytest.raises(ToolError, match="private address"):
        await run(WebFetchTool(WebFetchConfig(resolver=resolve)), url="https://rebind.example/")


async def test_an_allowed_host_name_is_fetched_from_the_checked_address(web: WebServer) -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return ["127.0.0.1"] if host == "docs.test" else []

    tool = WebFetchTool(WebFetchConfig(allow_private=[f"docs.test:{web.port}"], resolver=resolve))
    result = await run(tool, url=f"http://docs.test:{web.port}/text")
    assert "line one" in result.text
    assert web.requests[-1]["headers"]["Host"] == f"docs.test:{web.port}"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://example.com/x", "only http and https"),
        ("http://user:pw@example.com/", "credentials"),
        ("http:///nohost", "names no host"),
        ("http://example.com:99999/", "not a valid URL"),
    ],
)
async def test_bad_urls(url: str, why: str) -> None:
    with pytest.raises(ToolError, match=why):
        await run(WebFetchTool(), url=url)


def test_allow_list_entries_are_checked() -> None:
    for bad in ["", "not a host!", "10.0.0.0/99", "host:0", "[::1]:70000"]:
        with pytest.raises(ValueError):
            WebFetchTool(WebFetchConfig(allow_private=[bad]))
    tool = WebFetchTool(WebFetchConfig(allow_private=["10.0.0.0/8", "[::1]:9000", "wiki.corp"]))
    assert len(tool.policy.entries) == 3


def test_titles() -> None:
    tool = WebFetchTool()
    assert tool.title({"url": "https://docs.python.org/3/"}) == "https://docs.python.org/3/"
    assert (
        tool.title({"url": "https://x.org/a", "offset": 200}) == "https://x.org/a (from line 200)"
    )
    assert tool.title({"url": 3}) == ""


def test_refusal_is_static_and_honours_the_allow_list() -> None:
    """Known without DNS: names pass (they are checked after approval, when resolved)."""
    from tools.web.fetch import WebFetchConfig, WebFetchTool

    tool = WebFetchTool()
    assert tool.refusal({"url": "https://example.com/x"}) is None
    assert tool.refusal({"url": "https://secret.attacker.example/"}) is None  # no lookup
    assert tool.refusal({"url": 5}) is None  # validation reports that one
    assert "loopback" in (tool.refusal({"url": "http://127.0.0.1:8080/"}) or "")
    assert "loopback" in (tool.refusal({"url": "http://localhost/"}) or "")
    allowed = WebFetchTool(WebFetchConfig(allow_private=["127.0.0.1:8080", "localhost"]))
    assert allowed.refusal({"url": "http://127.0.0.1:8080/"}) is None
    assert allowed.refusal({"url": "http://localhost/"}) is None
    assert "loopback" in (allowed.refusal({"url": "http://127.0.0.1:9999/"}) or "")
