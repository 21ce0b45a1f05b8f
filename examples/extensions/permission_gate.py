"""Permission gate: confirm dangerous bash commands first (the TypeScript pi's
``permission-gate.ts``, with a yes/no confirmation for its ``Yes``/``No`` choice).

Where nobody can answer (``pi -p``, JSON mode) the command is blocked, as there.
"""

from __future__ import annotations

import re

from pi_cli.shell.extensions import Block, ExtensionAPI, ExtensionContext, ToolCallEvent

DANGEROUS = [
    re.compile(r"\brm\s+(-rf?|--recursive)", re.IGNORECASE),
    re.compile(r"\bsudo\b", re.IGNORECASE),
    re.compile(r"\b(chmod|chown)\b.*777", re.IGNORECASE),
]


def register(pi: ExtensionAPI) -> None:
    @pi.on("before_tool_call")
    async def gate(event: ToolCallEvent, ctx: ExtensionContext) -> Block | None:
        if event.tool_name != "bash":
            return None
        command = str(event.args.get("command", ""))
        if not any(pattern.search(command) for pattern in DANGEROUS):
            return None
        if not ctx.has_ui:
            return Block("Dangerous command blocked (no UI for confirmation)")
        if not await ctx.ui.confirm("⚠️ Dangerous command", f"{command}\n\nAllow?"):
            return Block("Blocked by user")
        return None
