"""Custom message rendering (the TypeScript pi's ``message-renderer.ts``): ``/status [warn|error]
message`` sends a ``status-update`` message, drawn with a coloured ``[LEVEL]`` prefix (and its
time when expanded)."""

from __future__ import annotations

import time

from pi_cli.shell.extensions import (
    CustomMessage,
    ExtensionAPI,
    ExtensionContext,
    MessageView,
    ViewSpan,
)


def register(pi: ExtensionAPI) -> None:
    def render(message: CustomMessage, expanded: bool) -> MessageView:
        details = message.details if isinstance(message.details, dict) else {}
        level = str(details.get("level", "info"))
        role = "error" if level == "error" else "warning" if level == "warn" else "success"
        lines = [
            [ViewSpan(text=f"[{level.upper()}]", role=role), ViewSpan(text=f" {message.content}")]
        ]
        if expanded and isinstance(details.get("timestamp"), int | float):
            at = time.strftime("%H:%M:%S", time.localtime(details["timestamp"] / 1000))
            lines.append([ViewSpan(text=f"  at {at}", role="dim")])
        return MessageView(lines=lines)

    pi.register_message_renderer("status-update", render)

    @pi.command("status", description="Send a status message (usage: /status [warn|error] message)")
    def status(args: str, ctx: ExtensionContext) -> None:
        parts = args.split()
        level, content = "info", args.strip()
        if parts and parts[0] in ("warn", "error"):
            level = parts[0]
            content = " ".join(parts[1:]) or "Status update"
        details = {"level": level, "timestamp": int(time.time() * 1000)}
        ctx.send_message("status-update", content, details=details)
