"""A tool that asks the user through the shell's dialog broker, as an extension or the
``ask_user`` tool would (front-end tests drive its questions and read its answers)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from agent_core import AbortSignal, ToolBase, ToolResult
from agent_core.tool import OnToolUpdate
from pi_cli.shell import CodingAgent


class AskArgs(BaseModel):
    kind: str
    title: str
    options: list[Any] = []
    multiple: bool = False
    allow_other: bool = False
    default: str | None = None
    message: str | None = None


class AskTool(ToolBase):
    """Asks the user through the shell's dialog broker; returns the answer as JSON."""

    name = "ask"
    description = "Ask the user (test double)."
    parameters = AskArgs
    shell: CodingAgent | None = None

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        assert self.shell is not None
        dialogs = self.shell.dialogs
        request = dialogs.request(
            args.kind,
            args.title,
            message=args.message,
            options=[tuple(o) if isinstance(o, list) else o for o in args.options],
            multiple=args.multiple,
            allow_other=args.allow_other,
            default=args.default,
            source="tool ask",
        )
        answer = await dialogs.ask(request)
        return ToolResult.of_text(
            json.dumps(
                {
                    "cancelled": answer.cancelled,
                    "values": list(answer.values),
                    "other": answer.other,
                    "text": answer.text,
                    "confirmed": answer.confirmed,
                }
            )
        )
