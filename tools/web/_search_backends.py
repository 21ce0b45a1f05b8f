"""web_search's backends: a self-hosted SearXNG instance (no account), Brave Search and Tavily.

Each turns a query into one HTTP request and the answer into :class:`Hit` rows. The key is held
by the :class:`SearchBackend` (never in the tool's arguments, results or details); errors never
echo it. Requests go through ``network.proxy``/``*_PROXY`` and trust the system store plus
``network.caFile`` (:mod:`agent_core.net`). httpx is imported when a search is made.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from agent_core.net import NetworkConfig

BackendKind = Literal["searxng", "brave", "tavily"]
BACKENDS: tuple[BackendKind, ...] = ("searxng", "brave", "tavily")
DEFAULT_URLS: dict[str, str] = {
    "brave": "https://api.search.brave.com/res/v1/web/search",
    "tavily": "https://api.tavily.com/search",
}
KEY_ENVS: dict[str, str] = {"brave": "BRAVE_API_KEY", "tavily": "TAVILY_API_KEY"}
MAX_BODY = 4 * 1024 * 1024
_TAGS = re.compile(r"<[^>]{0,200}>")


class SearchFailed(Exception):
    """The backend could not answer (the message is for the model and the user)."""


@dataclass(frozen=True)
class Hit:
    """One result: a title, its URL and a snippet of plain text."""

    title: str
    url: str
    snippet: str


@dataclass(frozen=True)
class SearchBackend:
    """A configured backend: its kind, endpoint, key (kept out of repr) and network."""

    kind: BackendKind
    url: str
    api_key: str | None = field(default=None, repr=False)
    network: NetworkConfig | None = None
    timeout_s: float = 20.0

    @property
    def host(self) -> str:
        """The host the query is sent to (what the permission asks about)."""
        return (urlsplit(self.url).hostname or "").lower()

    async def search(self, query: str, count: int) -> list[Hit]:
        """Up to ``count`` hits for ``query``; raises :class:`SearchFailed`."""
        import httpx

        from agent_core.net import describe_failure, proxy_for, ssl_context

        proxy = proxy_for(self.url, self.network)
        request = self._request(query, count)
        try:
            async with httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout_s, connect=10.0),
                proxy=proxy,
                verify=ssl_context(self.network),
                trust_env=False,
            ) as client:
                response = await client.send(client.build_request(**request))
                body = response.content[:MAX_BODY]
        except httpx.HTTPError as exc:
            why = describe_failure(exc, self.url, proxy, self.network)
            message = why or f"{self.kind} could not be reached: {exc}"
            raise SearchFailed(self._scrub(message)) from None
        if response.status_code >= 400:
            raise SearchFailed(self._status_error(response.status_code, body))
        try:
            data = json.loads(body)
        except ValueError:
            raise SearchFailed(f"{self.kind} answered something that is not JSON") from None
        return parse_hits(self.kind, data)[:count]

    def _request(self, query: str, count: int) -> dict[str, Any]:
        headers = {"Accept": "application/json", "User-Agent": "pi-web-search/0.1"}
        if self.kind == "searxng":
            url = self.url.rstrip("/")
            if not url.endswith("/search"):
                url += "/search"
            params = {"q": query, "format": "json", "safesearch": "1"}
            return {"method": "GET", "url": url, "params": params, "headers": headers}
        if self.kind == "brave":
            headers["X-Subscription-Token"] = self.api_key or ""
            params = {"q": query, "count": str(min(count, 20))}
            return {"method": "GET", "url": self.url, "params": params, "headers": headers}
        headers["Authorization"] = f"Bearer {self.api_key or ''}"
        body = {"query": query, "max_results": min(count, 20), "search_depth": "basic"}
        return {"method": "POST", "url": self.url, "json": body, "headers": headers}

    def _status_error(self, status: int, body: bytes) -> str:
        detail = body[:300].decode("utf-8", "replace")
        try:
            data = json.loads(body)
            if isinstance(data, dict):
                found = data.get("error") or data.get("detail") or data.get("message")
                detail = json.dumps(found)[:300] if found is not None else detail
        except ValueError:
            pass
        hint = ""
        if status in (401, 403) and self.kind in KEY_ENVS:
            hint = f" (check {KEY_ENVS[self.kind]})"
        elif status == 403 and self.kind == "searxng":
            hint = " (enable the json format under search.formats in the instance's settings.yml)"
        return self._scrub(f"{self.kind} answered HTTP {status}{hint}: {' '.join(detail.split())}")

    def _scrub(self, text: str) -> str:
        if self.api_key:
            text = text.replace(self.api_key, "[REDACTED]")
        return " ".join(text.split())[:500]


def _plain(text: Any) -> str:
    if not isinstance(text, str):
        return ""
    return " ".join(html.unescape(_TAGS.sub("", text)).split())


def parse_hits(kind: str, data: Any) -> list[Hit]:
    """The hits of a backend's JSON answer (rows without a URL are skipped)."""
    rows: Any = []
    if isinstance(data, dict):
        if kind == "brave":
            web = data.get("web")
            rows = web.get("results") if isinstance(web, dict) else []
        else:
            rows = data.get("results")
    hits = []
    for row in rows if isinstance(rows, list) else []:
        if not isinstance(row, dict):
            continue
        url = row.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            continue
        snippet = row.get("description") if kind == "brave" else row.get("content")
        hits.append(Hit(_plain(row.get("title")) or url, url, _plain(snippet)))
    return hits
