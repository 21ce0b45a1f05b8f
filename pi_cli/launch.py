"""Dispatch parsed command-line arguments to a front end (modes import nothing from here)."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable

from pi_cli.args import ExitCode, LaunchArgs, error


def launch(args: LaunchArgs) -> int:
    """Run pi as the arguments say; returns the exit code."""
    code = _file_command(args)
    if code is not None:
        return code
    prompt = _prompt_with_stdin(args)
    if prompt is None:
        return ExitCode.USAGE
    if args.detach:
        from pi_cli.server.client.detach import run_detach

        return run_detach(args, prompt)
    interactive = args.mode == "text" and not prompt and not args.print_mode
    args.shell.offer_stored_queue = interactive or args.mode in ("rpc", "acp")
    args.shell.one_shot = not interactive and args.mode in ("text", "json")
    misuse = _misuse(args, prompt, interactive)
    if misuse is not None:
        error(misuse)
        return ExitCode.USAGE
    try:
        return _run(args, prompt, interactive)
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED


def _file_command(args: LaunchArgs) -> int | None:
    """``--list-models``, ``--export`` and ``--replay``: no session, no model call."""
    if args.list_models:
        from pi_cli.modes.list_models import print_models

        return print_models(args)
    if args.export is not None:
        from pi_cli.modes.export_cli import run_export

        return run_export(args)
    if args.replay is not None:
        from pi_cli.modes.replay_cli import run_replay

        return run_replay(args)
    return None


def _prompt_with_stdin(args: LaunchArgs) -> str | None:
    """The prompt, with piped stdin appended (``None`` when stdin cannot be read: said)."""
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
            return None
    if stdin_text.strip():
        prompt = f"{prompt}\n\n{stdin_text}".strip() if prompt else stdin_text.strip()
    return prompt


def _misuse(args: LaunchArgs, prompt: str, interactive: bool) -> str | None:
    """What is wrong with this combination of options, if anything (a usage error)."""
    protocol = args.mode in ("rpc", "acp")
    checks = (
        # In the TUI, attach with @shot.png or by pasting the path; RPC: prompt.images.
        (args.images and (interactive or protocol),
         '--image goes with a prompt: pi -i shot.png "what is in this picture?"'),
        (args.attach and args.mode != "acp",
         "--attach goes with --mode acp (for a terminal: pi attach [ID])"),
        (args.resume and not interactive,
         "--resume opens the session picker of the interactive UI; use --session ID here"),
        (args.shell.output_schema and (interactive or protocol),
         "--output-schema works in one-shot and JSON mode only (-p or --mode json)"),
        (args.shell.goal_check and not args.shell.goal,
         "--goal-check goes with --goal <condition>"),
        # -p or --mode json without a prompt: never send an empty prompt to the model
        # (-p --goal X: the goal's directive is the prompt).
        (not interactive and not protocol and not prompt.strip() and not args.shell.goal,
         "no prompt given: pass it as an argument or on stdin"),
    )  # fmt: skip
    return next((message for wrong, message in checks if wrong), None)


def _run(args: LaunchArgs, prompt: str, interactive: bool) -> int:
    """The front end for the mode."""
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
