"""``/usage``: this session's and today's tokens, cost and cache hit rate, per model.

Both are read from the session files (``$PI_HOME/sessions/*/*.jsonl``), which record every
answer with its provider usage: this session's file counts every branch and what compaction
took out of the context (money spent stays spent); "today" is every answer since local
midnight in any session file changed today. A session without a file (``--no-session``) counts
its messages. Sub-agents' usage, reported in their ``task`` results, is its own row.
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core import AssistantMessage, Message, ToolResultMessage
from pi_cli.shell.commands import CommandResult
from pi_cli.shell.models.usage import (
    SessionUsage,
    cache_hit_rate,
    format_cost,
    short_tokens,
    usage_numbers,
)
from pi_cli.shell.paths import pi_home

if TYPE_CHECKING:
    from pi_cli.shell.commands import ShellAPI

SUB_AGENTS = "sub-agents"


@dataclass
class UsageTable:
    """Usage per model (``provider/model``; sub-agents on a row of their own)."""

    rows: dict[str, SessionUsage] = field(default_factory=dict)
    answers: int = 0

    def add(self, model: str, numbers: Sequence[float]) -> None:
        """Add one answer's (input, output, cache read, cache write, cost)."""
        row = self.rows.setdefault(model, SessionUsage())
        row.input += int(numbers[0])
        row.output += int(numbers[1])
        row.cache_read += int(numbers[2])
        row.cache_write += int(numbers[3])
        row.cost += float(numbers[4])

    @property
    def total(self) -> SessionUsage:
        """Every row summed."""
        total = SessionUsage()
        for row in self.rows.values():
            total.input += row.input
            total.output += row.output
            total.cache_read += row.cache_read
            total.cache_write += row.cache_write
            total.cost += row.cost
        return total


def _counts(usage: object, cost: object) -> tuple[float, ...] | None:
    """(input, output, cache read, cache write, cost) from a wire ``usage`` object, or None."""
    if not isinstance(usage, dict):
        return None
    values = [usage.get(k, 0) for k in ("input", "output", "cacheRead", "cacheWrite", "")]
    values[4] = cost if isinstance(cost, int | float) else 0.0
    if not all(isinstance(v, int | float) and v >= 0 for v in values):
        return None
    return tuple(float(v) for v in values)


def _add_message(table: UsageTable, message: dict[str, Any]) -> None:
    if message.get("role") == "assistant":
        usage = message.get("usage")
        cost = usage.get("cost") if isinstance(usage, dict) else None
        numbers = _counts(usage, cost.get("total") if isinstance(cost, dict) else None)
        if numbers is not None:
            table.add(f"{message.get('provider') or '?'}/{message.get('model') or '?'}", numbers)
            table.answers += 1
    elif message.get("role") == "toolResult" and isinstance(message.get("details"), dict):
        reported = message["details"].get("usage")  # a sub-agent's (task result)
        if isinstance(reported, dict) and isinstance(reported.get("cost"), int | float):
            numbers = _counts(reported, reported["cost"])
            if numbers is not None:
                table.add(SUB_AGENTS, numbers)


def _add_line(table: UsageTable, line: str, since_ms: int) -> None:
    """Count one session line if it is an answer (or a sub-agent's result) since ``since_ms``."""
    if '"usage"' not in line:
        return  # most lines: no JSON parsing
    try:
        data = json.loads(line)
    except ValueError:
        return  # a damaged line costs that line only
    message = data.get("message") if isinstance(data, dict) else None
    if not isinstance(message, dict):
        return
    stamp = message.get("timestamp")
    if isinstance(stamp, int | float) and stamp < since_ms:
        return
    _add_message(table, message)


def table_of_files(paths: Iterable[Path], since_ms: int = 0) -> UsageTable:
    """Usage per model over the answers in ``paths`` since ``since_ms`` (ms since the epoch)."""
    table = UsageTable()
    for path in paths:
        try:
            with path.open(encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    _add_line(table, line, since_ms)
        except OSError:
            continue  # deleted or unreadable meanwhile: the others still count
    return table


def table_of_messages(messages: Sequence[Message]) -> UsageTable:
    """Usage per model of messages in memory (a session without a file)."""
    table = UsageTable()
    for message in messages:
        if isinstance(message, AssistantMessage):
            table.add(f"{message.provider or '?'}/{message.model or '?'}", usage_numbers(message))
            table.answers += 1
        elif isinstance(message, ToolResultMessage) and any(usage_numbers(message)):
            table.add(SUB_AGENTS, usage_numbers(message))
    return table


def midnight_ms(now: _dt.datetime | None = None) -> int:
    """Local midnight today, in milliseconds since the epoch."""
    now = now or _dt.datetime.now().astimezone()
    return int(now.replace(hour=0, minute=0, second=0, microsecond=0).timestamp() * 1000)


def todays_files(since_ms: int, root: Path | None = None) -> list[Path]:
    """Session files changed since ``since_ms``, in every project."""
    root = root or pi_home() / "sessions"
    found = []
    for path in root.glob("*/*.jsonl"):
        try:
            if path.stat().st_mtime * 1000 >= since_ms:
                found.append(path)
        except OSError:
            continue
    return found


def _row(name: str, usage: SessionUsage) -> str:
    rate = cache_hit_rate(usage)
    hit = f"{rate:.0%}" if rate is not None else "–"
    return (
        f"  {name:<34} ↑{short_tokens(usage.input):>6} ↓{short_tokens(usage.output):>6}  "
        f"cache {short_tokens(usage.cache_read):>6} read {hit:>4} hit  {format_cost(usage.cost)}"
    )


def format_table(title: str, table: UsageTable) -> list[str]:
    """A titled table: one row per model, then the total when there are several."""
    if not table.rows:
        return [f"{title}: no answers yet"]
    answers = f"{table.answers} answer{'' if table.answers == 1 else 's'}"
    lines = [f"{title} ({answers}):"]
    lines += [_row(name, usage) for name, usage in sorted(table.rows.items())]
    if len(table.rows) > 1:
        lines.append(_row("total", table.total))
    return lines


def usage_text(shell: ShellAPI) -> str:
    """The text of ``/usage``."""
    path = shell.session.path
    session = (
        table_of_files([path]) if path is not None and path.exists() else None
    ) or table_of_messages(shell.messages)
    since = midnight_ms()
    today = table_of_files(todays_files(since), since)
    if path is None:  # not in any file: today's count lacks it
        for name, usage in session.rows.items():
            numbers = (usage.input, usage.output, usage.cache_read, usage.cache_write, usage.cost)
            today.add(name, numbers)
        today.answers += session.answers
    lines = format_table("This session", session) + [""] + format_table("Today", today)
    lines.append("↑ input ↓ output; cache hit: the share of the input read from the prompt cache.")
    return "\n".join(lines)


async def usage_command(shell: ShellAPI, args: str) -> CommandResult:
    """``/usage``."""
    return CommandResult(output=usage_text(shell))
