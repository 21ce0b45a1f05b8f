"""A model provider written in Python (pi-ts's ``registerProvider`` with its own stream, as in
``custom-provider-*``): ``echo/parrot`` answers with the last thing the user said, word by word.
Select it with ``pi --model echo/parrot`` or ``/model echo/parrot``; a real one would call its
API here with ``httpx`` and turn what comes back into the same events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from agent_core import (
    AssistantMessageBuilder,
    LlmContext,
    StreamOptions,
    TextDelta,
    TextEnd,
    TextStart,
)
from pi_cli.shell.extensions import ExtensionAPI


async def parrot(context: LlmContext, options: StreamOptions) -> AsyncIterator[Any]:
    """agent_core's StreamFn: stream events, then the final message."""
    builder = AssistantMessageBuilder(api="echo", provider="echo", model=options.model)
    users = [m for m in context.messages if m.role == "user"]
    said = "".join(getattr(b, "text", "") for b in users[-1].content) if users else ""
    words = [f"{w} " for w in f"You said: {said}".split()]
    for event in (
        [TextStart(content_index=0)]
        + [TextDelta(content_index=0, delta=w) for w in words]
        + [TextEnd(content_index=0, content="".join(words))]
    ):
        if options.cancel.aborted:
            yield builder.finish("aborted", error_message="Request was aborted")
            return
        builder.apply(event)
        yield event
        await asyncio.sleep(0)
    yield builder.finish("stop")


def register(pi: ExtensionAPI) -> None:
    pi.register_provider("echo", parrot, models=["parrot"])
