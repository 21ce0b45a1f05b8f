"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Lines are ``{"timestamp", "type", "payload"}``; the conversation is in the ``response_item``
lines (the Responses API's items): ``message`` (user, assistant, developer), ``reasoning`` (its
summary becomes thinking; the encrypted part is OpenAI's alone and is left out),
``function_call`` / ``function_call_output`` and ``custom_tool_call`` / ``..._output``.
Codex's ``shell`` tool becomes pi's ``bash`` (``["bash", "-lc", CMD]`` is ``CMD``); other tools
(``apply_patch``, ``update_plan``, MCP tools) are kept as text, named, call and output, since
pi has no tool that takes their input. ``event_msg`` lines repeat the items for Codex's screen
and are counted; ``session_meta`` gives the working directory.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from agent_core import TextContent
from pi_cli.shell.importing._build import Builder, clip, millis


def _texts(content: object) -> str:
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
    return "\n".join(parts)


def _bash(arguments: dict[str, Any]) -> dict[str, Any] | None:
    command = arguments.get("command")
    if isinstance(command, list) and all(isinstance(c, str) for c in command):
        is_login_shell = len(command) == 3 and command[0] in ("bash", "sh", "zsh")
        text = command[2] if is_login_shell and command[1] in ("-lc", "-c") else shlex.join(command)
    elif isinstance(command, str):
        text = command
    else:
        return None
    out: dict[str, Any] = {"command": text}
    if isinstance(arguments.get("timeout_ms"), int):
        out["timeout"] = arguments["timeout_ms"] / 1000
    return out


def _output(value: object) -> tuple[str, bool]:
    """A function call's output: its text, and whether it failed (exit code not 0)."""
    text = value if isinstance(value, str) else json.dumps(value)
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text, False
    if isinstance(data, dict) and isinstance(data.get("output"), str):
        metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        code = metadata.get("exit_code") if isinstance(metadata, dict) else None
        failed = isinstance(code, int) and code != 0
        return data["output"] + (f"\n\nExit code {code}" if failed else ""), failed
    return text, False


def _item(build: Builder, item: dict[str, Any], stamp: int, texts: dict[str, str]) -> None:
    kind = item.get("type")
    if kind == "message":
        text = clip(_texts(item.get("content")))
        role = item.get("role")
        if role == "assistant":
            build.stamp = build.stamp or stamp
            build.text(text)
        elif role == "user":
            build.user([TextContent(text=text)] if text else [], stamp)
        else:
            build.kept_as_text[f"{role} message"] += 1
            build.user([TextContent(text=f"[imported Codex {role} message]\n{text}")], stamp)
    elif kind == "reasoning":
        build.stamp = build.stamp or stamp
        build.thinking(_texts(item.get("summary")))
    elif kind in ("function_call", "custom_tool_call"):
        _call(build, item, stamp, texts)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        call_id = str(item.get("call_id"))
        text, failed = _output(item.get("output"))
        if call_id in texts:
            build.kept_as_text[f"{texts[call_id]} output"] += 1
            build.user(
                [TextContent(text=f"[imported Codex {texts[call_id]} output]\n{clip(text)}")], stamp
            )
        else:
            build.result(call_id, [TextContent(text=clip(text))], failed, stamp)
    else:
        build.skipped[f"response_item {kind}"] += 1


def _call(build: Builder, item: dict[str, Any], stamp: int, texts: dict[str, str]) -> None:
    name = str(item.get("name", ""))
    call_id = str(item.get("call_id"))
    raw = item.get("arguments", item.get("input", ""))
    try:
        arguments = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        arguments = None
    build.stamp = build.stamp or stamp
    mapped = (
        _bash(arguments)
        if name in ("shell", "local_shell") and isinstance(arguments, dict)
        else None
    )
    if mapped is not None:
        build.call(call_id, "bash", mapped)
        return
    texts[call_id] = name
    build.kept_as_text[f"{name} call"] += 1
    shown = raw if isinstance(raw, str) else json.dumps(raw)
    build.text(f"[imported Codex {name} call {call_id}]\n{clip(shown)}")


def import_codex(lines: list[dict[str, Any]]) -> tuple[Builder, str | None]:
    """The conversation of a Codex rollout; (builder, its working directory)."""
    build = Builder("openai-responses", "openai")
    cwd: str | None = None
    texts: dict[str, str] = {}
    for number, line in enumerate(lines):
        value = line.get("payload")
        payload: dict[str, Any] = value if isinstance(value, dict) else {}
        stamp = millis(line.get("timestamp"), number)
        kind = line.get("type")
        if kind == "session_meta":
            cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else cwd
        elif kind == "turn_context":
            build.model = str(payload.get("model") or build.model)
        elif kind == "response_item":
            _item(build, payload, stamp, texts)
        else:
            build.skipped[
                str(kind if kind != "event_msg" else f"event_msg {payload.get('type')}")
            ] += 1
    return build, cwd
