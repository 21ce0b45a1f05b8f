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

__all__ = ["async_client", "httpx"]


def async_client(**kwargs: Any) -> httpx.AsyncClient:
    """``httpx.AsyncClient(**kwargs)``, importing httpcore (on first use) without HTTP/2.

    httpcore's package imports its HTTP/2 connection class, and so ``h2``/``hpack`` (~30 ms,
    the Huffman table alone ~18 ms), whenever h2 is installed. pi never asks for HTTP/2.
    httpcore imports that class again where it opens an HTTP/2 connection, so h2 is hidden
    only while httpcore's package loads: anyone asking for HTTP/2 later (litellm) still gets it.
    """
    if "httpcore" in sys.modules or "h2" in sys.modules:
        return httpx.AsyncClient(**kwargs)
    sys.modules["h2"] = None  # type: ignore[assignment]
    try:
        import httpcore  # noqa: F401
    finally:
        if sys.modules.get("h2", 0) is None:
            del sys.modules["h2"]
    return httpx.AsyncClient(**kwargs)
