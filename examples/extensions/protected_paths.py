"""Protected paths: block writes and edits to sensitive files.

pi's version of the TypeScript pi's ``examples/extensions/protected-paths.ts``: the same paths,
the same test (the path contains one of them), the same reason and notification. Copy it to
``~/.pi/extensions/`` (or a trusted project's ``.pi/extensions/``).
"""

from __future__ import annotations

from pi_cli.shell.extensions import Block, ExtensionAPI, ExtensionContext, ToolCallEvent

PROTECTED_PATHS = [".env", ".git/", "node_modules/"]


def register(pi: ExtensionAPI) -> None:
    @pi.on("before_tool_call")
    def guard(event: ToolCallEvent, ctx: ExtensionContext) -> Block | None:
        if event.tool_name not in ("write", "edit"):
            return None
        path = str(event.args.get("path", ""))
        if any(protected in path for protected in PROTECTED_PATHS):
            if ctx.has_ui:
                ctx.ui.notify(f"Blocked write to protected path: {path}", "warning")
            return Block(f'Path "{path}" is protected')
        return None
