"""``pi review``'s run: parse the words, resolve the target, build the reviewer, print the
report, choose the exit code. The front end (:mod:`pi_cli.review_cli`) gives the shell builder
and the progress printer, so this stays beside the rest of the review."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_cli.shell.options import ShellOptions
from pi_cli.shell.review.options import (
    REVIEW_USAGE,
    ReviewArgs,
    ReviewUsageError,
    parse_review_args,
    review_accepts,
)
from pi_cli.shell.review.report import ReviewReport, review_human, review_json, review_sarif
from pi_cli.shell.review.runner import reviewer_options, run_review
from pi_cli.shell.review.target import ReviewTarget, ReviewTargetError, resolve_review_target
from pi_cli.shell.text.terminal import say

# pi_cli.args.ExitCode's values (it imports the shell: not imported back; a test keeps them equal).
OK, ERROR, USAGE, BUDGET, SCHEMA, FINDINGS, INTERRUPTED = 0, 1, 2, 5, 6, 9, 130
Build = Callable[[ShellOptions], Any]
"""Builds a shell from options: the shell, or the reason it cannot start (a string)."""


def error(message: str) -> None:
    """A user-facing error on stderr."""
    say(f"pi: review: {message}", err=True)


def review_main(argv: list[str], build: Build, progress: Callable[[Any], Any], version: str) -> int:
    """Entry point of ``pi review`` (the words after ``review``); the exit code."""
    try:
        args = parse_review_args(argv)
    except ReviewUsageError as exc:
        error(str(exc))
        return USAGE
    if args.help:
        say("usage: " + REVIEW_USAGE)
        return OK
    cwd = Path.cwd()
    try:
        target = resolve_review_target(
            cwd, None if args.uncommitted else args.target, base=args.base, branch=args.branch
        )
    except ReviewTargetError as exc:
        error(str(exc))
        return USAGE
    shell = build(reviewer_options(_base_options(args, cwd), _model(args, cwd), args.focus))
    if isinstance(shell, str):
        say(f"pi: {shell}", err=True)
        return USAGE
    try:
        return asyncio.run(_run(shell, args, target, progress, version))
    except KeyboardInterrupt:
        return INTERRUPTED


def _model(args: ReviewArgs, cwd: Path) -> str | None:
    if args.model:
        return args.model
    from pi_cli.shell.config.settings import SettingsError, load_settings

    try:
        return load_settings(cwd).review.model
    except SettingsError:
        return None  # the shell says what is wrong with the file


def _base_options(args: ReviewArgs, cwd: Path) -> ShellOptions:
    return ShellOptions(
        cwd=cwd,
        provider=args.provider,
        api_base=args.api_base,
        api_key=args.api_key,
        api_key_file=args.api_key_file,
        max_cost=args.max_cost,
        max_turns=args.max_turns,
        trust=True if args.trust else None,
    )


async def _run(
    shell: Any, args: ReviewArgs, target: ReviewTarget, progress: Callable[[Any], Any], version: str
) -> int:
    from agent_core import AbortSignal
    from pi_cli.shell.events.agent_tools import BudgetExceeded

    cancel = AbortSignal()
    budget: list[BudgetExceeded] = []
    shell.subscribe(lambda e: budget.append(e) if isinstance(e, BudgetExceeded) else None)
    if args.format == "human" or args.output:
        shell.subscribe(progress(shell))
    interrupted: list[bool] = []

    def on_sigint() -> None:
        if interrupted:
            raise KeyboardInterrupt
        interrupted.append(True)
        cancel.abort()

    try:
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError):
        pass
    try:
        report = await run_review(
            shell, target, focus=args.focus, fail_on=args.fail_on, cancel=cancel
        )
    finally:
        await shell.aclose()
    if interrupted:
        return INTERRUPTED
    if not _write(report, args, version):
        return ERROR
    return _exit_code(report, bool(budget))


def _write(report: ReviewReport, args: ReviewArgs, version: str) -> bool:
    if args.format == "json":
        text = review_json(report)
    elif args.format == "sarif":
        text = json.dumps(review_sarif(report, version), ensure_ascii=False, indent=2) + "\n"
    else:
        text = review_human(report)
    if args.output is None:
        if args.format == "human":
            say(text.rstrip("\n"))  # cleaned: the model's words never reach the terminal raw
        else:
            sys.stdout.write(text)  # JSON escapes every control character
            sys.stdout.flush()
        return True
    try:
        Path(args.output).write_text(text, "utf-8")
    except OSError as exc:
        error(f"cannot write {args.output}: {exc.strerror or exc}")
        return False
    say(review_human(report).rstrip("\n"), err=True)
    return True


def _exit_code(report: ReviewReport, budget_hit: bool) -> int:
    if report.failed:
        return FINDINGS
    if not report.incomplete:
        return OK
    if budget_hit or "budget" in report.incomplete:
        return BUDGET
    return ERROR if "error" in report.incomplete else SCHEMA


class ReviewCli:
    """``pi review``'s entry points for its front end (:mod:`pi_cli.review_cli`)."""

    accepts = staticmethod(review_accepts)
    run = staticmethod(review_main)
