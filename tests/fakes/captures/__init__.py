"""Real provider streams captured by the vendors' own SDK test suites, replayed byte for byte.

See ``README.md`` in this folder for where each file comes from. A ``.gz`` file holds the same
bytes compressed (the large ones); :func:`load_capture` gives the body either way.
"""

from __future__ import annotations

import gzip
from pathlib import Path

HERE = Path(__file__).resolve().parent


def capture_bytes(name: str) -> bytes:
    """The exact body bytes of capture ``name`` (``openai_refusal.sse``; ``.gz`` found too)."""
    path = HERE / name
    if path.is_file():
        return path.read_bytes()
    return gzip.decompress((HERE / f"{name}.gz").read_bytes())


def load_capture(name: str) -> list[bytes]:
    """The body of capture ``name`` as the server wrote it: one write per SSE event.

    Joined, the writes are exactly the captured bytes (a trailing partial event included).
    """
    body = capture_bytes(name)
    events: list[bytes] = []
    start = 0
    while start < len(body):
        end = body.find(b"\n\n", start)
        end = len(body) if end == -1 else end + 2
        events.append(body[start:end])
        start = end
    return events


def capture_names() -> list[str]:
    """Every capture in this folder (``.gz`` suffix removed)."""
    names = {p.name.removesuffix(".gz") for p in HERE.iterdir() if ".sse" in p.name}
    return sorted(names)
