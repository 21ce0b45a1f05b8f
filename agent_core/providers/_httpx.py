"""The one place httpx is imported (so the trick below applies everywhere)."""

from __future__ import annotations

import sys

if "httpx" not in sys.modules:
    # httpx's __init__ imports its optional CLI (httpx._main), which drags in rich, click and
    # pygments (~60 ms) whenever they are installed. A None entry makes that import fail, and
    # httpx then falls back to a stub `main`; the HTTP client itself is untouched.
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

import httpx  # noqa: E402

__all__ = ["httpx"]
