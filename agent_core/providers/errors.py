"""Provider failures as one-line, key-free messages; context-overflow recognition."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from agent_core.abort import Aborted as Aborted  # re-exported: transports raise the shared class
from agent_core.messages import AssistantMessage

CONTEXT_OVERFLOW_PREFIX = "Context overflow:"
RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504, 520, 522, 524, 529})
# Error types inside a stream that mean "try again" (Anthropic, OpenAI-compatible servers).
RETRYABLE_STREAM_ERRORS = frozenset({"overloaded_error", "api_error", "server_error"})

# Phrases providers use for "the prompt does not fit" (OpenAI, Anthropic, Gemini, Groq, local servers).
_OVERFLOW = re.compile(
    r"prompt is too long|context[_ ]length[_ ]exceeded|maximum context length|context window|"
    r"exceeds the (maximum|limit)|too many (input )?tokens|reduce the length of the messages|"
    r"input is too long|greater than the context length|exceeds the available context|token limit",
    re.IGNORECASE,
)
_KEYLIKE = re.compile(
    r"\b(sk|pk|rk|xai|gsk|key)[-_][A-Za-z0-9_\-\*\.]{6,}|\bAIza[0-9A-Za-z_\-]{30,}"
)


class ProviderError(Exception):
    """A request/stream failure; ``message`` is already one line and free of secrets."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status


