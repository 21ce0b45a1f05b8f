"""The footer's numbers (usage, context size) counted incrementally: each message once, and
always the same answers as counting from scratch."""

from __future__ import annotations

import random

import pytest

from agent_core import AssistantMessage, TextContent, ToolResultMessage, UserMessage
from agent_core.messages import Cost, Usage
from pi_cli.shell.models import usage as usage_module
from pi_cli.shell.models.usage import SessionUsage, UsageCounter, context_tokens


def _answer(i: int, stop: str = "stop") -> AssistantMessage:
    return AssistantMessage(
        content=[TextContent(text=f"answer {i} " * (i % 7))],
        usage=Usage(
            input=100 + i, output=10 + i, cache_read=5 * i, cache_write=i, cost=Cost(total=0.001)
        ),
        stop_reason=stop,  # type: ignore[arg-type]
    )


def _messages(count: int, seed: int) -> list[object]:
    rng = random.Random(seed)
    out: list[object] = []
    for i in range(count):
        kind = rng.choice(["user", "answer", "failed", "result", "agent"])
        if kind == "user":
            out.append(UserMessage(content=f"question {i}"))
        elif kind in ("answer", "failed"):
            out.append(_answer(i, "stop" if kind == "answer" else rng.choice(["error", "aborted"])))
        else:
            details = {"usage": {"input": 7, "output": 3, "cacheRead": 2, "cost": 0.5}}
            out.append(
                ToolResultMessage(
                    tool_call_id=f"c{i}",
                    tool_name="task",
                    content=[TextContent(text="x" * rng.randrange(0, 400))],
                    details=details if kind == "agent" else None,
                )
            )
    return out


@pytest.mark.parametrize("seed", range(5))
def test_the_same_numbers_as_counting_from_scratch(seed: int) -> None:
    """Appends, a rewritten last message, a compaction (a new list), a jump back (a shorter
    list) and a new list that ends like the old one: every answer equals the full count."""
    rng = random.Random(seed)
    pool = _messages(120, seed)
    counter = UsageCounter()
    messages: list[object] = []
    for step in range(200):
        action = rng.random()
        if action < 0.6 and pool:
            messages = [*messages, pool.pop()]  # a new list, as the agent's state holds it
        elif action < 0.7 and messages:
            messages[-1] = _answer(step)  # the streaming answer replaced by the final one
        elif action < 0.8 and len(messages) > 3:
            messages = [UserMessage(content="summary of it all"), *messages[-2:]]
        elif action < 0.9 and messages:
            messages = messages[: rng.randrange(0, len(messages))]
        elif messages:
            messages = [_answer(999), *messages[1:]]  # the first message differs, the rest same
        assert counter.usage(messages) == SessionUsage.of(messages)  # type: ignore[arg-type]
        assert counter.context_tokens(messages) == context_tokens(messages)  # type: ignore[arg-type]


def test_each_message_is_measured_once_however_often_the_footer_asks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    measured: list[object] = []
    real = usage_module.message_tokens

    def counting(message: object) -> int:
        measured.append(message)
        return real(message)  # type: ignore[arg-type]

    monkeypatch.setattr(usage_module, "message_tokens", counting)
    counter = UsageCounter()
    messages: list[object] = []
    for message in _messages(300, 1):
        messages = [*messages, message]
        for _ in range(3):  # several footer refreshes per message
            counter.context_tokens(messages)  # type: ignore[arg-type]
            counter.usage(messages)  # type: ignore[arg-type]
    assert len(measured) == 300  # not 300 * 301 / 2 * 3
