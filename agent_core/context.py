"""What one run of the loop works on and how it is configured.

A leaf module: both :mod:`agent_core.loop` and :mod:`agent_core.tool_execution` import it, so
neither has to import the other (pi-mono keeps these types in ``types.ts`` for the same reason).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from agent_core.abort import AbortSignal
from agent_core.events import AgentEvent
from agent_core.messages import Message
from agent_core.stream import OnRetry, OnRetryEnd, StreamFn, ToolSpec
from agent_core.tool import AfterToolCall, BeforeToolCall, Tool, frozen_tool_spec, spec_key

Emit = Callable[[AgentEvent], None]
"""Receives every event, synchronously, in order. Must not raise (the Agent guards listeners)."""

TransformContext = Callable[[list[Message], AbortSignal], Awaitable[list[Message]]]
"""Rewrites the messages sent to the model for one call (a copy: the history is untouched).
A raise ends the turn with an error message."""

MessageSource = Callable[[], list[Message]]
"""Drains a queue: returns the messages to deliver now, ``[]`` when there are none."""

ShouldStop = Callable[[], bool]
"""Asked before each turn after the first: ``True`` ends the run cleanly there (a budget)."""

ToolExecutionMode = Literal["sequential", "parallel"]


@dataclass
class AgentContext:
    """What the loop works on: system prompt, the message list (mutated in place), tools."""

    system_prompt: str = ""
    messages: list[Message] = field(default_factory=list)
    tools: list[Tool] = field(default_factory=list)
    # id(tool) -> (tool, its spec key, its frozen spec): see tool_specs.
    _specs: dict[int, tuple[Tool, tuple[object, ...], ToolSpec]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def tool_specs(self) -> list[ToolSpec]:
        """What the model sees of ``tools``, the same (frozen) objects every turn.

        A spec is made once per tool while its name, description and schema stay the same
        (:func:`~agent_core.tool.spec_key`), so a turn neither rebuilds nor copies the
        schemas and providers can cache their form of the list by the specs' identity.
        """
        specs: list[ToolSpec] = []
        for tool in self.tools:
            key = spec_key(tool)
            held = self._specs.get(id(tool))
            if key is None:
                specs.append(frozen_tool_spec(tool))
                continue
            if held is None or held[0] is not tool or held[1] != key:
                held = (tool, key, frozen_tool_spec(tool))
                self._specs[id(tool)] = held
            specs.append(held[2])
        return specs


@dataclass
class AgentLoopConfig:
    """How to reach the model and how to run tools.

    ``get_steering_messages`` / ``get_follow_up_messages`` drain the two queues (return ``[]``
    when empty). ``transform_context`` may rewrite the messages sent to the model (not the
    stored history), e.g. to compact. ``should_stop`` is asked before every turn after the
    first; when it says ``True`` the run ends there (``agent_end``, no further model call, no
    queue drained), as a budget needs.
    """

    stream_fn: StreamFn
    model: str = ""
    # What the provider will report in its final message (``api``, ``provider`` and the model
    # id as the provider names it), so the streamed message starts with the same identity.
    api: str = ""
    provider: str = ""
    model_name: str = ""
    thinking: str = "off"
    max_tokens: int | None = None
    tool_execution: ToolExecutionMode = "parallel"
    get_steering_messages: MessageSource | None = None
    get_follow_up_messages: MessageSource | None = None
    before_tool_call: BeforeToolCall | None = None
    after_tool_call: AfterToolCall | None = None
    transform_context: TransformContext | None = None
    on_retry: OnRetry | None = None
    on_retry_end: OnRetryEnd | None = None
    should_stop: ShouldStop | None = None
