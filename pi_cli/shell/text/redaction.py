"""Redaction by value: the exact keys pi holds never reach a file, the terminal or a JSON stream.

One process-wide :data:`REDACTOR` (keys are process-wide too): the session store, JSON mode
and RPC share :func:`pi_cli.shell.wire.jsonl.dumps_line`, which applies it; notices, printed errors
and tool results go through :func:`redact`. Each secret is replaced in its raw form and in the
forms it takes inside JSON strings, URLs and Python reprs of headers.
"""

from __future__ import annotations

import threading
from typing import Any

MIN_SECRET_LENGTH = 8
"""Shorter values are not treated as secrets (``--api-key x`` must not blank every ``x``)."""
MASK = "[REDACTED]"


def _forms(secret: str) -> set[str]:
    import json  # here, not at import: the TUI's first frame imports this module
    from urllib.parse import quote

    forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    forms.add(quote(secret, safe=""))
    forms.add(repr(secret)[1:-1])
    forms.add(repr(secret.encode("utf-8", "backslashreplace"))[2:-1])
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


class Redactor:
    """Replaces registered secrets (longest first) with :data:`MASK`."""

    def __init__(self) -> None:
        self._forms: list[str] = []
        self._lock = threading.Lock()

    def add(self, secret: str | None) -> None:
        """Register a secret (whitespace-only or short values are ignored)."""
        if not secret or len(secret.strip()) < MIN_SECRET_LENGTH:
            return
        with self._lock:
            merged = set(self._forms) | _forms(secret) | _forms(secret.strip())
            self._forms = sorted(merged, key=len, reverse=True)

    @property
    def active(self) -> bool:
        """Any secret registered."""
        return bool(self._forms)

    def clear(self) -> None:
        """Forget every secret (tests)."""
        with self._lock:
            self._forms = []

    def __call__(self, text: str) -> str:
        """``text`` with every registered secret masked."""
        forms = self._forms
        if not forms or not text:
            return text
        for form in forms:
            if form in text:
                text = text.replace(form, MASK)
        return text


REDACTOR = Redactor()


def redact(text: str) -> str:
    """:data:`REDACTOR` applied to ``text``."""
    return REDACTOR(text)


def redact_value(value: Any) -> Any:
    """:func:`redact` applied to every string inside ``value`` (dicts and lists too)."""
    if not REDACTOR.active:
        return value
    if isinstance(value, str):
        return REDACTOR(value)
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_value(v) for v in value]
    return value
