"""pi's RPC lines back into the shell's events, for front ends driving a remote shell.

A front end renders :data:`~pi_cli.shell.ShellEvent` objects whatever the shell is, so the proxy
turns each line into the event the local shell would have emitted. pi's ``message_update``
carries the whole partial message and a coalesced delta; the server keeps only the newest
update of a message for clients attaching later. So the stream is rebuilt from the partials
(:class:`StreamRebuilder`): each text and thinking block's delta is what its partial grew by,
and every block gets its start and end, even when the lines that carried them were dropped, so
a renderer sees the same sequence as with a local shell.
"""

from __future__ import annotations

from typing import Any

from agent_core import (
    AssistantMessage,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    TextContent,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingContent,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    event_from_wire,
    message_from_wire,
    stream_event_from_wire,
)
from agent_core.events import AssistantStreamEvent
from agent_core.records import convert
from pi_cli.shell import (
    BashExecutionMessage,
    OwnEvent,
    ShellEvent,
    ShellStateChanged,
    bash_message_from_wire,
)

AGENT_EVENTS = frozenset(
    {
        "agent_start",
        "agent_end",
        "turn_start",
        "turn_end",
        "message_start",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
    }
)
"""Lines that are agent_core events (``message_update`` is rebuilt, see the module doc)."""
IGNORED = frozenset({"queue_update", "thinking_level_changed", "extension_ui_request"})
"""pi's duplicates of events the shell has its own shape for (and approvals' request lines:
``permission_requested`` carries the same)."""


def message_of(data: dict[str, Any]) -> Any:
    """One message of a ``messages`` list (a ``bashExecution`` is the user's own command)."""
    if data.get("role") == "bashExecution":
        return bash_message_from_wire(data)
    return message_from_wire(data)


def own_event(data: dict[str, Any]) -> OwnEvent:
    """A shell event (not an agent_core one) from its wire dict."""
    from pi_cli.shell import OwnEvent as Union

    return convert(data, Union)


class StreamRebuilder:
    """The assistant stream events a local shell would have emitted, from pi's updates."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self.sent: dict[int, int] = {}  # block index -> characters delivered
        self.started: set[int] = set()
        self.ended: set[int] = set()

    def start(self) -> None:
        """A new assistant message begins."""
        self._reset()

    def update(self, partial: AssistantMessage, event: AssistantStreamEvent) -> list[MessageUpdate]:
        """The events for one ``message_update`` line (with everything it implies before it)."""
        out: list[AssistantStreamEvent] = []
        index = event.content_index
        for earlier in range(min(index, len(partial.content))):
            out += self._complete(partial, earlier)
        if index < len(partial.content):
            out += self._open(partial, index)
            if isinstance(event, ToolCallDelta):
                out.append(event)
            elif isinstance(event, TextEnd | ThinkingEnd | ToolCallEnd):
                out += self._complete(partial, index, event)
            else:
                out += self._grow(partial, index)
        return [MessageUpdate(message=partial, assistant_message_event=e) for e in out]

    def end(self, message: AssistantMessage) -> list[MessageUpdate]:
        """Whatever the final message has that was not streamed (blocks, ends)."""
        out: list[AssistantStreamEvent] = []
        for index in range(len(message.content)):
            out += self._complete(message, index)
        return [MessageUpdate(message=message, assistant_message_event=e) for e in out]

    def _open(self, message: AssistantMessage, index: int) -> list[AssistantStreamEvent]:
        if index in self.started:
            return []
        self.started.add(index)
        block = message.content[index]
        if isinstance(block, ThinkingContent):
            return [ThinkingStart(content_index=index)]
        if isinstance(block, ToolCall):
            return [ToolCallStart(content_index=index, id=block.id, name=block.name)]
        return [TextStart(content_index=index)]

    def _grow(self, message: AssistantMessage, index: int) -> list[AssistantStreamEvent]:
        block = message.content[index]
        text = block.text if isinstance(block, TextContent) else None
        if isinstance(block, ThinkingContent):
            text = block.thinking
        if text is None:
            return []
        sent = self.sent.get(index, 0)
        if len(text) <= sent:
            return []
        self.sent[index] = len(text)
        if isinstance(block, ThinkingContent):
            return [ThinkingDelta(content_index=index, delta=text[sent:])]
        return [TextDelta(content_index=index, delta=text[sent:])]

    def _complete(
        self, message: AssistantMessage, index: int, given: AssistantStreamEvent | None = None
    ) -> list[AssistantStreamEvent]:
        if index in self.ended:
            return []
        out = self._open(message, index) + self._grow(message, index)
        self.ended.add(index)
        if given is not None:
            return [*out, given]
        block = message.content[index]
        if isinstance(block, ThinkingContent):
            out.append(ThinkingEnd(content_index=index, content=block.thinking))
        elif isinstance(block, ToolCall):
            out.append(ToolCallEnd(content_index=index, tool_call=block))
        elif isinstance(block, TextContent):
            out.append(TextEnd(content_index=index, content=block.text))
        return out


class Decoder:
    """Lines of one session's stream -> shell events (``[]`` for lines that are none)."""

    def __init__(self) -> None:
        self.stream = StreamRebuilder()

    def events(self, data: dict[str, Any]) -> list[ShellEvent]:
        """The events ``data`` stands for, in order."""
        kind = data.get("type")
        if kind == "message_update":
            return self._update(data)
        if kind in AGENT_EVENTS:
            event = event_from_wire(_pi_messages(data))
            return self._agent(event)
        if kind == "shell_state":
            return [ShellStateChanged(state=data["state"])]
        if kind in IGNORED or kind in ("response", "attached") or not isinstance(kind, str):
            return []
        try:
            return [own_event(data)]
        except ValueError:
            return []  # a newer server's event this client does not know

    def _agent(self, event: Any) -> list[ShellEvent]:
        if isinstance(event, MessageStart) and isinstance(event.message, AssistantMessage):
            self.stream.start()
        if isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            return [*self.stream.end(event.message), event]
        return [event]

    def _update(self, data: dict[str, Any]) -> list[ShellEvent]:
        raw = data.get("assistantMessageEvent")
        message = data.get("message")
        if not isinstance(raw, dict) or not isinstance(message, dict):
            return []
        partial = message_from_wire(message)
        if not isinstance(partial, AssistantMessage):
            return []
        event = stream_event_from_wire({k: v for k, v in raw.items() if k != "partial"})
        return list(self.stream.update(partial, event))


def _pi_messages(data: dict[str, Any]) -> dict[str, Any]:
    """pi's ``bashExecution`` messages in an event (``agent_end``) as the shell's own."""
    messages = data.get("messages")
    if not isinstance(messages, list) or not any(
        isinstance(m, dict) and m.get("role") == "bashExecution" for m in messages
    ):
        return data
    converted = [
        bash_message_from_wire(m).model_dump(by_alias=True)
        if isinstance(m, dict) and m.get("role") == "bashExecution"
        else m
        for m in messages
    ]
    return {**data, "messages": converted}


__all__ = ["BashExecutionMessage", "Decoder", "StreamRebuilder", "message_of", "own_event"]
