"""Path-scoped rules reaching the model: appended to the result of the tool that touched a file.

When ``read``, ``edit`` or ``write`` names a file, or ``grep`` finds matches in files, the rules
whose ``paths`` match one of them and that the model has not seen yet are appended to that tool
result, after a marker line (``[pi: rule <path>]``). "Not seen yet" is read from the context the
call belongs to: a rule whose marker is in one of its tool results is there; after compaction
(the results summarised away) or in a sub-agent's own context it is shown again, once. A failed
call brings no rule. At most :data:`MAX_RULES_PER_RESULT` rules join one result; the others
come with the next call that touches their files.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_core import (
    AbortSignal,
    AfterToolCallContext,
    AfterToolCallResult,
    Message,
    TextContent,
    ToolResultMessage,
)
from agent_core.tool import AfterToolCall
from pi_cli.shell.prompt.rules import Rule, RuleSet

MAX_RULES_PER_RESULT = 5
MAX_GREP_FILES = 200
"""Files of a grep result looked at (the first ones)."""
_PATH_TOOLS = frozenset({"read", "edit", "write"})
_MARKER = re.compile(r"^\[pi: rule (.+)\]$", re.MULTILINE)
_GREP_LINE = re.compile(r"^(.+?):\d+: ", re.MULTILINE)


def marker(rule: Rule) -> str:
    """The line that starts a rule in a tool result (and says it was delivered)."""
    return f"[pi: rule {rule.path}]"


class ScopedRules:
    """Decides which rules join a tool result (see the module docstring)."""

    def __init__(self, rules: Callable[[], RuleSet], cwd: Path) -> None:
        self._rules = rules
        self._cwd = cwd
        self._list_id = 0  # the context last scanned (a list of messages), and how far
        self._scanned = 0
        self._first: object = None
        self._seen: set[str] = set()

    def wrap(self, previous: AfterToolCall | None) -> AfterToolCall:
        """An ``after_tool_call`` running ``previous`` first, then adding the rules."""

        async def after(
            ctx: AfterToolCallContext, signal: AbortSignal
        ) -> AfterToolCallResult | None:
            override = await previous(ctx, signal) if previous is not None else None
            if not self._rules().scoped:
                return override
            result, is_error = (ctx.result, ctx.is_error)
            if override is not None:
                result, is_error = override.apply(result, is_error)
            text = (
                None
                if is_error
                else self.text_for(
                    ctx.tool_call.name, ctx.tool_call.arguments, result.content, ctx.messages
                )
            )
            if not text:
                return override
            content = [*result.content, TextContent(text=text)]
            return AfterToolCallResult(content=content, details=result.details, is_error=is_error)

        return after

    def text_for(
        self, tool: str, args: dict[str, Any], content: list[Any], messages: list[Message]
    ) -> str | None:
        """The rules to append to this call's result, or ``None``."""
        rules = self._rules()
        paths = touched(tool, args, content, self._cwd)
        if not paths:
            return None
        seen = self._delivered(messages)
        chosen: list[tuple[Rule, Path]] = []
        for path in paths:
            for rule in rules.matching(path):
                if str(rule.path) not in seen and all(rule is not r for r, _ in chosen):
                    chosen.append((rule, path))
        chosen = chosen[:MAX_RULES_PER_RESULT]
        if not chosen:
            return None
        seen.update(str(rule.path) for rule, _ in chosen)  # a parallel call must not repeat it
        blocks = [
            f"{marker(rule)}\nThis project rule applies to {_shown(path, rules.root)}; "
            f"follow it:\n\n{rule.body}"
            for rule, path in chosen
        ]
        return "\n\n".join(blocks)

    def _delivered(self, messages: list[Message]) -> set[str]:
        """Rules whose marker is in ``messages`` (scanned incrementally; again from the start
        when the list is another one, shrank, or starts with another message: compaction)."""
        first = messages[0] if messages else None
        if (
            id(messages) != self._list_id
            or len(messages) < self._scanned
            or first is not self._first
        ):
            self._list_id, self._scanned, self._first, self._seen = id(messages), 0, first, set()
        for message in messages[self._scanned :]:
            if isinstance(message, ToolResultMessage):
                for block in message.content:
                    if isinstance(block, TextContent) and "[pi: rule " in block.text:
                        self._seen.update(_MARKER.findall(block.text))
        self._scanned = len(messages)
        return self._seen


def touched(tool: str, args: dict[str, Any], content: list[Any], cwd: Path) -> list[Path]:
    """The files a finished call touched: its ``path`` argument, or the files grep found."""
    if tool in _PATH_TOOLS:
        value = args.get("path")
        if not isinstance(value, str) or not value.strip():
            return []
        return [_absolute(value.strip().removeprefix("@"), cwd)]
    if tool == "grep":
        text = "\n".join(b.text for b in content if isinstance(b, TextContent))
        names = list(dict.fromkeys(_GREP_LINE.findall(text)))[:MAX_GREP_FILES]
        return [_absolute(name, cwd) for name in names]
    return []


def _absolute(value: str, cwd: Path) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else cwd / path


def _shown(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
