"""What RPC answers about the shell: state, session statistics, the queue (camelCase data)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_core import AssistantMessage, ToolResultMessage, UserMessage, to_wire

if TYPE_CHECKING:
    from pi_cli.shell.coding_agent import CodingAgent
    from pi_cli.shell.input_queue import QueuedInput


def state_of(shell: CodingAgent) -> dict[str, Any]:
    """``get_state``."""
    return {
        "model": shell.model_id,
        "thinkingLevel": shell.thinking,
        "isStreaming": shell.state == "running",
        "isIdle": not shell.busy,
        "isCompacting": shell.state == "compacting",
        "steeringMode": shell.queue.steering_mode,
        "followUpMode": shell.queue.follow_up_mode,
        "sessionFile": str(shell.session.path) if shell.session.path else None,
        "sessionId": shell.session.session_id,
        "autoCompactionEnabled": shell.settings.compaction.enabled,
        "messageCount": len(shell.messages),
        "pendingMessageCount": len(shell.queued()),
    }


def session_stats(shell: CodingAgent) -> dict[str, Any]:
    """``get_session_stats``."""
    messages = shell.messages
    usage = shell.usage
    used, window = shell.context_usage()
    return {
        "sessionFile": str(shell.session.path) if shell.session.path else None,
        "sessionId": shell.session.session_id,
        "userMessages": sum(isinstance(m, UserMessage) for m in messages),
        "assistantMessages": sum(isinstance(m, AssistantMessage) for m in messages),
        "toolCalls": sum(len(m.tool_calls) for m in messages if isinstance(m, AssistantMessage)),
        "toolResults": sum(isinstance(m, ToolResultMessage) for m in messages),
        "totalMessages": len(messages),
        "tokens": {
            "input": usage.input,
            "output": usage.output,
            "cacheRead": usage.cache_read,
            "cacheWrite": usage.cache_write,
            "total": usage.input + usage.output + usage.cache_read + usage.cache_write,
        },
        "cost": usage.cost,
        "contextTokens": used,
        "contextWindow": window,
    }


def queue_of(items: Sequence[QueuedInput]) -> dict[str, Any]:
    """The queue as ``{"items": [{id, text, kind}]}``."""
    return {"items": [to_wire(item.wire()) for item in items]}
