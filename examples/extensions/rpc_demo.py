"""Every extension UI call a remote client can show (the TypeScript pi's ``rpc-demo.ts``):
a title, a panel, a footer segment counting turns, a select on dangerous commands, an input, an
editor, and text put into the client's editor (``/rpc-prefill``). pi's ``session_switch`` event
stands for pi-ts's; pi does not offer ``session_before_switch`` (see the docs)."""

from __future__ import annotations

import re
from typing import Any

from pi_cli.shell.extensions import Block, ExtensionAPI, ExtensionContext, ToolCallEvent

DANGEROUS = re.compile(r"\brm\s+(-rf?|--recursive)|\bsudo\b", re.IGNORECASE)


def register(pi: ExtensionAPI) -> None:
    turns = 0

    @pi.on("session_start")
    def started(event: Any, ctx: ExtensionContext) -> None:
        ctx.ui.set_title("pi RPC Demo")
        ctx.ui.set_panel("rpc-demo", ["--- RPC Extension UI Demo ---", "Loaded and ready."])
        ctx.ui.set_footer("rpc-demo", f"Turns: {turns}")

    @pi.on("session_switch")
    def switched(event: Any, ctx: ExtensionContext) -> None:
        nonlocal turns
        turns = 0
        ctx.ui.set_title("pi RPC Demo (new session)")
        ctx.ui.set_footer("rpc-demo", f"Turns: {turns}")

    @pi.on("turn_start")
    def turn_started(event: Any, ctx: ExtensionContext) -> None:
        nonlocal turns
        turns += 1
        ctx.ui.set_footer("rpc-demo", f"Turn {turns} running...")

    @pi.on("turn_end")
    def turn_ended(event: Any, ctx: ExtensionContext) -> None:
        ctx.ui.set_footer("rpc-demo", f"Turn {turns} done")

    @pi.on("tool_call")
    async def guard(event: ToolCallEvent, ctx: ExtensionContext) -> Block | None:
        command = str(event.args.get("command", "")) if event.tool_name == "bash" else ""
        if not DANGEROUS.search(command):
            return None
        if not ctx.has_ui:
            return Block("Dangerous command blocked (no UI)")
        choice = await ctx.ui.select(f"Dangerous command: {command}", ["Allow", "Block"])
        if choice.value != "Allow":
            ctx.ui.notify("Command blocked by user", "warning")
            return Block("Blocked by user")
        ctx.ui.notify("Command allowed", "info")
        return None

    @pi.command("rpc-input", description="Prompt for text input (ctx.ui.input over RPC)")
    async def ask(args: str, ctx: ExtensionContext) -> None:
        value = await ctx.ui.input("Enter a value", "type something...")
        ctx.ui.notify(f"You entered: {value}" if value else "Input cancelled", "info")

    @pi.command("rpc-editor", description="Open multi-line editor (ctx.ui.editor over RPC)")
    async def edit(args: str, ctx: ExtensionContext) -> None:
        text = await ctx.ui.editor("Edit some text", "Line 1\nLine 2\nLine 3")
        lines = len(text.split("\n")) if text else 0
        ctx.ui.notify(f"Editor submitted ({lines} lines)" if text else "Editor cancelled", "info")

    @pi.command("rpc-prefill", description="Prefill the input editor (ctx.ui.set_editor_text)")
    def prefill(args: str, ctx: ExtensionContext) -> None:
        ctx.ui.set_editor_text("This text was set by the rpc-demo extension.")
        ctx.ui.notify("Editor prefilled", "info")
