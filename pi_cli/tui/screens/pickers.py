"""The model, session and theme pickers (item sources for :class:`PickerScreen`)."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.shell import one_line, skill_call_of
from pi_cli.tui.screens.picker import Item, PickerScreen

if TYPE_CHECKING:
    from pi_cli.shell import ServedSource


def model_items(
    current: str, ports: dict[str, int] | None = None, sources: list[ServedSource] | None = None
) -> list[Item]:
    """Pickable models, best first: current, configured here (with what ``sources``, the
    custom servers, list), then the rest (slow: a thread)."""
    from pi_cli.shell import model_rows, served_models

    problems: list[str] = []
    served = served_models(sources) if sources else []
    rows = model_rows(current, ports, served=served, problems=problems)
    items: list[Item] = [("", "Configured here (current ✓, models.json, servers, keys set)")]
    others = False
    for row in rows:
        if not row.configured and not others:  # servers that did not answer end the section
            items += [("", f"⚠ {one_line(problem)}") for problem in problems]
            items.append(("", "Other known models (their provider needs a key)"))
            others = True
        mark = "✓" if row.current else " "
        items.append((row.spec, f"{mark} {row.spec}  {row.note}".rstrip()))
    if not others:
        items += [("", f"⚠ {one_line(problem)}") for problem in problems]
    return items


def model_picker(
    current: str, ports: dict[str, int] | None = None, sources: list[ServedSource] | None = None
) -> PickerScreen:
    """Pick a model; free text is accepted (``provider/model`` not in the catalogue)."""
    return PickerScreen(
        "Model (type to filter, Enter to choose; any provider/model may be typed)",
        [(current, f"✓ {current}  current")],
        loader=lambda: model_items(current, ports, sources),
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
                    call = skill_call_of(text)
                    return " ".join((call[0] if call else text).split())[:80]
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


def theme_picker(
    names: list[str], current: str, preview: Callable[[str], None] | None = None
) -> PickerScreen:
    """Pick a theme; each highlighted one is previewed (Esc goes back to ``current``)."""
    items = [(n, f"{'✓' if n == current else ' '} {n}") for n in names]
    return PickerScreen(
        "Theme (↑↓ preview, Enter keeps)", items, current=current, on_highlight=preview
    )


def history_picker(entries: list[str]) -> PickerScreen:
    """Ctrl+R: search earlier prompts, newest first; the choice goes into the editor."""
    items = [(text, " ".join(text.split())[:200]) for text in entries]
    return PickerScreen("Prompt history (type to search, Enter puts it in the editor)", items)


def tree_items(entries: list[Any]) -> list[Item]:
    """Session-tree entries (``pi_cli.shell.session.branching.TreeEntry``) as picker rows.

    ``●`` marks the leaf, ``•`` the active branch, ``·`` other branches; indentation grows
    where the conversation branches.
    """
    rows = []
    for entry in entries:
        mark = "●" if entry.is_leaf else ("•" if entry.on_path else "·")
        rows.append((entry.id, f"{'  ' * entry.depth}{mark} {entry.preview}"))
    return rows


def tree_picker(entries: list[Any], current: str | None = None) -> PickerScreen:
    """Pick an entry to continue from (a user message goes back into the editor); the leaf is
    highlighted unless ``current`` (the entry chosen before going back) is given."""
    leaf = next((e.id for e in entries if e.is_leaf), None)
    return PickerScreen(
        "Session tree (Enter: continue from there; a prompt returns to the editor)",
        tree_items(entries),
        current=current or leaf,
    )
