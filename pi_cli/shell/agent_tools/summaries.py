"""How front ends word a sub-agent's end: its summary once (the panel's title, the plain
line), in the footer's number formats; the task result's ``[agent …]`` trailer, which the model
reads, is left out of what the user sees beside it."""

from __future__ import annotations

import re

from pi_cli.shell.events.agent_tools import SubagentEnded
from pi_cli.shell.models.usage import format_cost, short_tokens

_AGENT_TRAILER = re.compile(r"^\[agent .+\]$")


def subagent_summary(event: SubagentEnded) -> str:
    """``3 turns · ↑2.5k ↓96 · $0.004`` (input counts cache reads, as the footer does)."""
    usage = event.usage
    tokens_in = int(usage.get("input", 0) + usage.get("cacheRead", 0))
    turns = f"{event.turns} turn{'' if event.turns == 1 else 's'}"
    tokens = f"↑{short_tokens(tokens_in)} ↓{short_tokens(int(usage.get('output', 0)))}"
    return f"{turns} · {tokens} · {format_cost(float(usage.get('cost', 0.0)))}"


def shown_result(name: str, text: str, details: object) -> str:
    """A tool result as the user sees it: a ``task`` result without its ``[agent …]`` trailer
    (the sub-agent's summary is shown once, where it ended)."""
    if name == "task" and isinstance(details, dict) and "usage" in details:
        lines = text.rstrip("\n").split("\n")
        if lines and _AGENT_TRAILER.match(lines[-1].strip()):
            return "\n".join(lines[:-1]).rstrip("\n")
    return text
