"""Status line: turn progress under the editor (the TypeScript pi's ``status-line.ts``)."""

from __future__ import annotations

from typing import Any

from pi_cli.shell.extensions import ExtensionAPI, ExtensionContext

KEY = "status-demo"


def register(pi: ExtensionAPI) -> None:
    turns = 0

    @pi.on("session_start")
    def ready(event: Any, ctx: ExtensionContext) -> None:
        ctx.ui.set_status(KEY, "Ready")

    @pi.on("turn_start")
    def started(event: Any, ctx: ExtensionContext) -> None:
        nonlocal turns
        turns += 1
        ctx.ui.set_status(KEY, f"● Turn {turns}...")

    @pi.on("turn_end")
    def ended(event: Any, ctx: ExtensionContext) -> None:
        ctx.ui.set_status(KEY, f"✓ Turn {turns} complete")

    @pi.on("session_changed")
    def reset(event: Any, ctx: ExtensionContext) -> None:
        nonlocal turns
        if event.reason == "new":
            turns = 0
            ctx.ui.set_status(KEY, "Ready")
