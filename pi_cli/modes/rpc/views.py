"""What RPC answers about the shell, in pi's shapes (camelCase; our extra fields beside pi's)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agent_core import AssistantMessage, Message, ToolResultMessage, UserMessage, to_wire
from pi_cli.shell import BashExecutionMessage
from pi_cli.shell import session_name as name_of

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent, QueuedInput


def session_name(shell: CodingAgent) -> str | None:
    """The name of the newest ``session_info`` entry of the session (pi's session names)."""
    return name_of(shell.session)


def state_of(shell: CodingAgent) -> dict[str, Any]:
    """``get_state``: pi's ``RpcSessionState`` (``model`` is a Model object)."""
    state: dict[str, Any] = {
        "model": shell.controls.model_info(),
        "thinkingLevel": shell.thinking,
        "isStreaming": shell.state == "running",
        "isCompacting": shell.state == "compacting",
        "steeringMode": shell.queue.steering_mode,
        "followUpMode": shell.queue.follow_up_mode,
        "sessionId": shell.session.session_id,
        "autoCompactionEnabled": shell.settings.compaction.enabled,
        "messageCount": len(shell.messages),
        "pendingMessageCount": len(shell.queued()),
        # Ours: idle means no input at all is being handled (hooks, commands, compaction too).
        "isIdle": not shell.busy,
        "autoRetryEnabled": shell.controls.auto_retry,
        "todos": list(shell.agent_tools.todos.items),  # ours: the list todo_updated last sent
    }
    if shell.session.path is not None:
        state["sessionFile"] = str(shell.session.path)
    name = session_name(shell)
    if name is not None:
        state["sessionName"] = name
    return state


def message_wire(message: Message) -> dict[str, Any]:
    """A message as pi's clients read it (a command the user ran: pi's ``bashExecution``)."""
    if isinstance(message, BashExecutionMessage):
        return message.pi_wire()
    return to_wire(message)


def messages_of(shell: CodingAgent) -> list[dict[str, Any]]:
    """``get_messages``."""
    return [message_wire(m) for m in shell.messages]


def session_stats(shell: CodingAgent) -> dict[str, Any]:
    """``get_session_stats``: pi's ``SessionStats``."""
    messages = shell.messages
    usage = shell.usage
    used, window = shell.context_usage()
    stats: dict[str, Any] = {
        "sessionId": shell.session.session_id,
        "userMessages": sum(
            isinstance(m, UserMessage) and not isinstance(m, BashExecutionMessage) for m in messages
        ),
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
        "contextUsage": {
            "tokens": used,
            "contextWindow": window,
            "percent": round(100 * used / window, 1) if window else None,
        },
        # Ours, kept for existing clients.
        "contextTokens": used,
        "contextWindow": window,
    }
    if shell.session.path is not None:
        stats["sessionFile"] = str(shell.session.path)
    return stats


def _source_info(path: str, scope: str) -> dict[str, Any]:
    base = str(path).rsplit("/", 1)[0]
    pi_scope = scope if scope in ("user", "project") else "temporary"
    return {
        "path": path,
        "source": "local",
        "scope": pi_scope,
        "origin": "top-level",
        "baseDir": base,
    }


def commands_of(shell: CodingAgent) -> list[dict[str, Any]]:
    """``get_commands``: extensions' commands, prompt templates and skills, as pi lists them
    (built-ins are not)."""
    commands: list[dict[str, Any]] = []
    origins = shell.extensions.command_origins() if shell.extensions is not None else {}
    for name, (path, origin) in origins.items():
        command = shell.commands.get(name)
        commands.append(
            {
                "name": name,
                "description": command.description if command is not None else "",
                "source": "extension",
                "sourceInfo": _source_info(path, origin),
                "location": origin,
                "path": path,
            }
        )
    for template in shell.sources.templates:
        path = str(template.path)
        commands.append(
            {
                "name": template.name,
                "description": template.description,
                "source": "prompt",
                "sourceInfo": _source_info(path, template.source),
                "location": template.source,
                "path": path,
            }
        )
    for skill in shell.sources.skills:
        path = str(skill.path)
        commands.append(
            {
                "name": f"skill:{skill.name}",
                "description": skill.description,
                "source": "skill",
                "sourceInfo": _source_info(path, skill.source),
                "location": skill.source,
                "path": path,
            }
        )
    return commands


def queue_of(items: Sequence[QueuedInput]) -> dict[str, Any]:
    """The queue as ``{"items": [{id, text, kind}]}``."""
    return {"items": [to_wire(item.wire()) for item in items]}
