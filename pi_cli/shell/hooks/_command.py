"""Command hooks from settings, with Claude Code's contract.

``{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "..."}]}]}}``
(pi's flat ``{"matcher": ..., "command": ..., "timeout": ...}`` works too). The event goes to the
command as JSON on stdin, with Claude Code's field names. Exit 0: go on; stdout may be JSON
(``decision``, ``reason``, ``hookSpecificOutput.permissionDecision`` / ``permissionDecisionReason``
/ ``updatedInput`` / ``additionalContext`` / ``decision.behavior``, ``systemMessage``). Exit 2:
block (PreToolUse: the call; PermissionRequest: deny; Stop: keep going; UserPromptSubmit: drop
the prompt); its stderr is the reason. Other exit codes are reported and ignored. A hook that
outlives its timeout is killed; for ``PreToolUse`` and ``PermissionRequest`` that blocks
(fail safe: a permission gate that hangs must not allow).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT_S = 30.0
EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "PermissionRequest",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)
BLOCK_EXIT = 2
_FAIL_CLOSED = ("PreToolUse", "PermissionRequest")


@dataclass
class CommandHook:
    """One configured command."""

    event: str
    command: str
    matcher: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S
    source: str = ""
    env: Mapping[str, str] | None = None
    """More environment for this command (a plugin's ``CLAUDE_PLUGIN_ROOT``)."""

    def matches(self, names: str | tuple[str, ...] | None) -> bool:
        """Whether this hook applies to any of ``names`` (a tool's pi and Claude Code names, a
        SessionStart source...): a case-insensitive regex; empty or ``*`` matches all."""
        if names is None or self.matcher in ("", "*"):
            return True
        for name in (names,) if isinstance(names, str) else names:
            try:
                if re.fullmatch(self.matcher, name, flags=re.IGNORECASE) is not None:
                    return True
            except re.error:
                if self.matcher.lower() == name.lower():
                    return True
        return False


@dataclass
class HookOutcome:
    """What one command said.

    ``decision`` is the permission verdict (``allow``, ``ask``, ``deny``) when the hook gave one;
    ``block`` covers every "stop this" answer (exit 2, ``decision: block``, a ``deny``).
    """

    block: bool = False
    message: str = ""  # stderr on exit 2, or the JSON reason
    decision: str | None = None
    updated_input: dict[str, Any] | None = None
    additional_context: str = ""
    system_message: str = ""
    stdout: str = ""
    problem: str | None = None  # to report to the user (crash, bad exit code, timeout)
    data: dict[str, Any] = field(default_factory=dict)


def parse_hooks(config: Mapping[str, Any], source: str = "") -> tuple[list[CommandHook], list[str]]:
    """Read a ``hooks`` setting. Returns (hooks, problems)."""
    hooks: list[CommandHook] = []
    problems: list[str] = []
    for event, entries in config.items():
        if event not in EVENTS:
            problems.append(f"hooks: unknown event {event!r} (known: {', '.join(EVENTS)})")
            continue
        if not isinstance(entries, list):
            problems.append(f"hooks.{event} must be a list")
            continue
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                problems.append(f"hooks.{event}[{index}] must be an object")
                continue
            matcher = str(entry.get("matcher", "") or "")
            nested = entry.get("hooks")
            inner: list[Any] = nested if isinstance(nested, list) else [entry]
            for item in inner:
                command = item.get("command") if isinstance(item, dict) else None
                if not isinstance(command, str) or not command.strip():
                    problems.append(f"hooks.{event}[{index}] has no 'command'")
                    continue
                timeout: Any = item.get("timeout", entry.get("timeout", DEFAULT_TIMEOUT_S))
                try:
                    timeout_s = float(timeout)
                except (TypeError, ValueError):
                    problems.append(f"hooks.{event}[{index}].timeout must be a number of seconds")
                    timeout_s = DEFAULT_TIMEOUT_S
                hooks.append(CommandHook(event, command, matcher, timeout_s, source))
    return hooks, problems


async def run_command_hook(
    hook: CommandHook,
    payload: dict[str, Any],
    cwd: Path,
    env: Mapping[str, str] | None = None,
) -> HookOutcome:
    """Run one hook with ``payload`` on stdin and interpret its exit code and output."""
    base = dict(os.environ if env is None else env)
    base.update(PI_PROJECT_DIR=str(cwd), CLAUDE_PROJECT_DIR=str(cwd))
    base.update(hook.env or {})
    try:
        from tools.sandbox import processes

        # Its own session, ended with everything it started on a time-out or at pi's exit.
        process = await processes.start(
            ["/bin/sh", "-c", hook.command],
            name="hook",
            cwd=str(cwd),
            env=base,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except OSError as exc:
        return HookOutcome(
            block=hook.event in _FAIL_CLOSED,
            message=f"hook {hook.command!r} could not start",
            problem=f"hook {hook.command!r} could not start: {exc}",
        )
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    try:
        stdout_b, stderr_b = await asyncio.wait_for(
            process.communicate(data), timeout=hook.timeout_s
        )
    except (TimeoutError, asyncio.CancelledError) as exc:
        _kill(process)
        await process.wait()
        if isinstance(exc, asyncio.CancelledError):
            raise
        reason = f"hook {hook.command!r} timed out after {hook.timeout_s:g}s"
        return HookOutcome(block=hook.event in _FAIL_CLOSED, message=reason, problem=reason)
    stdout = stdout_b.decode("utf-8", "replace").strip()
    stderr = stderr_b.decode("utf-8", "replace").strip()
    if process.returncode == BLOCK_EXIT:
        return HookOutcome(
            block=True,
            decision="deny",
            message=stderr or f"blocked by hook {hook.command!r}",
            stdout=stdout,
        )
    if process.returncode != 0:
        return HookOutcome(
            stdout=stdout,
            problem=f"hook {hook.command!r} exited {process.returncode}: {stderr[:500]}",
        )
    return interpret_output(stdout)


def interpret_output(stdout: str) -> HookOutcome:
    """The meaning of an exit-0 hook's stdout (plain text, or Claude Code's JSON fields)."""
    outcome = HookOutcome(stdout=stdout)
    if not stdout.startswith("{"):
        return outcome
    try:
        parsed = json.loads(stdout)
    except json.JSONDecodeError:
        return outcome
    if not isinstance(parsed, dict):
        return outcome
    outcome.data = parsed
    raw_specific = parsed.get("hookSpecificOutput")
    specific: dict[str, Any] = raw_specific if isinstance(raw_specific, dict) else {}
    verdict = specific.get("decision")  # PermissionRequest: {"behavior": "allow"|"deny", ...}
    behaviour = verdict.get("behavior") if isinstance(verdict, dict) else None
    decision = specific.get("permissionDecision") or behaviour or parsed.get("decision")
    reason = (
        specific.get("permissionDecisionReason")
        or (verdict.get("message") if isinstance(verdict, dict) else None)
        or parsed.get("reason")
    )
    if decision in ("block", "deny"):
        outcome.block, outcome.decision = True, "deny"
        outcome.message = str(reason or "blocked by hook")
    elif decision in ("allow", "approve"):
        outcome.decision, outcome.message = "allow", str(reason or "")
    elif decision == "ask":
        outcome.decision, outcome.message = "ask", str(reason or "")
    updated = specific.get("updatedInput", parsed.get("updatedInput"))
    if isinstance(verdict, dict) and isinstance(verdict.get("updatedInput"), dict):
        updated = verdict["updatedInput"]
    if isinstance(updated, dict):
        outcome.updated_input = updated
    context = specific.get("additionalContext")
    if isinstance(context, str):
        outcome.additional_context = context
    if isinstance(parsed.get("systemMessage"), str):
        outcome.system_message = parsed["systemMessage"]
    return outcome


def _kill(process: asyncio.subprocess.Process) -> None:
    from tools.sandbox import processes

    processes.Tree(process.pid).kill()
