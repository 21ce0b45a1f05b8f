"""``pi serve``: run the server (uvicorn, the only place it is imported).

Listens on the Unix socket (0600, in a 0700 directory) and, with ``--tcp [HOST:]PORT``, on TCP;
a non-loopback host needs ``--allow-remote`` as well (and every request still needs the token).
One server per ``PI_HOME`` (``server.lock``). ``--on-demand`` is how clients start it: it logs
to ``server.log`` and stops once idle (no client, no live run, no approval waiting) for
``server.idleExitS``. SIGTERM, SIGINT and SIGHUP stop it cleanly: every session is closed (a live
run is aborted and listed as interrupted by the next server) and its processes are ended.
"""

from __future__ import annotations

import asyncio
import fcntl
import ipaddress
import logging
import os
import signal
import socket
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_cli import __version__
from pi_cli.server.paths import ServerInfo, info_path, server_dir, write_private
from pi_cli.server.token import TokenSource

log = logging.getLogger("pi_cli.server")
WATCH_S = 2.0  # how often the token file and idleness are checked


class ServeError(Exception):
    """The server cannot start (a user-facing reason)."""


@dataclass
class ServeOptions:
    """``pi serve``'s flags."""

    socket: Path | None
    host: str | None = None
    port: int | None = None
    allow_remote: bool = False
    on_demand: bool = False
    idle_exit_s: float | None = None


def idle_exit_after(options: ServeOptions, settings: Any) -> float | None:
    """How long an idle server started on demand lives on (``None``: a foreground server
    stays until it is stopped): ``--idle-exit``, else ``server.idleExitS``."""
    if not options.on_demand:
        return None
    return options.idle_exit_s or settings.server.idle_exit_s


def bind_unix(path: Path) -> socket.socket:
    """A listening Unix socket at ``path``, mode 0600 (a stale socket file is replaced)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        info = path.lstat()
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISSOCK(info.st_mode):
            raise ServeError(
                f"{path} exists and is not a socket: remove it or set PI_SERVER_SOCKET"
            )
        path.unlink()  # we hold the lock: no server answers on it
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    sock.listen(128)
    sock.setblocking(False)
    return sock


def bind_tcp(host: str, port: int, allow_remote: bool) -> socket.socket:
    """A listening TCP socket; a non-loopback address needs ``allow_remote``."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ServeError(f"cannot resolve {host}: {exc}") from None
    family, _, _, _, address = infos[0]
    if not ipaddress.ip_address(address[0]).is_loopback and not allow_remote:
        raise ServeError(
            f"{host} is not a loopback address: pass --allow-remote to listen there "
            "(every request still needs the token; prefer an SSH tunnel, see docs/server.md)"
        )
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


