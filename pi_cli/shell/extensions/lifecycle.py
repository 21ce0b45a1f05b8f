"""pi-ts's lifecycle events the shell's own events do not name: ``before_agent_start`` (a run's
prompt, system prompt and extra messages), and the notifications ``session_switch``,
``session_fork``, ``session_tree``, ``session_compact`` and ``model_select`` derived from
``session_changed``, ``compaction_end`` and ``model_changed``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pi_cli.shell.extensions.runtime import CallFailed, Extension, Extensions

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent_core import Message
    from pi_cli.shell.events import ShellEvent
    from pi_cli.shell.run_start import RunStart

_SWITCH_NAMES = {"new": "session_switch", "resume": "session_switch", "fork": "session_fork"}


def _messages(value: object, name: str) -> list[Message]:
    """Extra messages as a handler gave them: text, a message, or a list of those."""
    from agent_core import AssistantMessage, ToolResultMessage, UserMessage, user_message

    items = (
        [value] if isinstance(value, str | Mapping) or not isinstance(value, Sequence) else value
    )
    found: list[Message] = []
    for item in items:
        if isinstance(item, UserMessage | AssistantMessage | ToolResultMessage):
            found.append(item)
        elif isinstance(item, Mapping) and isinstance(item.get("content"), str):
            found.append(user_message(str(item["content"])))  # pi-ts's {customType, content}
        elif isinstance(item, str) and item:
            found.append(user_message(item))
        elif item is not None:
            raise ValueError(f"extension {name}: a message is text or an agent_core message")
    return found


def _apply(start: RunStart, result: object, name: str) -> None:
    """A ``before_agent_start`` handler's answer applied to the run (``None``: nothing)."""
    from pi_cli.shell.extensions.api import BeforeAgentStart

    if isinstance(result, BeforeAgentStart):
        fields: Mapping[str, Any] = {
            "prompt": result.prompt,
            "system_prompt": result.system_prompt,
            "messages": list(result.messages) or None,
        }
    elif isinstance(result, Mapping):
        fields = {
            "prompt": result.get("prompt"),
            "system_prompt": result.get("system_prompt", result.get("systemPrompt")),
            "messages": result.get("messages", result.get("message")),
        }
    else:
        return
    if isinstance(fields["prompt"], str):
        start.prompt = fields["prompt"]
    if isinstance(fields["system_prompt"], str):
        start.system_prompt = fields["system_prompt"]
    if fields["messages"] is not None:
        start.messages.extend(_messages(fields["messages"], name))


class Lifecycle:
    """The lifecycle events of one shell's extensions."""

    def __init__(
        self,
        extensions: Extensions,
        handling: Callable[[str], list[Extension]],
        session_file: str | None,
        model: str,
    ) -> None:
        self.extensions = extensions
        self.handling = handling
        self.session_file = session_file
        self.model: str | None = model or None

    async def before_agent_start(self, start: RunStart) -> None:
        """A ``run_preparers`` entry: the handlers of ``before_agent_start`` in load order, each
        seeing what the one before changed. One that fails (or overruns) is disabled; the run
        starts with what the others decided."""
        from pi_cli.shell.extensions.api import AgentStartEvent

        extensions = self.extensions
        for ext in self.handling("before_agent_start"):
            if not await extensions.ensure(ext):
                continue
            for handler in ext.handlers("before_agent_start"):
                event = AgentStartEvent(start.prompt, start.system_prompt, list(start.images))
                try:
                    result = await extensions.call(ext, "before_agent_start", handler, event)
                except CallFailed:
                    break
                start.prompt, start.system_prompt = str(event.prompt), str(event.system_prompt)
                try:
                    _apply(start, result, ext.name)
                except ValueError as exc:
                    extensions.notify(f"Extension {ext.name}: {exc} (ignored)", "warning")

    def derive(self, event: ShellEvent) -> tuple[str, object] | None:
        """The pi-ts notification ``event`` also is, if any (with its payload)."""
        from pi_cli.shell.events import CompactionEnd, ModelChanged, SessionChanged

        if isinstance(event, SessionChanged):
            from pi_cli.shell.extensions.api import SessionSwitchEvent

            name = _SWITCH_NAMES.get(event.reason, "session_tree")
            previous, self.session_file = self.session_file, event.path
            return name, SessionSwitchEvent(
                event.reason, event.session_id, event.path, previous, type=name
            )
        if isinstance(event, CompactionEnd):
            from pi_cli.shell.extensions.api import SessionCompactEvent

            done = not event.aborted and event.error_message is None
            return "session_compact", SessionCompactEvent(
                event.reason,
                event.summary if done else None,
                event.first_kept_entry_id,
                event.tokens_before,
                event.tokens_after,
            )
        if isinstance(event, ModelChanged):
            from pi_cli.shell.extensions.api import ModelSelectEvent

            previous, self.model = self.model, event.model
            if previous == event.model:  # the thinking level alone changed
                return None
            return "model_select", ModelSelectEvent(event.model, previous, event.thinking)
        return None
