"""The ``pi`` command. Front ends are imported lazily so each path loads only what it uses."""

from __future__ import annotations

import os
import sys

from pi_cli import __version__

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``pi`` console script."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["--version"], ["-v"]):  # fast path: no typer, no pydantic
        print(f"pi {__version__}")
        return EXIT_OK
    # One try around the imports and the run: Ctrl+C while start-up still imports must exit
    # quietly (130), and a bug anywhere is one line unless PI_DEBUG asks for the traceback.
    try:
        if (
            not args
        ):  # bare `pi`: the interactive UI, without paying for typer before the first frame
            from pi_cli.launch import LaunchArgs, launch

            return launch(LaunchArgs())
        from pi_cli.cli_app import app

        app(args=args, prog_name="pi", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (EXIT_OK if code is None else EXIT_USAGE)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug: one line for the user, the traceback only on request
        if os.environ.get("PI_DEBUG"):
            raise
        print(
            f"pi: internal error: {type(exc).__name__}: {exc} (set PI_DEBUG=1 for details)",
            file=sys.stderr,
        )
        return EXIT_ERROR
    return EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
