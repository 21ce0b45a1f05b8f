"""Dispatch parsed command-line arguments to a front end (modes import nothing from here)."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable

from pi_cli.args import ExitCode, LaunchArgs, error


def launch(args: LaunchArgs) -> int:
    """Run pi as the arguments say; returns the exit code."""
    if args.list_models:
        from pi_cli.modes.list_models import print_models

        return print_models(args)
    if args.export is not None:
        from pi_cli.modes.export_cli import run_export

        return run_export(args)
    if args.replay is not None:
        from pi_cli.modes.replay_cli import run_replay

        return run_replay(args)
    prompt = args.prompt
    stdin_text = ""
    if (
        args.mode not in ("rpc", "acp")
        and not sys.stdin.isatty()
        and (args.print_mode or not prompt)
    ):
        try:
            stdin_text = sys.stdin.read()
        except (OSError, UnicodeDecodeError) as exc:
            error(f"cannot read stdin: {exc}")
            return ExitCode.USAGE
    if stdin_text.strip():
        prompt = f"{prompt}\n\n{stdin_text}".strip() if prompt else stdin_text.strip()
    if args.detach:
        from pi_cli.server.client.detach import run_detach

        return run_detach(args, prompt)
    interactive = args.mode == "text" and not prompt and not args.print_mode
    args.shell.offer_stored_queue = interactive or args.mode in ("rpc", "acp")
    if args.images and (interactive or args.mode in ("rpc", "acp")):
        # In the TUI, attach with @shot.png or by pasting the path; RPC: prompt.images.
        error('--image goes with a prompt: pi -i shot.png "what is in this picture?"')
        return ExitCode.USAGE
    if args.attach and args.mode != "acp":
        error("--attach goes with --mode acp (for a terminal: pi attach [ID])")
        return ExitCode.USAGE
    if args.resume and not interactive:
        error("--resume opens the session picker of the interactive UI; use --session ID here")
        return ExitCode.USAGE
    if args.shell.output_schema and (interactive or args.mode in ("rpc", "acp")):
        error("--output-schema works in one-shot and JSON mode only (-p or --mode json)")
        return ExitCode.USAGE
    if args.shell.goal_check and not args.shell.goal:
        error("--goal-check goes with --goal <condition>")
        return ExitCode.USAGE
    if (
        not interactive
        and args.mode not in ("rpc", "acp")
        and not prompt.strip()
        and not args.shell.goal  # -p --goal X: the goal's directive is the prompt
    ):
        # -p or --mode json without a prompt: never send an empty prompt to the model.
        error("no prompt given: pass it as an argument or on stdin")
        return ExitCode.USAGE
    try:
        if args.mode == "rpc":
            from pi_cli.modes.rpc.mode import run_rpc

            return run_rpc(args)
        if args.mode == "acp" and args.attach:
            from pi_cli.server.client.acp import run_acp_attach

            return run_acp_attach(args)
        if args.mode == "acp":
            from pi_cli.modes.acp.mode import run_acp

            return run_acp(args)
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
    args.background = _in_the_server(args)
    try:
        if plain:
            from pi_cli.modes.plain.repl import run_plain
        else:
            from pi_cli.tui.run import run_tui as run_plain
    except ImportError:
        error('the interactive UI is not available yet in this build; run `pi "your prompt"`.')
        return ExitCode.USAGE
    return run_plain(args)


def _in_the_server(args: LaunchArgs) -> Callable[[str], Awaitable[str]]:
    """``& prompt``: a run started in the server (pi serve's client loads only when used)."""

    async def start(prompt: str) -> str:
        import asyncio

        from pi_cli.server.client.detach import start_detached

        return await asyncio.to_thread(start_detached, args, prompt)

    return start


def _settings_ui(args: LaunchArgs) -> str:
    """The ``ui`` setting (``tui`` or ``plain``); bad settings are reported later by the shell."""
    from pi_cli.shell import SettingsError, load_settings

    try:
        return load_settings(args.cwd).ui
    except SettingsError:
        return "tui"
