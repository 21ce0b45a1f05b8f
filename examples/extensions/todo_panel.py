"""Todo panel: a panel above the editor with the notes ``/note`` adds, kept in the session.

Shows a panel (the TypeScript pi's ``setWidget`` above the editor), a command with argument
completion, a key binding (``todo_panel.toggle``, Ctrl+Shift+T; remap it in
``~/.pi/keybindings.json``) and state in the session: the notes follow ``/tree`` branches and
come back with ``pi -c``.
"""

from __future__ import annotations

from typing import Any

from pi_cli.shell.extensions import ExtensionAPI, ExtensionContext

KEY = "notes"
VERBS = ("add", "clear", "done")


def register(pi: ExtensionAPI) -> None:
    shown = True

    def notes(ctx: ExtensionContext) -> list[str]:
        current: list[str] = []
        for entry in ctx.entries("todo_panel"):
            current = list(entry.get("notes", []))
        return current

    def draw(ctx: ExtensionContext) -> None:
        items = notes(ctx)
        lines = [f"☐ {note}" for note in items] if shown and items else None
        ctx.ui.set_panel(KEY, lines)

    @pi.on("session_start")
    def start(event: Any, ctx: ExtensionContext) -> None:
        draw(ctx)

    @pi.command(
        description="Notes in a panel: /note add <text>, /note done <n>, /note clear",
        usage="add <text> | done <n> | clear",
        complete=lambda typed: [verb for verb in VERBS if verb.startswith(typed)],
    )
    def note(args: str, ctx: ExtensionContext) -> str:
        verb, _, rest = args.strip().partition(" ")
        items = notes(ctx)
        if verb == "add" and rest.strip():
            items.append(rest.strip())
        elif verb == "done" and rest.strip().isdigit() and 0 < int(rest) <= len(items):
            items.pop(int(rest) - 1)
        elif verb == "clear":
            items = []
        else:
            return "Usage: /note add <text> | done <n> | clear"
        ctx.append_entry("todo_panel", {"notes": items})
        draw(ctx)
        return f"{len(items)} note(s)"

    @pi.key("toggle", "ctrl+shift+t", description="Show or hide the notes panel")
    def toggle(event: Any, ctx: ExtensionContext) -> None:
        nonlocal shown
        shown = not shown
        draw(ctx)
