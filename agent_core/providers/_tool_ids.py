"""Tool-call ids: unique on the way in, in each provider's own form on the way out.

In: a response may carry calls without an id, or the same id twice (both seen from real
servers); the second result would then be dropped and the next request rejected. Every call
of a response gets a unique id: a repeated ``X`` becomes ``X_2`` (``X_3``...), a missing one a
fresh ``call_``/``toolu_`` id; the provider's own id stays in ``ToolCall.original_id``.

Out: each request maps our ids to ids its provider accepts, one to one (calls and their
results get the same mapping), so a session started on one provider can continue on another:
Anthropic wants ``[A-Za-z0-9_-]{1,64}``, Mistral (and vLLM with Mistral models) exactly nine
letters or digits, OpenAI at most 40 characters. Ids already in the right form are kept.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Literal

from agent_core.providers.models import ResolvedModel

IdStyle = Literal["openai", "anthropic", "mistral"]
_VALID = {
    "openai": re.compile(r"[A-Za-z0-9_.:\-]{1,40}"),
    "anthropic": re.compile(r"[A-Za-z0-9_\-]{1,64}"),
    "mistral": re.compile(r"[A-Za-z0-9]{9}"),
}
_UNSAFE = re.compile(r"[^A-Za-z0-9_\-]")
_MISTRAL = re.compile(
    r"mistral|mixtral|magistral|codestral|devstral|ministral|pixtral|voxtral", re.IGNORECASE
)
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


class IncomingIds:
    """Gives each tool call of one response a unique id (see the module docstring)."""

    __slots__ = ("_prefix", "_seen")

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._seen: set[str] = set()

    def take(self, wire_id: object) -> tuple[str, str | None]:
        """(id to use, the provider's id when it was replaced; None if kept or never sent)."""
        if isinstance(wire_id, str) and wire_id and wire_id not in self._seen:
            self._seen.add(wire_id)
            return wire_id, None
        if isinstance(wire_id, str) and wire_id:
            n = 2
            while f"{wire_id}_{n}" in self._seen:
                n += 1
            fresh, original = f"{wire_id}_{n}", wire_id
        else:
            fresh, original = f"{self._prefix}{uuid.uuid4().hex[:24]}", None
        self._seen.add(fresh)
        return fresh, original


def id_style(model: ResolvedModel) -> IdStyle:
    """The id form ``model``'s API accepts (a Mistral model anywhere gets Mistral's form)."""
    where = f"{model.provider}/{model.name} {model.litellm_model} {model.base_url or ''}"
    if _MISTRAL.search(where):
        return "mistral"  # nine alphanumerics are also valid for every other provider
    if model.api == "anthropic-messages" or model.litellm_model.startswith(
        ("anthropic/", "bedrock/anthropic", "vertex_ai/claude")
    ):
        return "anthropic"
    return "openai"


class OutgoingIds:
    """Maps our tool-call ids to one provider's form for one request, one to one."""

    def __init__(self, style: IdStyle) -> None:
        self.style: IdStyle = style
        self._map: dict[str, str] = {}
        self._taken: set[str] = set()

    def __call__(self, tool_id: str) -> str:
        known = self._map.get(tool_id)
        if known is not None:
            return known
        salt = 0
        candidate = _shape(tool_id, self.style, salt)
        while candidate in self._taken:  # two ids must never meet in one form
            salt += 1
            candidate = _shape(tool_id, self.style, salt)
        self._map[tool_id] = candidate
        self._taken.add(candidate)
        return candidate


def _shape(tool_id: str, style: IdStyle, salt: int) -> str:
    if salt == 0 and _VALID[style].fullmatch(tool_id):
        return tool_id
    if style == "mistral":
        return _digest(tool_id, salt, 9)
    limit = 40 if style == "openai" else 64
    base = _UNSAFE.sub("_", tool_id)[: limit - 13] or "call"
    return f"{base}_{_digest(tool_id, salt, 12)}"


def _digest(text: str, salt: int, size: int) -> str:
    number = int.from_bytes(hashlib.sha256(f"{salt}:{text}".encode()).digest()[:16], "big")
    chars = []
    for _ in range(size):
        number, rest = divmod(number, 62)
        chars.append(_BASE62[rest])
    return "".join(chars)
