"""Plan mode, as the TypeScript pi's plan-mode example: ``/plan`` offers the model only the
tools that read, so it can look but not change anything; ``/plan`` again gives every tool back.
A footer segment shows when it is on; ``pi --plan`` starts in it (a flag of the extension, as
pi-ts's ``registerFlag("plan")``).

A write the model sends anyway is not run: a tool that is not offered cannot be called.
"""

from typing import Any

from pi_cli.shell.extensions import ExtensionAPI, ExtensionContext

READ_ONLY = ("read", "ls", "grep", "find")


def register(pi: ExtensionAPI) -> None:
    saved: list[str] = []  # the tools offered before plan mode
    pi.register_flag("plan", description="Start in plan mode (read-only exploration)")

    @pi.on("session_start")
    def start(event: Any, ctx: ExtensionContext) -> None:
        if pi.get_flag("plan") is True and not saved and event.reason == "startup":
            ctx.ui.notify(plan("", ctx))

    @pi.command(description="Plan mode: only the tools that read (again: every tool back)")
    def plan(args: str, ctx: ExtensionContext) -> str:
        if saved:
            ctx.set_active_tools(saved)
            saved.clear()
            ctx.ui.set_footer("plan", None)
            return "Plan mode off: every tool is back."
        saved.extend(ctx.active_tools())
        ctx.set_active_tools([name for name in saved if name in READ_ONLY])
        ctx.ui.set_footer("plan", "⏸ plan")
        return f"Plan mode on: {', '.join(ctx.active_tools()) or 'no tools'}."
