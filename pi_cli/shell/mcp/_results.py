"""MCP content (tool results, resources, prompts) as pi's tool results and text.

Text is cut with the built-in tools' limits (:mod:`tools._truncate`: 2000 lines or 50 KB, the
head kept, a note saying what was left out); images pass through as images (at most
:data:`MAX_IMAGES`, each at most :data:`MAX_IMAGE_BYTES`); audio and binary resources are named,
not inlined; structured content is shown as JSON when the server sent no text for it.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from agent_core import ImageContent, TextContent, ToolResult
from tools import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head

MAX_IMAGES = 8
MAX_IMAGE_BYTES = 5 * 1024 * 1024
_IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")


def _size(data: str) -> int:
    return len(data) * 3 // 4


def block_parts(block: Any, server: str, images: list[ImageContent]) -> list[str]:
    """One MCP content block as text pieces; images are appended to ``images``."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return [str(block.text)]
    if kind == "image":
        return _image(block.data, block.mime_type, "image", images)
    if kind == "audio":
        return [f"[audio ({block.mime_type}, {format_size(_size(block.data))}) not shown]"]
    if kind == "resource_link":
        mime = f", {block.mime_type}" if block.mime_type else ""
        return [f"[resource {block.uri} ({block.name}{mime}): mention @{server}:{block.uri}]"]
    if kind == "resource":
        return resource_parts(block.resource, images)
    return [f"[unsupported content type {kind!r}]"]


def resource_parts(contents: Any, images: list[ImageContent]) -> list[str]:
    """A text or blob resource as text pieces (an image blob becomes an image)."""
    uri, mime = str(contents.uri), contents.mime_type or ""
    text = getattr(contents, "text", None)
    if isinstance(text, str):
        return [f"[resource {uri}]\n{text}"]
    blob = str(getattr(contents, "blob", ""))
    if mime in _IMAGE_TYPES:
        return _image(blob, mime, f"resource {uri}", images)
    return [f"[binary resource {uri} ({mime or 'unknown type'}, {format_size(_size(blob))})]"]


def _image(data: str, mime: str, what: str, images: list[ImageContent]) -> list[str]:
    if mime not in _IMAGE_TYPES:
        return [f"[{what} of type {mime} not shown: only PNG, JPEG, GIF and WebP are]"]
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return [f"[{what} not shown: its data is not valid base64]"]
    if _size(data) > MAX_IMAGE_BYTES:
        return [f"[{what} not shown: {format_size(_size(data))} is over the image limit]"]
    if len(images) >= MAX_IMAGES:
        return [f"[{what} not shown: more than {MAX_IMAGES} images in one result]"]
    images.append(ImageContent(data=data, mime_type=mime))
    return []


def clipped(text: str) -> tuple[str, dict[str, Any] | None]:
    """``text`` within the built-in limits, with the note the model reads when cut."""
    cut = truncate_head(text, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES)
    if not cut.truncated:
        return text, None
    note = (
        f"\n\n[Output truncated: showing {cut.output_lines} of {cut.total_lines} lines "
        f"({format_size(cut.output_bytes)} of {format_size(cut.total_bytes)}).]"
    )
    if cut.first_line_exceeds_limit:
        head = text.encode("utf-8", "surrogatepass")[:DEFAULT_MAX_BYTES].decode("utf-8", "ignore")
        return head + note, cut.to_details()
    return cut.content + note, cut.to_details()


def tool_result(result: Any, server: str, tool: str) -> tuple[ToolResult, bool]:
    """A ``CallToolResult`` as (pi's result, is_error)."""
    images: list[ImageContent] = []
    parts: list[str] = []
    for block in result.content or []:
        parts.extend(block_parts(block, server, images))
    structured = result.structured_content
    if structured is not None:
        if not any(part.strip() for part in parts):  # servers should also send it as text
            parts = [json.dumps(structured, ensure_ascii=False, indent=2, default=str)]
    text, truncation = clipped("\n\n".join(p for p in parts if p))
    if not text and not images:
        text = "(no output)"
    content: list[TextContent | ImageContent] = [TextContent(text=text)] if text else []
    content.extend(images)
    details: dict[str, Any] = {"server": server, "tool": tool}
    if structured is not None:
        details["structuredContent"] = structured
    if truncation is not None:
        details["truncation"] = truncation
    return ToolResult(content=content, details=details), bool(result.is_error)


def prompt_text(result: Any, server: str) -> tuple[str, list[ImageContent]]:
    """A ``GetPromptResult`` as one user input (assistant turns quoted as such)."""
    images: list[ImageContent] = []
    pieces: list[str] = []
    for message in result.messages:
        text = "\n".join(block_parts(message.content, server, images))
        pieces.append(text if message.role == "user" else f"[assistant]\n{text}")
    return clipped("\n\n".join(pieces))[0], images