def take_lock() -> int | None:
    """The lock file's descriptor, or ``None`` when another server holds it."""
    fd = os.open(server_dir() / "server.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def serve(options: ServeOptions) -> int:
    """Run until stopped; returns the exit code."""
    from pi_cli.shell import SettingsError, load_settings

    lock = take_lock()
    if lock is None:
        if options.on_demand:
            return 0  # another client started one first: theirs serves us too
        raise ServeError("a server is already running for this PI_HOME (pi serve --status)")
    try:
        settings = load_settings(Path(os.sep))  # the user's settings (no project's)
    except SettingsError as exc:
        raise ServeError(str(exc)) from None
    tokens = TokenSource()  # before listening: an unsafe token file stops us here
    sockets = []
    if options.socket is not None:
        sockets.append(bind_unix(options.socket))
    url = None
    if options.port is not None:
        tcp = bind_tcp(options.host or "127.0.0.1", options.port, options.allow_remote)
        sockets.append(tcp)
        host, port = tcp.getsockname()[:2]
        options.port = port  # the one bound (``--tcp 0``: an ephemeral port)
        url = f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    if not sockets:
        raise ServeError("nothing to listen on (--no-socket without --tcp)")
    idle_exit = idle_exit_after(options, settings)
    info = ServerInfo(
        pid=os.getpid(),
        socket=str(options.socket) if options.socket else None,
        url=url,
        on_demand=options.on_demand,
        started_at=time.time(),
        version=__version__,
    )
    write_private(info_path(), __import__("json").dumps(info.wire()))
    announce(info)
    try:
        return asyncio.run(_main(options, settings, tokens, sockets, info, idle_exit))
    finally:
        for sock in sockets:
            sock.close()
        if options.socket is not None:
            options.socket.unlink(missing_ok=True)
        info_path().unlink(missing_ok=True)
        os.close(lock)


def announce(info: ServerInfo) -> None:
    """Say where the server listens (on the terminal of a foreground ``pi serve``)."""
    lines = [f"pi serve {info.version} (pid {info.pid})"]
    if info.socket:
        lines.append(f"  socket: {info.socket}")
    if info.url:
        lines.append(f"  http:   {info.url}  (web client: `pi serve --url` prints its address)")
    print("\n".join(lines), file=sys.stderr, flush=True)


def uvicorn_config(app: Any) -> Any:
    """How uvicorn serves ``app`` (also what ``bench/bench_server.py`` measures in process).

    No per-message deflate: lines go over a Unix socket or loopback (an SSH tunnel compresses
    on its own), and zlib would cost CPU on every line sent."""
    import uvicorn

    from pi_cli.server.wire import MAX_BODY

    return uvicorn.Config(
        app,
        ws="websockets-sansio",
        ws_max_size=MAX_BODY,
        ws_per_message_deflate=False,
        lifespan="off",
        log_config=None,
        access_log=False,
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=3,
    )


async def _main(
    options: ServeOptions,
    settings: Any,
    tokens: TokenSource,
    sockets: list[socket.socket],
    info: ServerInfo,
    idle_exit: float | None,
) -> int:
    import uvicorn

    from pi_cli.server.app import build_app
    from pi_cli.server.auth import Guard, allowed_hosts
    from pi_cli.server.heap import Heap
    from pi_cli.server.hub import SessionHub

    heap = Heap()
    hub = SessionHub(settings, heap=heap)
    hosts = (
        allowed_hosts(options.host or "127.0.0.1", options.port)
        if options.port is not None
        else None
    )
    holder: list[uvicorn.Server] = []

    def stop() -> None:
        for running in holder:
            running.should_exit = True

    app = Guard(build_app(hub, info.wire(), stop), tokens, hosts)
    server = uvicorn.Server(uvicorn_config(app))
    holder.append(server)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        # Ours, so uvicorn's re-raise after its graceful stop lands here, not in the default
        # handler that would kill the process before the sessions are closed.
        signal.signal(sig, lambda *_: stop())
    heap.settle()  # imports and the app live as long as the server
    watcher = asyncio.ensure_future(_watch(hub, tokens, stop, idle_exit))
    try:
        await server.serve(sockets=sockets)
    finally:
        watcher.cancel()
        await hub.aclose()
    return 0


async def _watch(hub: Any, tokens: TokenSource, stop: Any, idle_exit: float | None) -> None:
    """Drop connections made with a rotated token; collect what closed sessions left at a quiet
    moment; stop an on-demand server once idle."""
    token = tokens.current()
    idle_since: float | None = None
    while True:
        await asyncio.sleep(WATCH_S)
        if hub.heap is not None:
            hub.heap.tidy(hub.quiet)
        current = tokens.current()
        if current != token:
            token = current
            for hosted in list(hub.sessions.values()):
                for channel, _ in list(hosted.clients.values()):
                    channel.drop("the server token was rotated")
        if idle_exit is None:
            continue
        if not hub.idle:
            idle_since = None
        elif idle_since is None:
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since >= idle_exit:
            log.info("idle for %.0fs: stopping", idle_exit)
            stop()
            return
