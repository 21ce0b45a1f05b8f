"""web_fetch's HTTP side: one GET with httpx, pinned to checked addresses, bounded everywhere.

- Each hop is resolved and checked by :class:`~tools.web._guard.AddressPolicy`, then requested
  from the checked address itself (``Host`` header and TLS SNI keep the name), so what was
  checked is what is connected to. No proxy from the environment is used (it would connect
  elsewhere than what was checked).
- Redirects are followed by hand, at most :data:`MAX_REDIRECTS`, only to the same host (any
  port, http or https): a redirect to another host is returned to the caller, who reports it
  (a new call to that URL goes through the permission check again).
- Only ``gzip`` and ``deflate`` are accepted and decoded here with a bounded output, so a
  compressed body cannot inflate past the size cap; the body is cut at ``max_bytes``.

httpx is imported when a fetch is made, never at start-up.
"""

from __future__ import annotations

import asyncio
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from tools.web._guard import AddressPolicy, Refused, Resolver, check_url, system_resolver

if TYPE_CHECKING:
    import httpx

    from agent_core.net import NetworkConfig

MAX_REDIRECTS = 5
USER_AGENT = "pi-web-fetch/0.1 (terminal coding agent)"
_REDIRECTS = (301, 302, 303, 307, 308)
_CHUNK = 64 * 1024


@dataclass
class Fetched:
    """What one fetch produced.

    ``redirect`` is set (and ``body`` empty) when the page moved to another host.
    ``truncated``: the body was longer than the cap and was cut there.
    """

    url: str
    status: int
    reason: str
    content_type: str
    charset: str | None
    body: bytes = b""
    truncated: bool = False
    redirect: str | None = None


@dataclass
class FetchLimits:
    """Bounds of one fetch."""

    max_bytes: int
    timeout_s: float
    connect_timeout_s: float = 10.0


def _pinned(url: str, address: str) -> str:
    """``url`` with its host replaced by ``address`` (the name goes into Host and SNI)."""
    parts = urlsplit(url)
    shown = f"[{address}]" if ":" in address else address
    netloc = f"{shown}:{parts.port}" if parts.port else shown
    return parts._replace(netloc=netloc).geturl()


def _host_header(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    shown = f"[{host}]" if ":" in host else host
    return f"{shown}:{parts.port}" if parts.port else shown


async def fetch(
    url: str,
    policy: AddressPolicy,
    limits: FetchLimits,
    resolver: Resolver | None = None,
    accept: str = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
    network: NetworkConfig | None = None,
) -> Fetched:
    """GET ``url`` within ``limits``; raises :class:`Refused` (the reason is for the model).

    ``network``: only its trust (system store plus ``caFile``) is used; never its proxy, which
    would resolve the name again past the address check (``docs/network.md``).
    """
    import httpx

    from agent_core.net import ssl_context

    resolve = resolver or system_resolver
    timeout = httpx.Timeout(limits.timeout_s, connect=limits.connect_timeout_s)
    async with httpx.AsyncClient(
        timeout=timeout, follow_redirects=False, trust_env=False, verify=ssl_context(network)
    ) as client:
        try:
            async with asyncio.timeout(limits.timeout_s):
                return await _follow(client, url, policy, limits, resolve, accept)
        except TimeoutError:
            raise Refused(f"no complete answer from {url} within {limits.timeout_s:g}s") from None
        except httpx.HTTPError as exc:
            raise Refused(f"the request to {url} failed: {_why(exc)}") from None


async def _follow(
    client: httpx.AsyncClient,
    url: str,
    policy: AddressPolicy,
    limits: FetchLimits,
    resolve: Resolver,
    accept: str,
) -> Fetched:
    current = url
    scheme, host, port = check_url(current)
    for _ in range(MAX_REDIRECTS + 1):
        address = policy.pick(host, port, await resolve(host, port))
        headers = {
            "Host": _host_header(current),
            "User-Agent": USER_AGENT,
            "Accept": accept,
            "Accept-Encoding": "gzip, deflate",
        }
        request = client.build_request(
            "GET",
            _pinned(current, address),
            headers=headers,
            extensions={"sni_hostname": host} if scheme == "https" else {},
        )
        response = await client.send(request, stream=True)
        try:
            location = response.headers.get("location")
            if response.status_code in _REDIRECTS and location:
                target = urljoin(current, location.strip())
                scheme, new_host, port = check_url(target)
                if new_host.lower() != host.lower():
                    return _moved(current, response, target)
                current, host = target, new_host
                continue
            return await _read(current, response, limits)
        finally:
            await response.aclose()
    raise Refused(f"more than {MAX_REDIRECTS} redirects from {url}")


def _moved(url: str, response: httpx.Response, target: str) -> Fetched:
    content_type, charset = _content_type(response)
    return Fetched(
        url, response.status_code, response.reason_phrase, content_type, charset, redirect=target
    )


def _content_type(response: httpx.Response) -> tuple[str, str | None]:
    raw = response.headers.get("content-type", "")
    kind, _, params = raw.partition(";")
    charset = None
    for param in params.split(";"):
        name, _, value = param.strip().partition("=")
        if name.lower() == "charset" and value:
            charset = value.strip().strip('"').lower()
    return kind.strip().lower(), charset


async def _read(url: str, response: httpx.Response, limits: FetchLimits) -> Fetched:
    content_type, charset = _content_type(response)
    fetched = Fetched(url, response.status_code, response.reason_phrase, content_type, charset)
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
        raise Refused(f"{url} came with content-encoding {encoding!r}, which web_fetch cannot read")
    decoder = None if encoding in ("", "identity") else zlib.decompressobj(zlib.MAX_WBITS | 32)
    if not readable_type(content_type):
        return fetched  # the caller refuses it by its type; the body is never downloaded
    parts: list[bytes] = []
    size = 0
    async for raw in response.aiter_raw(_CHUNK):
        data = raw if decoder is None else _inflate(decoder, raw, limits.max_bytes - size + 1)
        parts.append(data)
        size += len(data)
        if size > limits.max_bytes:
            fetched.truncated = True
            break
    body = b"".join(parts)
    fetched.body = body[: limits.max_bytes]
    return fetched


def _inflate(decoder: zlib._Decompress, raw: bytes, room: int) -> bytes:
    """Decompress ``raw`` into at most ``room`` bytes (a bomb stops at the cap)."""
    try:
        return decoder.decompress(raw, max(room, 1))
    except zlib.error as exc:
        raise Refused(f"the compressed body is corrupt ({exc})") from None


def readable_type(content_type: str) -> bool:
    """Types whose body is worth reading (text and markup); others are refused unread.

    An empty type (none sent) is read: the caller sniffs the body."""
    if not content_type:
        return True  # unknown: sniffed by the caller
    if content_type.startswith("text/") or content_type.endswith(("+xml", "+json")):
        return True
    return content_type in (
        "application/xhtml+xml",
        "application/json",
        "application/xml",
        "application/javascript",
        "application/x-javascript",
        "application/ecmascript",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/ld+json",
    )


def _why(exc: Exception) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
