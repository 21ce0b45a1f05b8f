"""The one place httpx is imported (so the tricks below apply everywhere)."""

from __future__ import annotations

import sys
from typing import Any

if "httpx" not in sys.modules:
    # httpx's __init__ imports its optional CLI (httpx._main), which drags in rich, click and
    # pygments (~60 ms) whenever they are installed. A None entry makes that import fail, and
    # httpx then falls back to a stub `main`; the HTTP client itself is untouched.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx

__all__ = ["async_client", "httpx", "plain_http_transport"]


def async_client(**kwargs: Any) -> httpx.AsyncClient:
    """``httpx.AsyncClient(**kwargs)``, importing httpcore (on first use) without HTTP/2.

    httpcore's package imports its HTTP/2 connection class, and so ``h2``/``hpack`` (~30 ms,
    the Huffman table alone ~18 ms), whenever h2 is installed. pi never asks for HTTP/2.
    httpcore imports that class again where it opens an HTTP/2 connection, so h2 is hidden
    only while httpcore's package loads: anyone asking for HTTP/2 later (litellm) still gets it.
    """
    _import_httpcore()
    return httpx.AsyncClient(**kwargs)


def _import_httpcore() -> None:
    if "httpcore" in sys.modules or "h2" in sys.modules:
        return
    sys.modules["h2"] = None  # type: ignore[assignment]
    try:
        import httpcore  # noqa: F401
    finally:
        if sys.modules.get("h2", 0) is None:
            del sys.modules["h2"]


def plain_http_transport() -> httpx.AsyncHTTPTransport:
    """httpx's transport with its defaults (limits, HTTP/1.1), for a plain-http endpoint: no
    SSL context is made. OpenSSL's first context costs ~2 ms of a start and a local server never
    uses it (httpcore makes a default one itself if a redirect ever leads to https). httpx is
    pinned exactly; its transport keeps the pool in ``_pool``, which this fills."""
    _import_httpcore()
    import httpcore

    limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)  # httpx's defaults
    transport = httpx.AsyncHTTPTransport.__new__(httpx.AsyncHTTPTransport)
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=None,
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        http1=True,
        http2=False,
    )
    return transport
