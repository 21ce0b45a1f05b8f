"""Token and cost accounting from provider usage."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_core import AssistantMessage, Message, ToolResultMessage


@dataclass
class SessionUsage:
    """Totals over assistant messages."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0

    @classmethod
    def of(cls, messages: Sequence[Message]) -> SessionUsage:
        """Sum the usage of every assistant message, and of the sub-agents whose results
        report theirs (``details.usage`` of a ``task`` result)."""
        total = cls()
        for message in messages:
            if isinstance(message, AssistantMessage):
                usage = message.usage
                total.input += usage.input
                total.output += usage.output
                total.cache_read += usage.cache_read
                total.cache_write += usage.cache_write
                total.cost += usage.cost.total
            elif isinstance(message, ToolResultMessage) and isinstance(message.details, dict):
                total._add_reported(message.details.get("usage"))
        return total

    def _add_reported(self, usage: object) -> None:
        if not isinstance(usage, dict) or not isinstance(usage.get("cost"), int | float):
            return
        numbers = {k: v for k, v in usage.items() if isinstance(v, int | float) and v >= 0}
        self.input += int(numbers.get("input", 0))
        self.output += int(numbers.get("output", 0))
        self.cache_read += int(numbers.get("cacheRead", 0))
        self.cache_write += int(numbers.get("cacheWrite", 0))
        self.cost += float(numbers.get("cost", 0.0))


def cache_hit_rate(usage: SessionUsage) -> float | None:
    """The share of input tokens read from the provider's prompt cache (``None``: no input yet).

    ``input`` excludes cached tokens (every provider's usage is read that way), so the input the
    model saw is ``input + cache_read + cache_write``.
    """
    seen = usage.input + usage.cache_read + usage.cache_write
    return usage.cache_read / seen if seen > 0 else None


def short_tokens(count: int) -> str:
    """A token count as the footer writes it: ``1234`` -> ``1.2k``, ``1_234_567`` -> ``1.2M``."""
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


def format_cost(cost: float) -> str:
    """A cost in US dollars as the footer writes it (``$0.012``)."""
    return f"${cost:.3f}"


def estimate_tokens(text: str) -> int:
    """A rough token count (4 characters per token) for text without provider usage."""
    return (len(text) + 3) // 4


def message_tokens(message: Message) -> int:
    """Estimated tokens of one message."""
    return estimate_tokens(message.model_dump_json(exclude_none=True))  # as on the wire


def context_tokens(messages: Sequence[Message]) -> int:
    """Tokens in the context: the last successful response's usage plus estimates after it."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, AssistantMessage) and message.stop_reason not in (
            "error",
            "aborted",
        ):
            usage = message.usage
            reported = usage.input + usage.output + usage.cache_read + usage.cache_write
            if reported > 0:
                return reported + sum(message_tokens(m) for m in messages[index + 1 :])
    return sum(message_tokens(m) for m in messages)
