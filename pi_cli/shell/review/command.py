"""``/review`` in every front end: the same review as ``pi review``, by a reviewer shell of its
own (plan mode, read-only tools, nobody to ask, the review model) beside the user's session.

The user's conversation is untouched: the report is the command's output. The reviewer shell
is built with the class of the user's shell (``type(shell)``): this folder sits below the
composition root and does not import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from pi_cli.shell.commands import CommandResult, split_args
from pi_cli.shell.review.options import REVIEW_USAGE, ReviewUsageError, parse_review_args
from pi_cli.shell.review.report import review_human
from pi_cli.shell.review.runner import reviewer_options, run_review
from pi_cli.shell.review.target import ReviewTargetError, resolve_review_target

if TYPE_CHECKING:
    from pi_cli.shell.commands import ShellAPI
    from pi_cli.shell.options import ShellOptions

SLASH_USAGE = "[commit|A..B|--branch|--base REF] [--focus TEXT] [--model M] [--fail-on S]"


async def review_command(shell: ShellAPI, args: str) -> CommandResult:
    """``/review [TARGET] [--focus TEXT] ...``: review changes, print the findings."""
    import asyncio

    try:
        parsed = parse_review_args(split_args(args), slash=True)
    except ReviewUsageError as exc:
        return CommandResult(output=f"/review: {exc}\nUsage: /review {SLASH_USAGE}", error=True)
    if parsed.help:
        return CommandResult(output=f"Usage: /review {SLASH_USAGE}\n\n{REVIEW_USAGE}")
    try:
        target = await asyncio.to_thread(
            resolve_review_target,
            shell.cwd,
            None if parsed.uncommitted else parsed.target,
            base=parsed.base,
            branch=parsed.branch,
        )
    except ReviewTargetError as exc:
        return CommandResult(output=f"/review: {exc}", error=True)
    if not target.diff.strip():
        return CommandResult(output=f"Nothing to review: {target.description} are empty.")
    model = parsed.model or shell.settings.review.model or shell.model_id
    options = reviewer_options(shell.options, model, parsed.focus)
    build = cast("Callable[[ShellOptions], Any]", type(shell))
    try:
        reviewer = build(options)
    except Exception as exc:  # noqa: BLE001 - ConfigError, SettingsError...: the user reads why
        return CommandResult(output=f"/review: the reviewer cannot start: {exc}", error=True)
    reviewer.subscribe(_progress(shell))
    from agent_core import AbortSignal

    cancel = AbortSignal()
    # Esc (the shell's abort) aborts the input being handled: the reviewer's parts stop too.
    handled = getattr(getattr(shell, "policy", None), "signal", None)
    stop = handled.on_abort(cancel.abort) if isinstance(handled, AbortSignal) else (lambda: None)
    try:
        report = await run_review(
            reviewer, target, focus=parsed.focus, fail_on=parsed.fail_on, cancel=cancel
        )
    finally:
        stop()
        await reviewer.aclose()
    if cancel.aborted:
        return CommandResult(output="/review: aborted", error=True)
    return CommandResult(output=review_human(report).rstrip("\n"), error=bool(report.incomplete))


def _progress(shell: ShellAPI) -> Callable[[Any], None]:
    """One notice per reviewed part, in the user's front end."""
    from pi_cli.shell.events.agent_tools import SubagentEnded, SubagentStarted

    def listen(event: Any) -> None:
        if isinstance(event, SubagentStarted):
            shell.notify(f"/review: {event.description} ({event.model})")
        elif isinstance(event, SubagentEnded) and event.error_message:
            shell.notify(f"/review: {event.task_id} failed: {event.error_message}", "warning")

    return listen
