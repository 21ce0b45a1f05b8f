"""The model, session and theme pickers (item sources for :class:`PickerScreen`)."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

from pi_cli.tui.screens.picker import Item, PickerScreen


def model_items() -> list[Item]:
    """Known models from the provider catalogue (slow: run in a thread)."""
    from agent_core import providers  # lazy: the catalogue is never on the first-frame path

    return [(m.id, m.id) for m in providers.list_models()]


def model_picker(current: str) -> PickerScreen:
    """Pick a model; free text is accepted (``provider/model`` not in the catalogue)."""
    return PickerScreen(
        "Model (type to filter, Enter to choose)",
        [(current, f"{current}  (current)")],
        loader=model_items,
        current=current,
        allow_free_text=True,
    )


def _first_prompt(path: Path) -> str:
    try:
        with path.open(encoding="utf-8") as handle:
            for _, line in zip(range(50), handle, strict=False):
                data = json.loads(line)
                message = data.get("message") if isinstance(data, dict) else None
                if isinstance(message, dict) and message.get("role") == "user":
                    content = message.get("content")
                    text = (
                        content
                        if isinstance(content, str)
                        else " ".join(
                            b.get("text", "") for b in content or [] if isinstance(b, dict)
                        )
                    )
                    return " ".join(text.split())[:80]
    except Exception:  # noqa: BLE001 - one odd file must not empty the whole /resume list
        pass
    return ""


def session_items(directory: Path) -> list[Item]:
    """This project's sessions, newest first: time, first prompt."""
    if not directory.is_dir():
        return []
    files = sorted(directory.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
    items = []
    for path in files:
        stamp = _dt.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        items.append((str(path), f"{stamp}  {_first_prompt(path) or path.stem}"))
    return items


def session_picker(directory: Path, current: str | None) -> PickerScreen:
    """Pick a session of this project to resume."""
    return PickerScreen("Resume session", loader=lambda: session_items(directory), current=current)


def theme_picker(names: list[str], current: str) -> PickerScreen:
    """Pick a theme."""
    return PickerScreen("Theme", [(n, n) for n in names], current=current)


def tree_items(entries: list[Any]) -> list[Item]:
    """Session-tree entries (``pi_cli.shell.branching.TreeEntry``) as picker rows.

    ``●`` marks the leaf, ``•`` the active branch, ``·`` other branches; indentation grows
    where the conversation branches.
    """
    rows = []
    for entry in entries:
        mark = "●" if entry.is_leaf else ("•" if entry.on_path else "·")
        rows.append((entry.id, f"{'  ' * entry.depth}{mark} {entry.preview}"))
    return rows


def tree_picker(entries: list[Any]) -> PickerScreen:
    """Pick an entry to continue from (a user message goes back into the editor)."""
    leaf = next((e.id for e in entries if e.is_leaf), None)
    return PickerScreen(
        "Session tree (Enter: continue from there; a prompt returns to the editor)",
        tree_items(entries),
        current=leaf,
    )
