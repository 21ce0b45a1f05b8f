"""Claude Code transcripts (``~/.claude/projects/<cwd>/<session>.jsonl``).

Each line is an event: ``user`` and ``assistant`` lines carry an Anthropic API message (an
assistant response is split over several lines sharing ``message.id``, one content block each;
tool results come back as ``user`` lines of ``tool_result`` blocks). Tools are named as pi names
them (``Bash`` -> ``bash``, ``file_path`` -> ``path``, ``old_string`` -> ``edits``...); other
tools (``TodoWrite``, ``Task``, MCP tools) keep their name and arguments. Lines that are no
conversation (``file-history-snapshot``, ``summary``, ``system``) are counted and named.
"""

from __future__ import annotations

import json
from typing import Any

from agent_core import ImageContent, TextContent, Usage
from pi_cli.shell.config.claude_names import PI_NAMES, from_claude_input
from pi_cli.shell.importing._build import Builder, clip, millis


def _content(value: object) -> list[Any]:
    """A user or tool-result content (a string, or text and image blocks)."""
    if isinstance(value, str):
        return [TextContent(text=clip(value))] if value else []
    out: list[Any] = []
    for block in value if isinstance(value, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            out.append(TextContent(text=clip(block["text"])))
        elif block.get("type") == "image" and isinstance(block.get("source"), dict):
            source = block["source"]
            if source.get("type") == "base64" and isinstance(source.get("data"), str):
                out.append(
                    ImageContent(data=source["data"], mime_type=str(source.get("media_type")))
                )
    return out


def _usage(value: object) -> Usage:
    if not isinstance(value, dict):
        return Usage()

    def number(key: str) -> int:
        got = value.get(key)
        return got if isinstance(got, int) else 0

    usage = Usage(
        input=number("input_tokens"),
        output=number("output_tokens"),
        cache_read=number("cache_read_input_tokens"),
        cache_write=number("cache_creation_input_tokens"),
    )
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    return usage


def _assistant(build: Builder, message: dict[str, Any]) -> None:
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            build.text(str(block.get("text", "")))
        elif kind == "thinking":
            build.thinking(str(block.get("thinking", "")), block.get("signature") or None)
        elif kind == "redacted_thinking":
            build.kept_as_text["redacted thinking"] += 1
        elif kind == "tool_use" and isinstance(block.get("id"), str):
            raw = str(block.get("name", ""))
            name = PI_NAMES.get(raw.lower(), raw)
            value = block.get("input")
            given: dict[str, Any] = value if isinstance(value, dict) else {}
            arguments = from_claude_input(name, given, {}) if name != raw else dict(given)
            if name == "bash":
                arguments.pop("description", None)
            build.call(block["id"], name, arguments)
        else:
            build.kept_as_text[f"assistant {kind} block"] += 1
            build.text(f"[imported Claude Code {kind} block]\n{json.dumps(block)[:20000]}")


def _user(build: Builder, message: dict[str, Any], stamp: int) -> None:
    content = message.get("content")
    if isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    ):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                build.result(
                    str(block.get("tool_use_id")),
                    _content(block.get("content")),
                    block.get("is_error") is True,
                    stamp,
                )
        rest = [b for b in content if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        if rest:
            build.user(_content(rest), stamp)
        return
    build.user(_content(content), stamp)


def import_claude(lines: list[dict[str, Any]]) -> tuple[Builder, str | None]:
    """The conversation of a Claude Code transcript; (builder, its working directory)."""
    build = Builder("anthropic-messages", "anthropic")
    cwd: str | None = None
    current: str | None = None
    for number, line in enumerate(lines):
        kind = line.get("type")
        message = line.get("message") if isinstance(line.get("message"), dict) else None
        stamp = millis(line.get("timestamp"), number)
        cwd = cwd or (line.get("cwd") if isinstance(line.get("cwd"), str) else None)
        if kind == "assistant" and message is not None:
            if message.get("id") != current:
                build.flush()
                current = message.get("id") if isinstance(message.get("id"), str) else None
            build.model = str(message.get("model") or build.model)
            build.stamp = build.stamp or stamp
            build.usage = _usage(message.get("usage"))
            _assistant(build, message)
        elif kind == "user" and message is not None:
            current = None
            _user(build, message, stamp)
        else:
            build.skipped[str(kind)] += 1
    return build, cwd
