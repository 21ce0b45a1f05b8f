"""The ``pi`` command. Front ends are imported lazily so each path loads only what it uses."""

from __future__ import annotations

import os
import sys

from pi_cli import __version__


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pi`` console script."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-v"]):  # fast path: no typer, no pydantic
        print(f"pi {__version__}")
        return 0
    # One try around the imports and the run: Ctrl+C while start-up still imports must exit
    # quietly (130), and a bug anywhere is one line unless PI_DEBUG asks for the traceback.
    from pi_cli.args import ExitCode, find_subcommand, parse_fast

    try:
        subcommand = find_subcommand(args)
        if subcommand is not None:
            return subcommand.run(args[1:])
        launch_args = parse_fast(args)
        if launch_args is not None:  # every valid command line: no typer on the hot path
            from pi_cli.launch import launch

            return launch(launch_args)
        from pi_cli.cli_app import app

        app(args=args, prog_name="pi", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (ExitCode.OK if code is None else ExitCode.USAGE)
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except Exception as exc:  # a bug: one line for the user, the traceback only on request
        if os.environ.get("PI_DEBUG"):
            raise
        print(
            f"pi: internal error: {type(exc).__name__}: {exc} (set PI_DEBUG=1 for details)",
            file=sys.stderr,
        )
        return ExitCode.ERROR
    return ExitCode.OK


if __name__ == "__main__":
    raise SystemExit(main())
