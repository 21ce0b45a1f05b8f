"""Command hooks from settings (Claude-Code style).

``{"hooks": {"PreToolUse": [{"matcher": "bash", "command": "...", "timeout": 30}], ...}}``; the
Claude Code nesting ``{"matcher": "Bash", "hooks": [{"type": "command", "command": "..."}]}`` is
accepted too. The event goes to the command as JSON on stdin. Exit 0 allows (stdout may be JSON
with ``decision: "block"``/``reason`` or ``updatedInput``); exit 2 blocks and its stderr is what
the model (tool hooks) or the user (prompt hooks) reads; other exit codes are reported and
ignored. A hook that outlives its timeout is killed; for ``PreToolUse`` that blocks the call
(fail safe: a permission gate that hangs must not allow).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT_S = 30.0
EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit")
BLOCK_EXIT = 2


@dataclass
class CommandHook:
    """One configured command."""

    event: str
    command: str
    matcher: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S

    def matches(self, tool_name: str | None) -> bool:
        """Whether this hook applies to ``tool_name`` (case-insensitive regex; empty/* = all)."""
        if tool_name is None or self.matcher in ("", "*"):
            return True
        try:
            return re.fullmatch(self.matcher, tool_name, flags=re.IGNORECASE) is not None
        except re.error:
            return self.matcher.lower() == tool_name.lower()


@dataclass
class HookOutcome:
    """What one command said."""

    block: bool = False
    message: str = ""  # stderr on exit 2, or the JSON reason
    updated_input: dict[str, Any] | None = None
    stdout: str = ""
    problem: str | None = None  # to report to the user (crash, bad exit code, timeout)
    data: dict[str, Any] = field(default_factory=dict)


def parse_hooks(config: dict[str, Any]) -> tuple[list[CommandHook], list[str]]:
    """Read the ``hooks`` setting. Returns (hooks, problems)."""
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
                hooks.append(CommandHook(event, command, matcher, timeout_s))
    return hooks, problems


async def run_command_hook(hook: CommandHook, payload: dict[str, Any], cwd: Path) -> HookOutcome:
    """Run one hook with ``payload`` on stdin and interpret its exit code and output."""
    env = dict(os.environ, PI_PROJECT_DIR=str(cwd), CLAUDE_PROJECT_DIR=str(cwd))
    try:
        process = await asyncio.create_subprocess_shell(
            hook.command,
            cwd=str(cwd),
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # so a timeout kills the whole process group
        )
    except OSError as exc:
        return HookOutcome(problem=f"hook {hook.command!r} could not start: {exc}")
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
        return HookOutcome(block=hook.event == "PreToolUse", message=reason, problem=reason)
    stdout = stdout_b.decode("utf-8", "replace").strip()
    stderr = stderr_b.decode("utf-8", "replace").strip()
    if process.returncode == BLOCK_EXIT:
        return HookOutcome(
            block=True, message=stderr or f"blocked by hook {hook.command!r}", stdout=stdout
        )
    if process.returncode != 0:
        return HookOutcome(
            stdout=stdout,
            problem=f"hook {hook.command!r} exited {process.returncode}: {stderr[:500]}",
        )
    outcome = HookOutcome(stdout=stdout)
    if stdout.startswith("{"):
        try:
            parsed = json.loads(stdout)
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            outcome.data = parsed
            raw_specific = parsed.get("hookSpecificOutput")
            specific: dict[str, Any] = raw_specific if isinstance(raw_specific, dict) else {}
            decision = parsed.get("decision") or specific.get("permissionDecision")
            if decision in ("block", "deny"):
                outcome.block = True
                outcome.message = str(
                    parsed.get("reason")
                    or specific.get("permissionDecisionReason")
                    or "blocked by hook"
                )
            updated = parsed.get("updatedInput", specific.get("updatedInput"))
            if isinstance(updated, dict):
                outcome.updated_input = updated
    return outcome


def _kill(process: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            process.kill()
        except ProcessLookupError:
            pass
