"""Error classification: retryable vs context overflow, stream errors, key redaction."""

from __future__ import annotations

import json

import pytest

from agent_core.providers import is_context_overflow
from agent_core.providers.errors import http_error, redact, stream_error

GOOGLE_KEY = "AIzaSyA-fake_google-key-0123456789abcdef"


def _body(message: str) -> str:
    return json.dumps({"error": {"message": message, "type": "x"}})


@pytest.mark.parametrize("status", [429, 500, 503, 529])
def test_retryable_status_mentioning_token_limit_is_not_overflow(status: int) -> None:
    error = http_error(
        "openai",
        status,
        _body("Rate limit reached: token limit per minute exceeded"),
        api_key=None,
        key_env="OPENAI_API_KEY",
    )
    assert error.retryable
    assert not is_context_overflow(error.message)


@pytest.mark.parametrize("status", [400, 413])
def test_rejected_request_with_overflow_text_is_overflow(status: int) -> None:
    error = http_error(
        "anthropic",
        status,
        _body("prompt is too long: 210000 tokens > 200000 maximum"),
        api_key=None,
        key_env=None,
    )
    assert is_context_overflow(error.message) and not error.retryable


def test_413_is_overflow_whatever_the_text() -> None:
    assert is_context_overflow(
        http_error("x", 413, "Payload Too Large", api_key=None, key_env=None).message
    )


def test_other_4xx_with_overflow_words_is_a_rejection() -> None:
    error = http_error(
        "x", 422, _body("exceeds the maximum length of the field"), api_key=None, key_env=None
    )
    assert (
        not is_context_overflow(error.message)
        and "rejected the request (HTTP 422)" in error.message
    )


@pytest.mark.parametrize("error_type", ["overloaded_error", "api_error", "server_error"])
def test_stream_error_overload_is_retryable(error_type: str) -> None:
    assert stream_error("anthropic", error_type, "Overloaded", None).retryable


def test_stream_error_overflow_and_plain_errors_are_not_retryable() -> None:
    overflow = stream_error("anthropic", "invalid_request_error", "prompt is too long", None)
    assert is_context_overflow(overflow.message) and not overflow.retryable
    plain = stream_error("openai", "invalid_request_error", "bad\nrequest", "sk-secret-1234567")
    assert not plain.retryable and "\n" not in plain.message


def test_redaction_covers_google_and_prefixed_keys() -> None:
    text = f"key {GOOGLE_KEY} and sk-proj-abcdef123456 and the exact one s3cr3t-value"
    out = redact(text, "s3cr3t-value")
    assert GOOGLE_KEY not in out and "AIza***" in out
    assert "sk-proj-abcdef123456" not in out and "s3cr3t-value" not in out
    assert redact("AIzaShort", None) == "AIzaShort"  # too short to be a key


def test_litellm_model_keeps_its_env_key_for_redaction_only() -> None:
    from agent_core.providers import resolve_model

    model = resolve_model("gemini/gemini-2.5-flash", env={"GEMINI_API_KEY": GOOGLE_KEY})
    assert model.api == "litellm" and model.api_key is None  # litellm reads the env itself
    assert model.secret == GOOGLE_KEY and model.api_key_env == "GEMINI_API_KEY"
    assert GOOGLE_KEY not in repr(model) and GOOGLE_KEY not in model.model_dump_json()


def test_litellm_error_scrubs_the_env_key() -> None:
    from agent_core.providers import resolve_model
    from agent_core.providers.litellm_stream import litellm_error

    class FakeLitellm:
        Timeout = type("Timeout", (Exception,), {})
        APIConnectionError = type("APIConnectionError", (Exception,), {})
        ContextWindowExceededError = type("ContextWindowExceededError", (Exception,), {})

    secret = "gm-" + "x" * 24  # not key-shaped: only the recorded env key can hide it
    model = resolve_model("gemini/gemini-2.5-flash", env={"GEMINI_API_KEY": secret})
    assert (
        secret
        not in litellm_error(
            model, Exception(f"bad key {secret}"), FakeLitellm, timeout_s=1
        ).message
    )
    midstream = litellm_error(
        model, Exception(f"boom {secret}"), FakeLitellm, timeout_s=1, midstream=True
    )
    assert secret not in midstream.message


def test_headers_are_hidden_like_the_key() -> None:
    from agent_core.providers import ResolvedModel

    model = ResolvedModel(
        id="p/m",
        provider="p",
        name="m",
        api="openai-completions",
        headers={"Authorization": "Bearer hidden-token"},
    )
    assert "hidden-token" not in repr(model) and "hidden-token" not in model.model_dump_json()
    assert (
        "headers" not in model.model_dump()
        and model.headers["Authorization"] == "Bearer hidden-token"
    )
    from rich.pretty import pretty_repr

    keyed = model.model_copy(update={"api_key": "sk-hidden-1234"})
    assert keyed.api_key == "sk-hidden-1234" and model.api_key is None
    for shown in (pretty_repr(keyed), repr(keyed), str(keyed.model_dump(by_alias=True))):
        assert "hidden" not in shown and "'apiKey'" not in shown and "p/m" in shown
    with pytest.raises(AttributeError):
        keyed.api_key = "changed"  # type: ignore[misc]


def test_max_tokens_cap_is_shared() -> None:
    from agent_core.providers import anthropic, litellm_stream, models

    assert anthropic.DEFAULT_MAX_TOKENS_CAP is models.DEFAULT_MAX_TOKENS_CAP
    assert litellm_stream.DEFAULT_MAX_TOKENS_CAP is models.DEFAULT_MAX_TOKENS_CAP
