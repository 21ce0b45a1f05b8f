"""``pi --export SESSION [out.html]``: a session file as one HTML page, then exit (as pi)."""

from __future__ import annotations

from pathlib import Path

from pi_cli.args import ExitCode, LaunchArgs, error


def run_export(args: LaunchArgs) -> int:
    """Write the page; print its path. The prompt word, if any, is the output file."""
    from pi_cli.shell import (
        ExportError,
        SessionError,
        SessionStore,
        SettingsError,
        default_export_path,
        export_session,
        load_settings,
        one_line,
        resolve_session,
        say,
    )

    assert args.export is not None
    try:
        store = SessionStore.open(resolve_session(args.export, args.cwd), persist=False)
        theme = args.theme or load_settings(args.cwd).theme
    except (SessionError, SettingsError) as exc:
        error(str(exc))
        return ExitCode.USAGE
    out = args.prompt.strip()
    target = Path(out).expanduser() if out else default_export_path(store, args.cwd)
    try:
        path = export_session(store, target if target.is_absolute() else args.cwd / target, theme)
    except ExportError as exc:
        error(str(exc))
        return ExitCode.ERROR
    for warning in store.warnings:
        say(f"pi: {warning}", err=True)
    say(one_line(path))
    return ExitCode.OK
