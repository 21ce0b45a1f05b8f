"""The ``web_fetch`` tool: a web page as Markdown (or a text file as it is), a window at a time.

The page is fetched once (:mod:`tools.web._http`: timeouts, at most 5 same-host redirects, a
size cap, content types checked, public addresses only unless allowed) and converted
(:mod:`tools.web._markdown`); the result is kept for a while so ``offset`` pages through it
without fetching again. Whether a URL may be fetched at all is the permission engine's
question (``WebFetch(domain:...)`` rules), asked before the call runs.
"""

import asyncio
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from msgspec import Meta

from agent_core import AbortSignal, ToolArguments, ToolBase, ToolError, ToolResult
from agent_core.tool import OnToolUpdate
from tools._present import int_arg, str_arg, with_suffix
from tools._truncate import DEFAULT_MAX_BYTES, format_size, split_lines, truncate_head
from tools.web._guard import AddressPolicy, Refused, Resolver, check_url
from tools.web._guard import parse_entry as parse_entry
from tools.web._http import Fetched, FetchLimits, fetch, readable_type

if TYPE_CHECKING:
    from agent_core.net import NetworkConfig  # ssl and ipaddress load with the first fetch

DEFAULT_MAX_FETCH_BYTES = 5 * 1024 * 1024
DEFAULT_TIMEOUT_S = 30.0
WINDOW_LINES = 1000
CACHE_TTL_S = 15 * 60
CACHE_ENTRIES = 16
_HTML = ("text/html", "application/xhtml+xml")


class WebFetchArgs(ToolArguments):
    """Arguments of the web_fetch tool."""

    url: Annotated[
        str, Meta(min_length=1, max_length=4000, description="The http(s) URL to fetch, complete")
    ]
    offset: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        Meta(description="Line of the converted page to start from (1-based), to read on"),
    ] = None


@dataclass
class WebFetchConfig:
    """How the tool fetches (settings ``webFetch``; tests inject their own server's address).

    ``allow_private``: addresses, networks or host names that may be private (see
    :mod:`tools.web._guard`); ``resolver`` replaces DNS (tests).
    """

    allow_private: Sequence[str] = ()
    max_bytes: int = DEFAULT_MAX_FETCH_BYTES
    timeout_s: float = DEFAULT_TIMEOUT_S
    resolver: Resolver | None = None
    network: "NetworkConfig | None" = None  # its trust only, never its proxy (docs/network.md)


@dataclass
class _Page:
    url: str
    kind: str
    text: str
    truncated: bool
    fetched_at: float = field(default_factory=time.monotonic)


