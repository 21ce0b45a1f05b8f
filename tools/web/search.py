"""The ``web_search`` tool: titles, URLs and snippets from a configured search backend.

Off unless ``webSearch.backend`` is set (:mod:`tools.web._search_backends`: SearXNG, Brave, Tavily).
Results are capped (``max_results``, at most :data:`MAX_RESULTS`; snippets at
:data:`SNIPPET_CHARS`), filtered by the call's ``allowed_domains``/``blocked_domains`` and by
the shell's ``domain_denied`` (``WebFetch(domain:...)`` deny rules). Whether the query may be
sent at all is the permission engine's question, asked about the backend's host.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from msgspec import Meta

from agent_core import AbortSignal, ToolArguments, ToolBase, ToolError, ToolResult
from agent_core.tool import OnToolUpdate
from tools._present import str_arg
from tools.web._search_backends import DEFAULT_URLS as DEFAULT_URLS
from tools.web._search_backends import KEY_ENVS as KEY_ENVS
from tools.web._search_backends import Hit, SearchBackend, SearchFailed

MAX_RESULTS = 10
DEFAULT_RESULTS = 5
SNIPPET_CHARS = 400


class WebSearchArgs(ToolArguments):
    """Arguments of the web_search tool."""

    query: Annotated[
        str, Meta(min_length=2, max_length=400, description="What to search the web for")
    ]
    max_results: Annotated[
        Annotated[int, Meta(ge=1, le=MAX_RESULTS)] | None,
        Meta(description="How many results (default 5)"),
    ] = None
    allowed_domains: Annotated[
        list[str] | None, Meta(description="Only results from these domains (and their subdomains)")
    ] = None
    blocked_domains: Annotated[
        list[str] | None,
        Meta(description="Never results from these domains (and their subdomains)"),
    ] = None


@dataclass
class WebSearchConfig:
    """The backend (None: not configured), the default count, and the shell's domain veto."""

    backend: SearchBackend | None = None
    max_results: int = DEFAULT_RESULTS
    domain_denied: Callable[[str], bool] | None = None


def _in(host: str, domains: list[str]) -> bool:
    for domain in domains:
        domain = domain.strip().lower().removeprefix("*.").lstrip(".")
        if domain and (host == domain or host.endswith("." + domain)):
            return True
    return False


def _host(url: str) -> str:
    from urllib.parse import urlsplit

    return (urlsplit(url).hostname or "").lower()


class WebSearchTool(ToolBase):
    """Search the web; return numbered titles, URLs and snippets."""

    name = "web_search"
    summary = "Search the web: titles, URLs and snippets of the top results"
    guideline = (
        "Use web_search for current information or to find pages, then web_fetch the ones "
        "worth reading; cite the URLs you rely on."
    )
    description = (
        "Search the web and return the top results (title, URL, snippet), at most "
        f"{MAX_RESULTS}. Snippets are short: fetch a page with web_fetch to read it. "
        "allowed_domains / blocked_domains filter results by domain (subdomains included)."
    )
    parameters = WebSearchArgs

    def __init__(self, config: WebSearchConfig | None = None) -> None:
        self.config = config or WebSearchConfig()

    def title(self, args: Mapping[str, Any]) -> str:
        """The query."""
        return str_arg(args, "query") or ""

    async def execute(
        self,
        tool_call_id: str,
        args: WebSearchArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Ask the backend and format what comes back."""
        if cancel.aborted:
            raise ToolError("Aborted")
        backend = self.config.backend
        if backend is None:
            raise ToolError(
                "web_search has no backend: set webSearch.backend (searxng, brave or tavily) "
                "in settings.json"
            )
        count = min(args.max_results or self.config.max_results, MAX_RESULTS)
        query = " ".join(args.query.split())
        try:
            hits = await backend.search(query, MAX_RESULTS)
        except SearchFailed as exc:
            raise ToolError(str(exc)) from None
        kept = [h for h in hits if self._keep(h, args)][:count]
        details = {
            "backend": backend.kind,
            "query": query,
            "results": [{"title": h.title, "url": h.url} for h in kept],
            "filtered": len(hits) - len(kept) if len(hits) > len(kept) else 0,
        }
        return ToolResult.of_text(_format(query, kept, backend.kind), details=details)

    def _keep(self, hit: Hit, args: WebSearchArgs) -> bool:
        host = _host(hit.url)
        if args.allowed_domains and not _in(host, args.allowed_domains):
            return False
        if args.blocked_domains and _in(host, args.blocked_domains):
            return False
        denied = self.config.domain_denied
        return not (denied is not None and denied(host))


def _format(query: str, hits: list[Hit], kind: str) -> str:
    if not hits:
        return f"No results for {query!r} ({kind})."
    lines = [f"Results for {query!r} ({kind}):", ""]
    for number, hit in enumerate(hits, 1):
        snippet = hit.snippet
        if len(snippet) > SNIPPET_CHARS:
            snippet = snippet[: SNIPPET_CHARS - 1].rstrip() + "…"
        lines.append(f"{number}. {hit.title[:200]}")
        lines.append(f"   {hit.url}")
        if snippet:
            lines.append(f"   {snippet}")
    return "\n".join(lines)


def create_web_search_tool(cwd: Any = None, config: WebSearchConfig | None = None) -> WebSearchTool:
    """A web_search tool (``cwd`` unused: searching touches no file)."""
    return WebSearchTool(config)
