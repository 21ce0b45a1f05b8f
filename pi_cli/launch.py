"""Dispatch parsed command-line arguments to a front end (modes import nothing from here)."""

from __future__ import annotations

import os
import sys

from pi_cli.args import ExitCode, LaunchArgs, error


def launch(args: LaunchArgs) -> int:
    """Run pi as the arguments say; returns the exit code."""
    if args.list_models:
        from pi_cli.modes.list_models import print_models

        return print_models(args)
    prompt = args.prompt
    stdin_text = ""
    if args.mode != "rpc" and not sys.stdin.isatty() and (args.print_mode or not prompt):
        try:
            stdin_text = sys.stdin.read()
        except (OSError, UnicodeDecodeError) as exc:
            error(f"cannot read stdin: {exc}")
            return ExitCode.USAGE
    if stdin_text.strip():
        prompt = f"{prompt}\n\n{stdin_text}".strip() if prompt else stdin_text.strip()
    interactive = args.mode == "text" and not prompt and not args.print_mode
    if args.shell.output_schema and (interactive or args.mode == "rpc"):
        error("--output-schema works in one-shot and JSON mode only (-p or --mode json)")
        return ExitCode.USAGE
    if not interactive and args.mode != "rpc" and not prompt.strip():
        # -p or --mode json without a prompt: never send an empty prompt to the model.
        error("no prompt given: pass it as an argument or on stdin")
        return ExitCode.USAGE
    try:
        if args.mode == "rpc":
            from pi_cli.modes.rpc_mode import run_rpc

            return run_rpc(args)
        if interactive:
            return _interactive(args)
        from pi_cli.modes.print_mode import run_print

        return run_print(args, prompt)
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED


def _interactive(args: LaunchArgs) -> int:
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        error(
            'no prompt given. Run `pi "your prompt"`, pipe a prompt with `-p`, or start pi in a terminal.'
        )
        return ExitCode.USAGE
    plain = args.plain or os.environ.get("TERM") == "dumb" or _settings_ui(args) == "plain"
    try:
        if plain:
            from pi_cli.modes.plain_repl import run_plain
        else:
            from pi_cli.tui.run import run_tui as run_plain
    except ImportError:
        error('the interactive UI is not available yet in this build; run `pi "your prompt"`.')
        return ExitCode.USAGE
    return run_plain(args)


def _settings_ui(args: LaunchArgs) -> str:
    """The ``ui`` setting (``tui`` or ``plain``); bad settings are reported later by the shell."""
    from pi_cli.shell.settings import SettingsError, load_settings

    try:
        return load_settings(args.cwd).ui
    except SettingsError:
        return "tui"
