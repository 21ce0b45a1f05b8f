"""Request bodies the native transports send, as the fake server receives them."""

from __future__ import annotations

import pytest

from agent_core import AbortSignal, AssistantMessage, LlmContext, StreamOptions, user_message
from agent_core.providers import RetryConfig, make_stream_fn, resolve_model
from agent_core.providers.anthropic import THINKING_BUDGETS
from tests.fakes import FakeProviderServer, Turn


async def _anthropic_body(thinking: str, max_tokens: int | None) -> dict:
    with FakeProviderServer([Turn(text="ok")]) as server:
        model = resolve_model(
            "anthropic/claude-sonnet-4-5",
            api_base=server.anthropic_base_url,
            env={"ANTHROPIC_API_KEY": "sk-test"},
        )
        assert model.supports_reasoning
        fn = make_stream_fn(model, retry=RetryConfig(max_retries=0))
        options = StreamOptions(
            model=model.id, cancel=AbortSignal(), thinking=thinking, max_tokens=max_tokens
        )
        final = None
        async for item in fn(LlmContext(system_prompt="", messages=[user_message("hi")]), options):
            if isinstance(item, AssistantMessage):
                final = item
        assert final is not None and final.stop_reason == "stop", final
        (body,) = server.requests
    return body


@pytest.mark.parametrize("max_tokens", [None, 1, 1024, 1500, 2048, 3000, 9000, 17000, 64000])
@pytest.mark.parametrize("thinking", sorted(THINKING_BUDGETS))
async def test_anthropic_thinking_budget_is_valid(thinking: str, max_tokens: int | None) -> None:
    body = await _anthropic_body(thinking, max_tokens)
    budget = body["thinking"]["budget_tokens"]
    assert budget >= 1024, body  # Anthropic's minimum
    assert body["max_tokens"] >= budget + 1024  # room for the answer after thinking
    assert budget <= THINKING_BUDGETS[thinking]
    if max_tokens is not None and max_tokens >= THINKING_BUDGETS[thinking] + 1024:
        assert body["max_tokens"] == max_tokens and budget == THINKING_BUDGETS[thinking]


async def test_anthropic_no_thinking_keeps_max_tokens() -> None:
    body = await _anthropic_body("off", 500)
    assert "thinking" not in body and body["max_tokens"] == 500
