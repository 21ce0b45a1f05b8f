"""``pi serve``: run the server, or manage it (``--status``, ``--stop``, ``--url``,
``--rotate-token``). See docs/server.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

USAGE = (
    "pi serve [--tcp [HOST:]PORT] [--allow-remote] [--socket PATH | --no-socket]\n"
    "         | --status | --stop | --url | --rotate-token"
)
_FLAGS = {
    "--tcp",
    "--socket",
    "--no-socket",
    "--allow-remote",
    "--on-demand",
    "--idle-exit",
    "--status",
    "--stop",
    "--url",
    "--rotate-token",
}


def accepts(argv: list[str]) -> bool:
    """``pi serve`` alone or with its flags (``pi serve the soup`` stays a prompt)."""
    words = [a for a in argv if not a.startswith("-")]
    flags = [a.split("=", 1)[0] for a in argv if a.startswith("-")]
    if any(flag not in _FLAGS for flag in flags):
        return False
    valued = sum(1 for f in flags if f in ("--tcp", "--socket", "--idle-exit"))
    return len(words) <= valued


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pi serve", usage=USAGE)
    parser.add_argument("--tcp", metavar="[HOST:]PORT", help="also listen on TCP (127.0.0.1)")
    parser.add_argument("--socket", metavar="PATH", help="the Unix socket (default: PI_HOME's)")
    parser.add_argument("--no-socket", action="store_true", help="TCP only")
    parser.add_argument("--allow-remote", action="store_true", help="a non-loopback --tcp host")
    parser.add_argument("--on-demand", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--idle-exit", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--status", action="store_true", help="is a server running? where?")
    parser.add_argument("--stop", action="store_true", help="stop the running server")
    parser.add_argument("--url", action="store_true", help="the web client's address")
    parser.add_argument("--rotate-token", action="store_true", help="replace the token")
    return parser


def run(argv: list[str]) -> int:
    """``pi serve ...``; returns the exit code."""
    from pi_cli.args import error

    args = _parser().parse_args(argv)
    try:
        if args.rotate_token:
            return _rotate()
        if args.status or args.stop or args.url:
            return _manage(args)
        return _serve(args)
    except Exception as exc:  # ServeError, ClientError, ServerPathError...: one line; else raised
        from pi_cli.server.client.connect import ClientError
        from pi_cli.server.paths import ServerPathError
        from pi_cli.server.serve import ServeError
        from pi_cli.server.token import TokenError

        if not isinstance(exc, ServeError | ClientError | ServerPathError | TokenError | OSError):
            raise
        error(str(exc))
        return 1


def _serve(args: argparse.Namespace) -> int:
    from pi_cli.server.paths import socket_path
    from pi_cli.server.serve import ServeError, ServeOptions, serve

    host, port = None, None
    if args.tcp:
        text = args.tcp
        if text.startswith("[") and "]:" in text:  # [::1]:8123
            host, _, rest = text[1:].partition("]:")
            port_text = rest
        elif ":" in text:
            host, _, port_text = text.rpartition(":")
        else:
            port_text = text
        try:
            port = int(port_text)
        except ValueError:
            raise ServeError(f"--tcp: {args.tcp!r} is no [HOST:]PORT") from None
        if not 0 <= port <= 65535:
            raise ServeError(f"--tcp: port {port} is out of range")
    sock = (
        None
        if args.no_socket
        else (Path(args.socket).expanduser() if args.socket else socket_path())
    )
    options = ServeOptions(
        socket=sock,
        host=host,
        port=port,
        allow_remote=args.allow_remote,
        on_demand=args.on_demand,
        idle_exit_s=args.idle_exit,
    )
    return serve(options)


def _rotate() -> int:
    from pi_cli.server.token import rotate_token, token_path

    rotate_token()
    print(f"New token in {token_path()}; clients using the old one are disconnected.")
    return 0


def _manage(args: argparse.Namespace) -> int:
    from pi_cli.server.client.connect import ClientError, TokenRefused, ensure_server
    from pi_cli.server.paths import read_info

    try:
        http = ensure_server(start=False)
    except TokenRefused as exc:
        print(f"A server is running but {exc}.", file=sys.stderr)
        return 1
    except ClientError as exc:
        if args.stop:
            print("No server is running.")
            return 0
        print(f"No server is running ({exc}).", file=sys.stderr)
        return 1
    try:
        status = http.request("GET", "/api/server")
        if args.stop:
            http.request("POST", "/api/server/stop")
            print(f"Stopping the server (pid {status.get('pid')}).")
        elif args.url:
            info = read_info()
            url = status.get("url") or (info.url if info else None)
            if not url:
                print(
                    "The server listens on its Unix socket only: start it with --tcp PORT "
                    "(or forward the socket, see docs/server.md).",
                    file=sys.stderr,
                )
                return 1
            print(f"{url}/?token={http.where.token}")
        else:
            where = ", ".join(filter(None, [status.get("socket"), status.get("url")]))
            mode = "on demand" if status.get("onDemand") else "foreground"
            print(
                f"pi serve {status.get('version')} pid {status.get('pid')} ({mode}) on {where}: "
                f"{status.get('sessions')} live session(s){', idle' if status.get('idle') else ''}"
            )
    finally:
        http.close()
    return 0
