"""Custom footer: ``/footer`` toggles a footer segment with token totals, cost, model and git
branch (the TypeScript pi's ``custom-footer.ts``, as a segment of pi's footer).

It is kept up to date after each turn and when the model or the session changes; the branch is
read from ``.git/HEAD`` (no process started).
"""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.extensions import ExtensionAPI, ExtensionContext

KEY = "stats"


def short(count: int) -> str:
    """``1234`` -> ``1.2k``."""
    return str(count) if count < 1000 else f"{count / 1000:.1f}k"


def git_branch(cwd: Path) -> str | None:
    """The checked-out branch, if ``cwd`` is in a git repository."""
    for folder in (cwd, *cwd.parents):
        head = folder / ".git" / "HEAD"
        if head.is_file():
            text = head.read_text(encoding="utf-8", errors="replace").strip()
            return text.removeprefix("ref: refs/heads/") if text.startswith("ref: ") else text[:8]
    return None


def footer_text(ctx: ExtensionContext) -> str:
    """``↑12.3k ↓1.2k $0.042  model (branch)``."""
    tokens_in = tokens_out = 0
    cost = 0.0
    for message in ctx.messages:
        if message.role == "assistant":
            tokens_in += message.usage.input
            tokens_out += message.usage.output
            cost += message.usage.cost.total
    branch = git_branch(ctx.cwd)
    where = f" ({branch})" if branch else ""
    return f"↑{short(tokens_in)} ↓{short(tokens_out)} ${cost:.3f}  {ctx.model or 'no-model'}{where}"


def register(pi: ExtensionAPI) -> None:
    enabled = False

    def refresh(ctx: ExtensionContext) -> None:
        if enabled:
            ctx.ui.set_footer(KEY, footer_text(ctx))

    @pi.command(description="Toggle custom footer")
    def footer(args: str, ctx: ExtensionContext) -> None:
        nonlocal enabled
        enabled = not enabled
        if enabled:
            refresh(ctx)
            ctx.ui.notify("Custom footer enabled")
        else:
            ctx.ui.set_footer(KEY, None)
            ctx.ui.notify("Default footer restored")

    for event in ("turn_end", "model_changed", "session_changed"):
        pi.on(event, lambda _event, ctx: refresh(ctx))
