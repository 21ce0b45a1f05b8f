"""A braille spinner in the terminal's title while the agent works (the TypeScript pi's
``titlebar-spinner.ts``): ``ctx.ui.set_title`` from a task on the extension's own loop."""

from __future__ import annotations

import asyncio
from typing import Any

from pi_cli.shell.extensions import ExtensionAPI, ExtensionContext

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def register(pi: ExtensionAPI) -> None:
    spinner: asyncio.Task[None] | None = None

    def base_title(ctx: ExtensionContext) -> str:
        name = pi.session_name
        return f"π - {name} - {ctx.cwd.name}" if name else f"π - {ctx.cwd.name}"

    async def spin(ctx: ExtensionContext) -> None:
        frame = 0
        while True:
            ctx.ui.set_title(f"{FRAMES[frame % len(FRAMES)]} {base_title(ctx)}")
            frame += 1
            await asyncio.sleep(0.08)

    def stop(ctx: ExtensionContext) -> None:
        nonlocal spinner
        if spinner is not None:
            spinner.cancel()
            spinner = None
        ctx.ui.set_title(base_title(ctx))

    @pi.on("agent_start")
    async def started(event: Any, ctx: ExtensionContext) -> None:
        nonlocal spinner
        stop(ctx)
        spinner = asyncio.get_running_loop().create_task(spin(ctx))

    @pi.on("agent_end")
    def ended(event: Any, ctx: ExtensionContext) -> None:
        stop(ctx)

    @pi.on("session_shutdown")
    def shutdown(event: Any, ctx: ExtensionContext) -> None:
        stop(ctx)
