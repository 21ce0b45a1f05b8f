"""One summary request to the model (compaction, branch summaries): no tools, thinking off."""

from __future__ import annotations

from agent_core import (
    AbortSignal,
    AssistantMessage,
    LlmContext,
    StreamFn,
    StreamOptions,
    user_message,
)
from pi_cli.shell.compaction.parts import SUMMARY_SYSTEM, CompactionError


async def request_summary(
    stream_fn: StreamFn, model: str, prompt: str, signal: AbortSignal, max_tokens: int
) -> str:
    """The model's summary for ``prompt``; raises :class:`CompactionError` (aborted, failed,
    empty)."""
    context = LlmContext(system_prompt=SUMMARY_SYSTEM, messages=[user_message(prompt)], tools=[])
    options = StreamOptions(model=model, cancel=signal, thinking="off", max_tokens=max_tokens)
    final: AssistantMessage | None = None
    async for item in stream_fn(context, options):
        if signal.aborted:
            raise CompactionError("aborted")
        if isinstance(item, AssistantMessage):
            final = item
            break
    if signal.aborted:
        raise CompactionError("aborted")
    if final is None:
        raise CompactionError("the model stream ended without a message")
    if final.stop_reason in ("error", "aborted"):
        raise CompactionError(final.error_message or f"summary request ended: {final.stop_reason}")
    if not final.text.strip():
        raise CompactionError("the model returned an empty summary")
    return final.text.strip()