def one_line(text: str, limit: int = 300) -> str:
    """Collapse whitespace and cut to ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie|signature", re.IGNORECASE)
Secrets = str | Iterable[str] | None
"""One secret or several (``ResolvedModel.secrets``: the key, litellm's env key, auth headers)."""


def secrets_of(
    api_key: str | None, env_secret: str | None, headers: dict[str, str]
) -> tuple[str, ...]:
    """The key we send, litellm's env key, and the values of auth-like headers (a gateway's
    ``api-key``, ``Authorization``, ``X-Token``...; a ``Bearer`` token also alone)."""
    found = [value for value in (api_key, env_secret) if value]
    for name, value in headers.items():
        if value and _SECRET_HEADER.search(name):
            found.append(value)
            scheme, _, token = value.partition(" ")
            if token and scheme.lower() in ("bearer", "basic", "token"):
                found.append(token)
    return tuple(found)


def redact(text: str, secret: Secrets) -> str:
    """Remove the secrets, in every form they appear in, and anything that looks like a key.

    By value first: keys without a known prefix (Mistral, Together, Azure, a custom gateway)
    are found only that way. A key also shows up escaped (an exception's ``repr`` of a header
    with a stray newline), JSON-encoded, URL-encoded or with its surrounding blanks trimmed.
    """
    for form in _forms(secret):
        text = text.replace(form, "***")
    # Google keys (AIza...) have no separator; they are replaced whole.
    return _KEYLIKE.sub(lambda m: m.group(1) + "-***" if m.group(1) else "AIza***", text)


def _forms(secret: Secrets) -> list[str]:
    values = [secret] if isinstance(secret, str) else list(secret or ())
    forms: set[str] = set()
    for value in values:
        if not value or len(value.strip()) < 4:  # too short to scrub without mangling text
            continue
        for variant in (value, value.strip()):
            forms.update(
                (
                    variant,
                    variant.encode("unicode_escape").decode("ascii"),
                    json.dumps(variant)[1:-1],
                    quote(variant, safe=""),
                    repr(variant.encode("utf-8", "replace"))[2:-1],
                )
            )
    return sorted((f for f in forms if len(f) >= 4), key=len, reverse=True)


def body_message(body: bytes | str | Any) -> str:
    """The human message inside an OpenAI/Anthropic/other error body (or the raw text)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    data: Any = text
    if isinstance(text, str):
        try:
            data = json.loads(text)
        except ValueError:
            return text.strip() or "(empty response body)"
    if isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("msg") or err.get("detail")
            if msg:
                return str(msg)
        if isinstance(err, str):
            return err
        if data.get("message"):
            return str(data["message"])
    return str(text)


_SPENT = ("usage_limit_reached", "usage_not_included", "insufficient_quota")


def usage_limit(body: bytes | str) -> str | None:
    """What a 429 saying the plan or quota is spent means for the user (ChatGPT's Codex
    ``usage_limit_reached`` with its plan and reset time, OpenAI's ``insufficient_quota``), or
    None for an ordinary rate limit."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    err = data.get("error") if isinstance(data, dict) else None
    if not isinstance(err, dict):
        return None
    code = str(err.get("code") or err.get("type") or "")
    if code not in _SPENT:
        return None
    if code == "insufficient_quota":
        return "the account's quota is spent (check its plan and billing)."
    plan = err.get("plan_type")
    said = f"You have hit your ChatGPT usage limit{f' ({str(plan).lower()} plan)' if plan else ''}."
    resets = err.get("resets_at")
    if isinstance(resets, int | float) and not isinstance(resets, bool):
        minutes = max(0, round((resets - time.time()) / 60))
        said += f" Try again in ~{minutes} min."
    return said


def is_overflow_text(text: str) -> bool:
    """True when a provider message says the prompt exceeds the context window."""
    return bool(_OVERFLOW.search(text))


def http_error(
    provider: str,
    status: int,
    body: bytes | str,
    *,
    api_key: Secrets,
    key_env: str | None,
    retry_after: float | None = None,
) -> ProviderError:
    """Turn an HTTP error response into a ProviderError with a friendly one-line message.

    ``api_key``: the secrets to scrub; any of them set means a key was sent.
    """
    detail = one_line(redact(body_message(body), api_key))
    retryable = status in RETRYABLE_STATUS or "overloaded" in detail.lower()
    if status in (401, 403):
        what = key_env or "the API key"
        hint = f"check {what}" if api_key else f"no API key was sent; set {what}"
        message = (
            f"Authentication failed for {provider} (HTTP {status}): {hint}. Server said: {detail}"
        )
    elif status == 413 or (status == 400 and is_overflow_text(detail)):
        # Only a rejected request can mean "prompt too big": a 429 saying "token limit per
        # minute" is a rate limit, and a 5xx is the server's problem.
        message = f"{CONTEXT_OVERFLOW_PREFIX} {detail} ({provider}, HTTP {status})"
        retryable = False
    elif status == 429 and (spent := usage_limit(body)) is not None:
        message = f"{provider}: {spent} Server said: {detail}"
        retryable = False  # a spent plan or quota does not come back within a retry
    elif status == 429:
        message = f"Rate limited by {provider} (HTTP 429): {detail}"
    elif status >= 500:
        message = f"{provider} server error (HTTP {status}): {detail}"
    else:
        message = f"{provider} rejected the request (HTTP {status}): {detail}"
    return ProviderError(
        one_line(message, 500), retryable=retryable, retry_after=retry_after, status=status
    )


def stream_error(provider: str, error_type: str, detail: str, api_key: Secrets) -> ProviderError:
    """An error reported inside a 200 SSE stream (Anthropic ``event: error``, OpenAI ``{"error": ...}``).

    Overload/server errors are marked retryable; the transport retries them only while nothing
    has been shown to the caller yet.
    """
    detail = one_line(redact(detail, api_key))
    if is_overflow_text(detail):
        return ProviderError(one_line(f"{CONTEXT_OVERFLOW_PREFIX} {detail} ({provider})", 500))
    retryable = error_type in RETRYABLE_STREAM_ERRORS or "overloaded" in detail.lower()
    return ProviderError(
        one_line(f"{provider} stream error ({error_type}): {detail}", 500), retryable=retryable
    )


def is_context_overflow(message: AssistantMessage | str | None) -> bool:
    """True if ``message`` (an assistant message or its error text) reports a context overflow."""
    if message is None:
        return False
    if isinstance(message, AssistantMessage):
        if message.stop_reason != "error" or not message.error_message:
            return False
        message = message.error_message
    return message.startswith(CONTEXT_OVERFLOW_PREFIX)
