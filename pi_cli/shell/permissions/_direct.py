"""Calls the user's own commands make, checked as the model's are, and rules granted for one run.

A Claude Code command file runs shell commands before its prompt is sent (``!`git status` ``)
and reads the files it names (``@src/app.py``); its ``allowed-tools`` front matter allows
calls for that command's run only. :func:`run_checked` sends such a call through the same
permission gate a model's call goes through (deny rules, PreToolUse hooks, mode and rules,
the user's approval), then runs the tool itself (so bash stays sandboxed and its output capped);
:func:`granted` adds the command's allow rules while its run lasts and removes exactly those
afterwards, whatever happens (an abort, an error).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent_core import (
    AbortSignal,
    AssistantMessage,
    TextContent,
    Tool,
    ToolCall,
    ToolResult,
    validate_arguments,
)
from agent_core.tool import AfterToolCallContext, ToolCallContext
from pi_cli.shell.permissions.engine import RuleSet
from pi_cli.shell.permissions.gate import ToolGate
from pi_cli.shell.permissions.rules import Rule, RuleError, parse_rule, split_rules

_IDS = itertools.count(1)


def parse_grants(
    allowed: str | Sequence[str], source: str, base: Path
) -> tuple[list[Rule], list[str]]:
    """``allowed-tools`` as rules (a string like ``Bash(git add:*), Read`` or a list of them);
    the problems of the ones that do not parse."""
    texts = [allowed] if isinstance(allowed, str) else list(allowed)
    rules: list[Rule] = []
    problems: list[str] = []
    for text in texts:
        for piece in split_rules(str(text)):
            try:
                rules.append(parse_rule(piece, source, base))
            except RuleError as exc:
                problems.append(f"{source}: {exc}")
    return rules, problems


@contextmanager
def granted(rules_set: RuleSet, rules: Sequence[Rule]) -> Iterator[None]:
    """``rules`` allow calls while the block runs; removed afterwards (exactly these)."""
    added = list(rules)
    rules_set.granted.extend(added)
    try:
        yield
    finally:
        for rule in added:
            for index, held in enumerate(rules_set.granted):
                if held is rule:
                    del rules_set.granted[index]
                    break


def _text_of(result: ToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, TextContent))


async def run_checked(
    gate: ToolGate,
    tools: Sequence[Tool],
    name: str,
    arguments: dict[str, Any],
    signal: AbortSignal | None = None,
) -> tuple[str, bool]:
    """Run one call of the tool ``name`` as if the model made it: (result text, is_error).

    A call the gate refuses is not run; its text is the reason.
    """
    tool = next((t for t in tools if t.name == name), None)
    if tool is None:
        return f"the {name} tool is not available in this session", True
    signal = signal or AbortSignal()
    call = ToolCall(id=f"user-command-{next(_IDS)}", name=name, arguments=arguments)
    args, error = validate_arguments(tool, call)
    if args is None:
        return error or f"invalid arguments for {name}", True
    message = AssistantMessage(content=[call])
    decision = await gate.before_tool_call(ToolCallContext(message, call, args, []), signal)
    if decision is not None and decision.block:
        return decision.reason or "refused by the permission gate", True
    if decision is not None and decision.arguments is not None:
        call = call.model_copy(update={"arguments": decision.arguments})
        args, error = validate_arguments(tool, call)
        if args is None:
            return error or f"invalid arguments for {name}", True
    try:
        result = await tool.execute(call.id, args, signal)
        is_error = False
    except Exception as exc:  # noqa: BLE001 - a tool's failure is this call's result, as for the model
        result, is_error = ToolResult.of_text(f"{type(exc).__name__}: {exc}"), True
    after = AfterToolCallContext(message, call, args, result, is_error, [])
    override = await gate.after_tool_call(after, signal)  # hooks, then keys masked
    if override is not None:
        result, is_error = override.apply(result, is_error)
    return _text_of(result), is_error
