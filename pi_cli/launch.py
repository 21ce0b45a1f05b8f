"""Turn parsed CLI arguments into a shell and a front end; map failures to exit codes."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


@dataclass
class LaunchArgs:
    """Everything the CLI parsed."""

    prompt: str = ""
    print_mode: bool = False
    mode: str = "text"
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    thinking: str | None = None
    tools: list[str] | None = None
    no_tools: bool = False
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    no_session: bool = False
    continue_session: bool = False
    session: str | None = None
    skills: list[str] = field(default_factory=list)
    theme: str | None = None
    plain: bool = False
    list_models: bool = False
    cwd: Path = field(default_factory=Path.cwd)


def error(message: str) -> None:
    """Print a user-facing error on stderr."""
    print(f"pi: {message}", file=sys.stderr, flush=True)


def shell_options(args: LaunchArgs):  # noqa: ANN201 - ShellOptions, imported lazily
    """The shell options for these arguments."""
    from pi_cli.shell.coding_agent import ShellOptions

    return ShellOptions(
        cwd=args.cwd,
        model=args.model,
        api_base=args.api_base,
        api_key=args.api_key,
        thinking=args.thinking,
        tools=args.tools,
        no_tools=args.no_tools,
        system_prompt=args.system_prompt,
        append_system_prompt=args.append_system_prompt,
        persist_session=not args.no_session,
        continue_session=args.continue_session,
        session=args.session,
        skill_paths=args.skills,
    )


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
            return EXIT_USAGE
    if stdin_text.strip():
        prompt = f"{prompt}\n\n{stdin_text}".strip() if prompt else stdin_text.strip()
    interactive = args.mode == "text" and not prompt and not args.print_mode
    if not interactive and args.mode != "rpc" and not prompt.strip():
        # -p or --mode json without a prompt: never send an empty prompt to the model.
        error("no prompt given: pass it as an argument or on stdin")
        return EXIT_USAGE
    try:
        if args.mode == "rpc":
            from pi_cli.modes.rpc_mode import run_rpc

            return run_rpc(args)
        if interactive:
            return _interactive(args)
        from pi_cli.modes.print_mode import run_print

        return run_print(args, prompt)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def _interactive(args: LaunchArgs) -> int:
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        error(
            'no prompt given. Run `pi "your prompt"`, pipe a prompt with `-p`, or start pi in a terminal.'
        )
        return EXIT_USAGE
    plain = args.plain or os.environ.get("TERM") == "dumb" or _settings_ui(args) == "plain"
    try:
        if plain:
            from pi_cli.modes.plain_repl import run_plain
        else:
            from pi_cli.tui.run import run_tui as run_plain  # noqa: F811 - same signature
    except ImportError:
        error('the interactive UI is not available yet in this build; run `pi "your prompt"`.')
        return EXIT_USAGE
    return run_plain(args)


def _settings_ui(args: LaunchArgs) -> str:
    """The ``ui`` setting (``tui`` or ``plain``); bad settings are reported later by the shell."""
    from pi_cli.shell.settings import SettingsError, load_settings

    try:
        return load_settings(args.cwd).ui
    except SettingsError:
        return "tui"
