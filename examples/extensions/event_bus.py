"""Events between extensions (the TypeScript pi's ``event-bus.ts``): ``/emit message`` sends
``my:notification``, which this (or any other) extension's ``pi.events`` handler shows."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from pi_cli.shell.extensions import ExtensionAPI, ExtensionContext


class Notification(BaseModel):
    message: str
    sender: str


def register(pi: ExtensionAPI) -> None:
    @pi.events.on("my:notification", payload=Notification)
    def shown(data: Notification, ctx: ExtensionContext) -> None:
        ctx.ui.notify(f"Event from {data.sender}: {data.message}", "info")

    @pi.command("emit", description="Emit my:notification event (usage: /emit message)")
    def emit(args: str, ctx: ExtensionContext) -> None:
        pi.events.emit("my:notification", {"message": args.strip() or "hello", "sender": "/emit"})

    @pi.on("session_start")
    def started(event: Any, ctx: ExtensionContext) -> None:
        pi.events.emit(
            "my:notification", Notification(message="Session started", sender="event-bus-example")
        )
