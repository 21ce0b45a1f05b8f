"""ACP content and pi's conversation: the MCP servers and prompt blocks a client sends as pi's
input, and a loaded session's conversation as ACP updates (used by :mod:`.mode`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core import AssistantMessage, ImageContent, ToolResultMessage, UserMessage
from pi_cli.modes.acp.sdk import helpers
from pi_cli.modes.acp.updates import tool_kind

if TYPE_CHECKING:
    from pi_cli.modes.acp.updates import AcpSession


def client_servers(servers: Any) -> dict[str, Any]:
    """The MCP servers an ACP client passes, as Claude Code entries (stdio, http, sse)."""
    entries: dict[str, Any] = {}
    for server in servers or []:
        kind = getattr(server, "type", None)
        if kind in ("http", "sse"):
            headers = {h.name: h.value for h in server.headers or []}
            entries[server.name] = {"type": kind, "url": server.url, "headers": headers}
        elif getattr(server, "command", None):
            env = {e.name: e.value for e in server.env or []}
            entries[server.name] = {
                "command": server.command,
                "args": list(server.args),
                "env": env,
            }
    return entries


def prompt_input(blocks: list[Any], cwd: Path) -> tuple[str, list[ImageContent]]:
    """ACP content blocks as pi's input: text, images, and resources as mentions/attachments."""
    parts: list[str] = []
    images: list[ImageContent] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "image":
            images.append(ImageContent(data=block.data, mime_type=block.mime_type))
        elif kind == "resource_link":
            uri = str(block.uri)
            parts.append("@" + uri.removeprefix("file://") if uri.startswith("file://") else uri)
        elif kind == "resource":
            resource = block.resource
            body = getattr(resource, "text", None)
            if body is None:
                parts.append(f"[binary resource {resource.uri}]")
            else:
                parts.append(f'<context uri="{resource.uri}">\n{body}\n</context>')
    return " ".join(p for p in parts if p).strip() or "(empty prompt)", images


def replay(session: AcpSession) -> None:
    """A loaded session's conversation as user/agent chunks and finished tool calls."""
    for message in session.shell.messages:
        if isinstance(message, UserMessage):
            text = "".join(getattr(b, "text", "") for b in message.content)
            session.update(helpers.update_user_message_text(text))
        elif isinstance(message, AssistantMessage):
            if message.text:
                session.update(helpers.update_agent_message_text(message.text))
            for call in message.tool_calls:
                session.update(
                    helpers.start_tool_call(
                        call.id,
                        session.shell.describe_call(call.name, call.arguments) or call.name,
                        kind=tool_kind(call.name),
                        status="completed",
                        raw_input=call.arguments,
                    )
                )
        elif isinstance(message, ToolResultMessage):
            text = "".join(getattr(b, "text", "") for b in message.content)
            session.update(
                helpers.update_tool_call(
                    message.tool_call_id,
                    status="failed" if message.is_error else "completed",
                    content=[helpers.tool_content(helpers.text_block(text))] if text else None,
                )
            )
