"""Token and cost accounting from provider usage."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent_core import AssistantMessage, Message, ToolResultMessage, to_wire


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
        totals = [0.0] * 5
        for message in messages:
            for i, number in enumerate(usage_numbers(message)):
                totals[i] += number
        return cls.from_numbers(totals)

    @classmethod
    def from_numbers(cls, numbers: Sequence[float]) -> SessionUsage:
        """From (input, output, cache read, cache write, cost)."""
        return cls(
            int(numbers[0]), int(numbers[1]), int(numbers[2]), int(numbers[3]), float(numbers[4])
        )


_NO_USAGE = (0, 0, 0, 0, 0.0)


def usage_numbers(message: Message) -> tuple[float, ...]:
    """(input, output, cache read, cache write, cost) of one message: an assistant message's
    usage, or what a sub-agent's result reports (``details.usage`` of a ``task`` result)."""
    if isinstance(message, AssistantMessage):
        usage = message.usage
        return (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.cost.total)
    if not isinstance(message, ToolResultMessage) or not isinstance(message.details, dict):
        return _NO_USAGE
    reported = message.details.get("usage")
    if not isinstance(reported, dict) or not isinstance(reported.get("cost"), int | float):
        return _NO_USAGE
    numbers = {k: v for k, v in reported.items() if isinstance(v, int | float) and v >= 0}
    return (
        int(numbers.get("input", 0)),
        int(numbers.get("output", 0)),
        int(numbers.get("cacheRead", 0)),
        int(numbers.get("cacheWrite", 0)),
        float(numbers.get("cost", 0.0)),
    )


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
    wire = json.dumps(to_wire(message), separators=(",", ":"), ensure_ascii=False)
    return estimate_tokens(wire)  # as on the wire


def context_tokens(messages: Sequence[Message]) -> int:
    """Tokens in the context: the last successful response's usage plus estimates after it."""
    for index in range(len(messages) - 1, -1, -1):
        reported = reported_context(messages[index])
        if reported > 0:
            return reported + sum(message_tokens(m) for m in messages[index + 1 :])
    return sum(message_tokens(m) for m in messages)


def reported_context(message: Message) -> int:
    """The context size a successful answer's usage reports (0: none, or a failed answer)."""
    if not isinstance(message, AssistantMessage) or message.stop_reason in ("error", "aborted"):
        return 0
    usage = message.usage
    return usage.input + usage.output + usage.cache_read + usage.cache_write


class _PrefixSums:
    """Running totals of a measure over a message list that grows at its end.

    The footer asks for usage and context size at every refresh; summing every message each
    time made that cost grow with the session. Here each message is measured once: a call
    measures only the messages after the longest prefix still holding the *same* message
    objects as last time (an appended answer: one message; a compaction or ``/tree`` jump: the
    whole new list). Messages are immutable, so an unchanged object has unchanged numbers.
    """

    def __init__(self, measure: Callable[[Message], tuple[float, ...]], width: int) -> None:
        self._measure = measure
        self._seen: list[Message] = []
        self._sums: list[tuple[float, ...]] = [(0,) * width]

    def at(self, messages: Sequence[Message], end: int) -> tuple[float, ...]:
        """The totals over ``messages[:end]``."""
        self._sync(messages)
        return self._sums[end]

    def _sync(self, messages: Sequence[Message]) -> None:
        kept = min(len(messages), len(self._seen))
        while kept and messages[kept - 1] is not self._seen[kept - 1]:
            kept -= 1
        if kept and messages[0] is not self._seen[0]:
            kept = 0  # a new list that happens to end like the old one
        del self._seen[kept:]
        del self._sums[kept + 1 :]
        for message in messages[kept:]:
            numbers = self._measure(message)
            self._sums.append(tuple(a + b for a, b in zip(self._sums[-1], numbers, strict=True)))
            self._seen.append(message)


class UsageCounter:
    """:meth:`SessionUsage.of` and :func:`context_tokens` of a growing message list, each
    message measured once (see :class:`_PrefixSums`)."""

    def __init__(self) -> None:
        self._usage = _PrefixSums(usage_numbers, 5)
        self._estimates = _PrefixSums(lambda m: (message_tokens(m),), 1)

    def usage(self, messages: Sequence[Message]) -> SessionUsage:
        """The same as ``SessionUsage.of(messages)``."""
        return SessionUsage.from_numbers(self._usage.at(messages, len(messages)))

    def context_tokens(self, messages: Sequence[Message]) -> int:
        """The same as ``context_tokens(messages)``."""
        total = int(self._estimates.at(messages, len(messages))[0])
        for index in range(len(messages) - 1, -1, -1):  # the last answer is near the end
            reported = reported_context(messages[index])
            if reported > 0:
                return reported + total - int(self._estimates.at(messages, index + 1)[0])
        return total
