"""agent_core: the turn loop, the Agent, messages, events and the Tool / StreamFn protocols.

Pure asyncio + pydantic. Imports no provider, tool, UI or CLI module.
"""

from __future__ import annotations

from agent_core.abort import AbortSignal
from agent_core.agent import Agent, AgentBusyError, AgentState, QueueMode
from agent_core.events import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    AssistantStreamEvent,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
    event_from_wire,
    stream_event_from_wire,
)
from agent_core.loop import (
    AgentContext,
    AgentLoopConfig,
    run_agent_loop,
    run_agent_loop_continue,
    run_loop,
)
from agent_core.messages import (
    AssistantMessage,
    Cost,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
    message_from_wire,
    now_ms,
    to_wire,
    user_message,
)
from agent_core.stream import (
    AssistantMessageBuilder,
    LlmContext,
    RetryNotice,
    StreamFn,
    StreamOptions,
    ToolSpec,
    parse_tool_arguments,
)
from agent_core.tool import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallResult,
    Tool,
    ToolCallContext,
    ToolError,
    tool_spec,
    validate_arguments,
)
from agent_core.tool_execution import SKIPPED_FOR_STEERING

__all__ = [
    "AbortSignal", "AfterToolCallContext", "AfterToolCallResult", "Agent", "AgentBusyError",
    "AgentContext", "AgentEnd", "AgentEvent", "AgentLoopConfig", "AgentStart", "AgentState",
    "AssistantMessage", "AssistantMessageBuilder", "AssistantStreamEvent", "BeforeToolCallResult",
    "Cost", "ImageContent", "LlmContext", "Message", "MessageEnd", "MessageStart", "MessageUpdate",
    "QueueMode", "RetryNotice", "SKIPPED_FOR_STEERING", "StreamFn", "StreamOptions", "TextContent",
    "TextDelta", "TextEnd", "TextStart", "ThinkingContent", "ThinkingDelta", "ThinkingEnd",
    "ThinkingStart", "Tool", "ToolCall", "ToolCallContext", "ToolCallDelta", "ToolCallEnd",
    "ToolCallStart", "ToolError", "ToolExecutionEnd", "ToolExecutionStart", "ToolExecutionUpdate",
    "ToolResult", "ToolResultMessage", "ToolSpec", "TurnEnd", "TurnStart", "Usage", "UserMessage",
    "event_from_wire", "message_from_wire", "now_ms", "parse_tool_arguments",
    "run_agent_loop", "run_agent_loop_continue", "run_loop", "stream_event_from_wire", "to_wire",
    "tool_spec", "user_message", "validate_arguments",
]
