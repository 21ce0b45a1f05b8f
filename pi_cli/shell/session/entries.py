"""What a session line may hold: a check per known entry type, made when the entry is parsed.

Validation is lazy, like parsing: resuming a large session touches only the entries it needs,
and a bad one is reported when reached (file and line named), then skipped. An entry of a
type this pi does not know (a newer pi's) is valid: it stays in the file untouched, is copied
by ``/fork``, and shows in the tree as its type.

A ``partial`` entry holds text and thinking of an answer still streaming, written at most once
a second (:mod:`pi_cli.shell.session.record`). It is not a tree node: its ``parentId`` is where
the answer will attach. The finished message supersedes it; if the process died first, the
next open turns the partials into one message marked incomplete.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PARTIAL = "partial"
CHECKPOINT = "checkpoint"
CHECKPOINT_KINDS = ("turn", "run_end", "restore", "restored")
QUEUE = "queue"
GOAL = "goal"
GOAL_STATUSES = ("pursuing", "paused", "met", "unmet", "budget-limited", "dropped")
SCHEDULE = "schedule"
SIDECARS = frozenset({PARTIAL, QUEUE})
"""Entry types that are no tree nodes (``parentId`` says where they belong): the streaming
answer's ``partial`` entries and the durable queue's ``queue`` entries."""
INCOMPLETE = (
    "Incomplete: pi stopped while this answer was streaming; the text shown is what had arrived"
)
KNOWN_ROLES = frozenset({"user", "assistant", "toolResult"})


def entry_problem(data: dict[str, Any]) -> str | None:
    """Why an entry of a known type cannot be used (one line), or None."""
    check = _CHECKS.get(str(data.get("type")))
    return check(data) if check is not None else None


def _message(data: dict[str, Any]) -> str | None:
    message = data.get("message")
    if not isinstance(message, dict):
        return "its message is missing or not an object"
    role = message.get("role")
    if not isinstance(role, str):
        return "its message has no role"
    if role == "bashExecution":  # pi's record of a command the user ran
        return None if isinstance(message.get("command"), str) else "its command is missing"
    if role not in KNOWN_ROLES:
        return f"its message role {role!r} is unknown (written by a newer pi?); kept in the file"
    content = message.get("content")
    if not isinstance(content, list) and not (role != "assistant" and isinstance(content, str)):
        return f"the content of its {role} message is not a list"
    return None


def _model_change(data: dict[str, Any]) -> str | None:
    model = data.get("model")
    return None if isinstance(model, str) and model.strip() else "it names no model"


def _thinking_change(data: dict[str, Any]) -> str | None:
    level = data.get("thinkingLevel")
    return None if isinstance(level, str) and level else "it names no thinking level"


def _compaction(data: dict[str, Any]) -> str | None:
    if not isinstance(data.get("summary"), str):
        return "its summary is missing or not text"
    if not isinstance(data.get("firstKeptEntryId"), str | None):
        return "its firstKeptEntryId is not an entry id"
    if not isinstance(data.get("details"), dict | None):
        return "its details are not an object"
    return None


def _partial(data: dict[str, Any]) -> str | None:
    deltas = data.get("deltas")
    if not isinstance(deltas, list) or not all(_is_delta(d) for d in deltas):
        return "its deltas are not a list of {index, type, text}"
    return None


def _checkpoint(data: dict[str, Any]) -> str | None:
    tree = data.get("tree")
    if not isinstance(tree, str) or len(tree) not in (40, 64) or not tree.isalnum():
        return "its tree is not a git object id"
    if data.get("kind") not in CHECKPOINT_KINDS:
        return f"its kind {data.get('kind')!r} is unknown"
    return None


def _queue(data: dict[str, Any]) -> str | None:
    items = data.get("items")
    if not isinstance(items, list) or not all(
        isinstance(i, dict) and isinstance(i.get("text"), str) for i in items
    ):
        return "its items are not a list of {text, kind}"
    return None


def _goal(data: dict[str, Any]) -> str | None:
    if not isinstance(data.get("goalId"), str) or not data["goalId"]:
        return "it names no goal id"
    if data.get("status") not in GOAL_STATUSES:
        return f"its status {data.get('status')!r} is unknown"
    if data["status"] != "dropped" and not isinstance(data.get("condition"), str):
        return "its condition is not text"
    if not isinstance(data.get("check"), str | None):
        return "its check command is not text"
    rounds = data.get("rounds", 0)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 0:
        return "its rounds are not a count"
    return None


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


def _schedule(data: dict[str, Any]) -> str | None:
    kind = data.get("kind")
    problems = [
        (not isinstance(data.get("scheduleId"), str) or not data["scheduleId"], "names no id"),
        (kind not in ("interval", "cron", "once"), f"its kind {kind!r} is unknown"),
        (data.get("status") not in ("active", "ended", "deleted"), "its status is unknown"),
        (not isinstance(data.get("prompt"), str), "its prompt is not text"),
        (not _number(data.get("createdAt")), "its creation time is not a time"),
        (kind == "interval" and not (_number(data.get("everyS")) and data["everyS"] >= 1),
         "its interval is not a count of seconds"),
        (kind == "cron" and not isinstance(data.get("cron"), str), "its cron is not text"),
        (kind == "once" and not _number(data.get("at")), "its time is not a time"),
        (any(data.get(k) is not None and not _number(data[k])
             for k in ("lastFiredAt", "skippedAt", "until", "maxFirings")), "a time is not a time"),
        (not isinstance(data.get("fired", 0), int) or isinstance(data.get("fired"), bool)
         or data.get("fired", 0) < 0, "its firings are not a count"),
    ]  # fmt: skip
    return next((problem for bad, problem in problems if bad), None)


def _session_info(data: dict[str, Any]) -> str | None:
    return None if isinstance(data.get("name", ""), str) else "its name is not text"


def _label(data: dict[str, Any]) -> str | None:
    if not isinstance(data.get("targetId"), str):
        return "it names no target entry"
    return None if isinstance(data.get("label"), str | None) else "its label is not text"


def _branch_summary(data: dict[str, Any]) -> str | None:
    return None if isinstance(data.get("summary"), str) else "its summary is not text"


def _is_delta(delta: Any) -> bool:
    return (
        isinstance(delta, dict)
        and isinstance(delta.get("index"), int)
        and delta.get("type") in ("text", "thinking")
        and isinstance(delta.get("text"), str)
    )


_CHECKS: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "message": _message,
    "model_change": _model_change,
    "thinking_level_change": _thinking_change,
    "compaction": _compaction,
    PARTIAL: _partial,
    CHECKPOINT: _checkpoint,
    QUEUE: _queue,
    GOAL: _goal,
    SCHEDULE: _schedule,
    "session_info": _session_info,
    "label": _label,
    "branch_summary": _branch_summary,
}


def incomplete_message(partials: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The wire dict of the assistant message the ``partial`` entries add up to (None: empty)."""
    blocks: dict[int, list[str]] = {}
    kinds: dict[int, str] = {}
    meta: dict[str, Any] = {}
    for entry in partials:
        for key in ("api", "provider", "model"):
            if isinstance(entry.get(key), str):
                meta[key] = entry[key]
        for delta in entry.get("deltas") or []:
            blocks.setdefault(delta["index"], []).append(delta["text"])
            kinds[delta["index"]] = delta["type"]
    content = []
    for index in sorted(blocks):
        text = "".join(blocks[index])
        if kinds[index] == "thinking":
            content.append({"type": "thinking", "thinking": text})
        else:
            content.append({"type": "text", "text": text})
    if not content:
        return None
    return {
        "role": "assistant",
        "content": content,
        **meta,
        "stopReason": "aborted",
        "errorMessage": INCOMPLETE,
        "timestamp": int(time.time() * 1000),
    }


def still_streaming(pid: Any) -> bool:
    """Whether the process that wrote a ``partial`` entry is alive (another pi, streaming)."""
    if not isinstance(pid, int) or pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: alive, another user's
        return True
    return True


def line_number(path: Path, offset: int) -> int:
    """The 1-based line of ``path`` that starts at byte ``offset`` (only for warnings)."""
    count = 1
    try:
        with path.open("rb") as handle:
            remaining = offset
            while remaining > 0:
                chunk = handle.read(min(remaining, 1 << 20))
                if not chunk:
                    break
                count += chunk.count(b"\n")
                remaining -= len(chunk)
    except OSError:
        return 0
    return count


def first_problem(exc: Exception) -> str:
    """One line for a message that did not validate (pydantic's first error, not its essay)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors(include_url=False)[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            return " ".join(f"{where}: {first.get('msg', 'invalid')}".split())[:200]
        except Exception:  # noqa: BLE001 - fall back to the type name
            pass
    return type(exc).__name__