class WebFetchTool(ToolBase):
    """Fetch a URL and return its content as Markdown, paged."""

    name = "web_fetch"
    summary = "Fetch a web page (as Markdown) or a text file from an http(s) URL, paged"
    guideline = (
        "Use web_fetch to read documentation or pages the user points you to; page through "
        "long ones with offset instead of fetching again."
    )
    description = (
        "Fetch an http(s) URL and return its content: HTML pages are converted to Markdown "
        "(the main content, with a short header of title and date); plain text, JSON, XML and "
        "similar are returned as they are. PDFs, images and other binary files are refused. "
        f"At most {WINDOW_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB are returned per call; "
        "the note at the end gives the offset to continue from, and pages are cached for 15 "
        "minutes, so continuing does not fetch again. A redirect to another host is not "
        "followed: the result names the new URL, fetch it with a new call. Private and local "
        "network addresses are refused."
    )
    parameters = WebFetchArgs

    def __init__(self, config: WebFetchConfig | None = None) -> None:
        self.config = config or WebFetchConfig()
        self.policy = AddressPolicy(self.config.allow_private)
        self._cache: OrderedDict[str, _Page] = OrderedDict()

    def title(self, args: Mapping[str, Any]) -> str:
        """The URL (``url:offset`` when paging on)."""
        url = str_arg(args, "url")
        if url is None:
            return ""
        offset = int_arg(args, "offset")
        return with_suffix(url.strip(), f" (from line {offset})" if offset else "")

    def refusal(self, args: Mapping[str, Any]) -> str | None:
        """Why the call would be refused whatever the user answers (a bad scheme, an address
        that is not public in any spelling, ``localhost``), known without a DNS lookup; the
        permission gate refuses such a call before asking. Names are resolved and checked
        again when the request is made."""
        url = str_arg(args, "url")
        if url is None:
            return None
        try:
            _, host, port = check_url(url)
            self.policy.refuse_literal(host, port)
        except Refused as exc:
            return str(exc)
        return None

    async def execute(
        self,
        tool_call_id: str,
        args: WebFetchArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Fetch (or take from the cache) and return one window."""
        if cancel.aborted:
            raise ToolError("Aborted")
        url = args.url.strip()
        page = self._cached(url)
        if page is None:
            try:
                page = await self._load(url)
            except Refused as exc:
                raise ToolError(str(exc)) from None
            if page.kind == "redirect":
                return ToolResult.of_text(page.text, details={"url": url, "redirect": page.url})
            self._remember(url, page)
        return _window(page, args.offset or 1)

    # ------------------------------------------------------------------ fetching

    def _cached(self, url: str) -> _Page | None:
        page = self._cache.get(url)
        if page is None or time.monotonic() - page.fetched_at > CACHE_TTL_S:
            self._cache.pop(url, None)
            return None
        self._cache.move_to_end(url)
        return page

    def _remember(self, url: str, page: _Page) -> None:
        self._cache[url] = page
        while len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)

    async def _load(self, url: str) -> _Page:
        limits = FetchLimits(self.config.max_bytes, self.config.timeout_s)
        fetched = await fetch(
            url, self.policy, limits, self.config.resolver, network=self.config.network
        )
        if fetched.redirect is not None:
            text = (
                f"{url} redirects (HTTP {fetched.status}) to another host: {fetched.redirect}\n"
                "It was not followed. To read it, call web_fetch again with that URL."
            )
            return _Page(fetched.redirect, "redirect", text, False)
        if fetched.status >= 400:
            raise ToolError(f"HTTP {fetched.status} {fetched.reason} for {fetched.url}")
        kind = _kind(fetched)
        if kind == "html":
            # CPU-bound (~0.1 s for a large page): off the event loop.
            from tools.web._markdown import html_to_markdown

            body: str | bytes = _decode(fetched) if fetched.charset else fetched.body
            text = await asyncio.to_thread(html_to_markdown, body, fetched.url)
        else:
            text = _decode(fetched)
        return _Page(fetched.url, kind, text, fetched.truncated)


def _kind(fetched: Fetched) -> str:
    """``html`` or ``text``; :class:`ToolError` for what web_fetch does not read."""
    kind = fetched.content_type
    if kind in _HTML:
        return "html"
    if kind:
        if readable_type(kind):
            return "text"
        what = "a PDF document" if kind == "application/pdf" else f"{kind} content"
        raise ToolError(
            f"{fetched.url} is {what}; web_fetch reads only web pages and text. To use it, "
            "download it with bash (curl -L -o FILE URL) and a tool that reads it."
        )
    head = fetched.body[:1024].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")) or b"<body" in head:
        return "html"
    if b"\x00" in fetched.body[:8192]:
        raise ToolError(f"{fetched.url} looks binary (no content type); web_fetch reads text.")
    return "text"


def _decode(fetched: Fetched) -> str:
    body = fetched.body
    if body.startswith(b"\xef\xbb\xbf"):
        return body[3:].decode("utf-8", "replace")
    try:
        return body.decode(fetched.charset or "utf-8", "replace")
    except LookupError:  # an unknown charset name
        return body.decode("utf-8", "replace")


def _window(page: _Page, start: int) -> ToolResult:
    lines = split_lines(page.text) or [""]
    total = len(lines)
    if start > total:
        raise ToolError(f"Offset {start} is beyond the end of the page ({total} lines)")
    chunk = "\n".join(lines[start - 1 : start - 1 + WINDOW_LINES])
    cut = truncate_head(chunk, WINDOW_LINES, DEFAULT_MAX_BYTES)
    end = start + max(cut.output_lines, 1) - 1
    header = f"URL: {page.url}\n" + (
        "(converted from HTML to Markdown)\n" if page.kind == "html" else ""
    )
    body = cut.content if cut.output_lines else lines[start - 1][: DEFAULT_MAX_BYTES // 2]
    notes: list[str] = []
    if end < total:
        notes.append(f"Showing lines {start}-{end} of {total}. Use offset={end + 1} to continue.")
    if page.truncated:
        notes.append("The page was longer than the size limit and was cut; the rest is missing.")
    text = header + "\n" + body + ("\n\n[" + " ".join(notes) + "]" if notes else "")
    details: dict[str, Any] = {
        "url": page.url,
        "kind": page.kind,
        "start_line": start,
        "end_line": end,
        "total_lines": total,
        "truncated": page.truncated,
        "size": format_size(len(page.text.encode("utf-8", "replace"))),
    }
    return ToolResult.of_text(text, details=details)


def create_web_fetch_tool(cwd: str | Path, config: WebFetchConfig | None = None) -> WebFetchTool:
    """A web_fetch tool (``cwd`` unused)."""
    return WebFetchTool(config)
