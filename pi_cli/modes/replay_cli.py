"""``pi --replay SESSION.jsonl``: replay a session's tool calls in a scratch copy of its
workspace and compare the results (exit 0: all alike, 8: a difference, 2: bad session).
``--replay-live`` instead sends the prompts that started its runs to the configured model, in a
scratch copy too, and prints the answers (exit 1 if a run failed)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.args import ExitCode, LaunchArgs, error
from pi_cli.shell import one_line, say

if TYPE_CHECKING:
    from pi_cli.shell import ReplayReport, SessionStore

SHOWN_CHARS = 600


def run_replay(args: LaunchArgs) -> int:
    """Entry point of ``--replay`` / ``--replay-live``."""
    from pi_cli.shell import SessionError, SessionStore, make_scratch, resolve_session

    assert args.replay is not None
    try:
        store = SessionStore.open(resolve_session(args.replay, args.cwd), persist=False)
    except SessionError as exc:
        error(str(exc))
        return ExitCode.USAGE
    recorded_cwd = Path(store.header.cwd) if store.header.cwd else args.cwd
    workspace = recorded_cwd if recorded_cwd.is_dir() else args.cwd
    scratch, source = make_scratch(store, workspace)
    say(f"pi: replaying {store.path} in {scratch} (from {source})", err=True)
    try:
        if args.replay_live:
            return _live(args, store, scratch)
        code = _replay(store, scratch, workspace, source)
    except Exception:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    if code == ExitCode.OK:
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        say(f"pi: the scratch copy is kept for a look: {scratch}", err=True)
    return code


def _shell(options: Any) -> Any:
    from pi_cli.args import LaunchArgs as _Args
    from pi_cli.modes.common import try_build_shell

    return try_build_shell(_Args(shell=options))


def _replay(store: SessionStore, scratch: Path, workspace: Path, source: str) -> int:
    import tools
    from pi_cli.modes.offline import NoModel
    from pi_cli.shell import (
        ReplayReport,
        SettingsError,
        ShellOptions,
        load_settings,
        recorded,
        replay,
    )

    try:
        settings = load_settings(scratch)
    except SettingsError as exc:
        error(str(exc))
        return ExitCode.USAGE
    settings.checkpoints.enabled = False  # the scratch copy needs no snapshots
    options = ShellOptions(
        cwd=scratch,
        stream_fn=NoModel("--replay replays recorded answers; it asks no model"),
        persist_session=False,
        tools=list(tools.TOOL_FACTORIES),
        settings=settings,
    )
    shell = _shell(options)
    if isinstance(shell, str):
        error(shell)
        return ExitCode.USAGE

    async def go() -> ReplayReport:
        try:
            report = ReplayReport(scratch, source)
            return await replay(shell, recorded(store), workspace, report)
        finally:
            await shell.aclose()

    report = asyncio.run(go())
    _print_report(report)
    return ExitCode.DIVERGED if report.divergences else ExitCode.OK


def _clip(text: str) -> str:
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"… ({len(text)} chars)"


def _print_report(report: ReplayReport) -> None:
    lines = [f"{report.matched} of {report.calls} tool results as recorded"]
    if report.not_run:
        lines.append(f"{report.not_run} call(s) the recording skipped were not run")
    if report.user_commands:
        lines.append(f"{report.user_commands} command(s) the user ran (!cmd) were not run again")
    for item in report.divergences:
        flags = ""
        if item.expected_error != item.got_error:
            flags = f" (recorded {'an error' if item.expected_error else 'success'}, now "
            flags += f"{'an error' if item.got_error else 'success'})"
        lines.append(f"DIFFERENT: call {item.number} {item.tool} {item.arguments}{flags}")
        lines.append(f"  recorded: {_clip(item.expected)!r}")
        lines.append(f"  now:      {_clip(item.got)!r}")
    say("\n".join(lines))


def _live(args: LaunchArgs, store: SessionStore, scratch: Path) -> int:
    from dataclasses import replace

    from pi_cli.shell import recorded, text_of

    prompts, previous = [], None
    for message in recorded(store):
        if message.get("role") == "user" and previous in (None, "assistant"):
            prompts.append(text_of(message.get("content")))
        previous = message.get("role")
    options = replace(args.shell, cwd=scratch, persist_session=False, session=None)
    options.continue_session = False
    shell = _shell(options)
    if isinstance(shell, str):
        error(shell)
        return ExitCode.USAGE

    async def go() -> int:
        failed = False
        try:
            for number, prompt in enumerate(prompts, 1):
                first = one_line(prompt.splitlines()[0][:200]) if prompt else ""
                say(f"--- prompt {number}/{len(prompts)}: {first}")
                await shell.submit(prompt)
                await shell.wait_idle()
                last = next((m for m in reversed(shell.messages) if m.role == "assistant"), None)
                say(last.text if last is not None else "(no answer)")
                failed = failed or (last is not None and last.stop_reason == "error")
        finally:
            await shell.aclose()
        return ExitCode.ERROR if failed else ExitCode.OK

    code = asyncio.run(go())
    say(f"pi: the live replay's files are in {scratch}", err=True)
    return code
