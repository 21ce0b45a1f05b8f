"""The ``pi`` command. Front ends are imported lazily so each path loads only what it uses."""

from __future__ import annotations

import gc
import os
import sys

from pi_cli import __version__

TYPE_CHECKING = False  # not typing's: importing typing is ~6 ms of `pi --version`

if TYPE_CHECKING:
    from pi_cli.args import LaunchArgs


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pi`` console script."""
    code = _main(argv)
    fast_exit = sys.modules.get("pi_cli.fast_exit")  # loaded by a one-shot that finished
    if argv is None and fast_exit is not None:  # the console script: no teardown needed
        fast_exit.leave(code)
    return code


def _main(argv: list[str] | None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-v"]):  # fast path: no typer, no pydantic
        print(f"pi {__version__}")
        return 0
    _keep_dataclass_code()
    if argv is None and not _informational(args):
        # Keys out of reach of tools: exec again without them in environ and argv (or return).
        from pi_cli.secret_env import hide_secrets

        args = hide_secrets(args)
    # One try around the imports and the run: Ctrl+C while start-up still imports must exit
    # quietly (130), and a bug anywhere is one line unless PI_DEBUG asks for the traceback.
    from pi_cli.args import ExitCode, error

    try:
        os.getcwd()
    except OSError:  # FileNotFoundError: deleted (or unmounted) under the shell
        error(
            "the current directory no longer exists (deleted or unmounted?): "
            "cd into an existing directory and run pi again"
        )
        return ExitCode.USAGE
    worktree = None
    if any(a in ("-w", "--worktree") or a.startswith("--worktree=") for a in _before_dashes(args)):
        from pi_cli.shell import WorktreeError
        from pi_cli.worktree_cli import enter_worktree, take_worktree_flags

        args, name, base = take_worktree_flags(args)
        origin = os.getcwd()
        try:
            worktree = enter_worktree(name or "", base)
        except WorktreeError as exc:
            error(str(exc))
            return ExitCode.USAGE
    try:
        return _run(args)
    finally:
        if worktree is not None:
            from pathlib import Path

            from pi_cli.worktree_cli import leave_worktree

            os.chdir(origin)  # out of it before it may go
            leave_worktree(
                Path(origin), worktree[1], ask=sys.stdin.isatty() and sys.stderr.isatty()
            )


def _run(args: list[str]) -> int:
    from pi_cli.args import ExitCode, error, parse_fast
    from pi_cli.subcommands import find_subcommand

    try:
        subcommand = find_subcommand(args)
        if subcommand is not None:
            return subcommand.run(args[1:])
        launch_args = parse_fast(args)
        if launch_args is None:  # typer's message names an unknown option, not an extension's
            args, launch_args = _with_extension_flags(args)
        if launch_args is not None:  # every valid command line: no typer on the hot path
            # Start-up builds ~300k objects that live as long as the process: collecting
            # while they are made finds nothing and cost 20-50 ms. The shell's start-up
            # freezes them and turns collection back on (modes.common.try_build_shell); ACP,
            # which builds shells later, once its modules are imported (modes.acp.mode).
            gc.disable()
            from pi_cli.launch import launch

            return launch(launch_args)
        from pi_cli.cli_app import app

        app(args=args, prog_name="pi", standalone_mode=True)
    except SystemExit as exc:
        if exc.code in (0, None) and ("--help" in args or "-h" in args):
            _print_extension_flags()
        code = exc.code
        return code if isinstance(code, int) else (ExitCode.OK if code is None else ExitCode.USAGE)
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except Exception as exc:  # a bug: one line for the user, the traceback in a log file
        if os.environ.get("PI_DEBUG"):
            raise
        summary = _scrub(" ".join(f"{type(exc).__name__}: {exc}".split())[:300], args)
        log = write_crash_log(exc, args)
        where = f"the traceback is in {log}" if log else "set PI_DEBUG=1 for the traceback"
        error(f"internal error: {summary} ({where})")
        return ExitCode.ERROR
    finally:
        gc.enable()  # a path that built no shell (--list-models, an error) must not leave it off
    return ExitCode.OK


def _with_extension_flags(args: list[str]) -> tuple[list[str], LaunchArgs | None]:
    """A command line with flags extensions registered (known from their cache): the words
    left without them, and those parsed (their values for the shell; ``None``: still bad)."""
    if not any(word.startswith("--") for word in args):
        return args, None
    from pi_cli.args import parse_fast
    from pi_cli.shell import cached_flags, split_flags

    rest, values = split_flags(args, cached_flags())
    launch_args = parse_fast(rest) if values else None
    if launch_args is not None:
        launch_args.shell.extension_flags = values
    return rest, launch_args


def _print_extension_flags() -> None:
    """After ``--help``: the flags of the extensions pi has loaded before (from their cache)."""
    from pi_cli.shell import cached_flags, one_line

    flags = cached_flags()
    if flags:
        print("\nExtension flags (from extensions loaded before):")
    for flag in flags:
        value = " VALUE" if flag.get("type") == "string" else ""
        name = one_line(f"--{flag['name']}{value}")
        about = one_line(f"{flag.get('description') or ''} ({flag.get('extension', '?')})")
        print(f"  {name:<28} {about}")


def _scrub(text: str, args: list[str]) -> str:
    """``text`` without the --api-key value or any *_API_KEY / *_TOKEN from the environment."""
    from agent_core.providers.errors import redact

    secrets = [v for k, v in os.environ.items() if k.endswith(("_API_KEY", "_TOKEN")) and v]
    secrets += [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == "--api-key"]
    secrets += [arg.split("=", 1)[1] for arg in args if arg.startswith("--api-key=")]
    from pi_cli.secret_env import HELD, HELD_API_KEY  # keys taken out of environ and argv

    secrets += [*HELD.values(), *HELD_API_KEY]
    return redact(text, secrets)


def write_crash_log(exc: BaseException, args: list[str]) -> str | None:
    """Write ``exc``'s traceback to ``$PI_HOME/logs/crash-<time>-<pid>.log``; its path, or None.

    Written only for an internal error (a bug), never otherwise; keys are scrubbed from it.
    """
    import datetime
    import traceback

    from pi_cli.shell import pi_home

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    path = pi_home() / "logs" / f"crash-{stamp}-{os.getpid()}.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = _scrub("".join(traceback.format_exception(exc)), args)
        path.write_text(f"pi {__version__}, Python {sys.version.split()[0]}\n\n{text}", "utf-8")
    except OSError:
        return None
    return str(path)


def _before_dashes(args: list[str]) -> list[str]:
    return args[: args.index("--")] if "--" in args else args


def _keep_dataclass_code() -> None:
    """Dataclasses built from code compiled at an earlier start (see :mod:`._dataclass_code`)."""
    if os.environ.get("PI_NO_CODE_CACHE"):
        return
    from pi_cli._dataclass_code import install
    from pi_cli.shell import pi_home

    install(str(pi_home() / "cache"))


def _informational(args: list[str]) -> bool:
    """``--help``/``--version`` anywhere (before ``--``), or ``--list-models``: no tool runs."""
    words = args[: args.index("--")] if "--" in args else args
    return any(w in ("--help", "-h", "--version", "-v", "--list-models") for w in words)


if __name__ == "__main__":
    raise SystemExit(main())
