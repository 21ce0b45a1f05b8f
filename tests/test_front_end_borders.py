"""Front ends call the shell and render its events; they never reach into the agent or keep a
queue of their own (issue 11)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FRONT_ENDS = [ROOT / "pi_cli" / "modes", ROOT / "pi_cli" / "tui", ROOT / "pi_cli" / "server"]
SHELL_INTERNALS = {"agent", "policy", "compactor", "hooks", "events", "models", "stream_fns"}


def _front_end_files() -> list[Path]:
    return sorted(p for root in FRONT_ENDS for p in root.rglob("*.py"))


def test_front_ends_use_the_shell_api_only() -> None:
    offences: list[str] = []
    for path in _front_end_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Attribute) or node.attr not in SHELL_INTERNALS:
                continue
            owner = node.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            if name == "shell":
                offences.append(f"{path.relative_to(ROOT)}:{node.lineno}: shell.{node.attr}")
    assert offences == []


def test_no_front_end_decides_steer_or_follow_up_itself() -> None:
    """Only the shell's submit puts text into the queues."""
    for path in _front_end_files():
        source = path.read_text()
        for call in (
            ".steer(",
            ".follow_up(",
            "clear_queues(",
            "steering_queue",
            "follow_up_queue",
        ):
            assert call not in source, f"{path.relative_to(ROOT)} uses {call}"
