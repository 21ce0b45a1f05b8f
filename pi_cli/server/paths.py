"""Where ``pi serve`` keeps its files, and how a client finds it (standard library only).

Everything is under ``$PI_HOME/server/`` (a directory only the user may enter, 0700):
``token`` (0600, :mod:`.token`), ``server.json`` (the running server: pid, socket, TCP
address, whether it was started on demand), ``sessions.json`` (the sessions it hosts, so a
restarted server can list and reopen them), ``server.lock`` (one server per ``PI_HOME``) and
``server.log``. The Unix socket is ``server/pi.sock``; when that path is too long for a socket
address (108 bytes on Linux) it is ``$XDG_RUNTIME_DIR`` (or ``/tmp/pi-<uid>``, 0700, owned by
the user) ``/pi-<hash of PI_HOME>.sock``. ``PI_SERVER_SOCKET`` names another socket (a
forwarded one: ``ssh -L``, see docs/server.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_cli.shell import pi_home

SOCKET_ENV = "PI_SERVER_SOCKET"
URL_ENV = "PI_SERVER_URL"
TOKEN_ENV = "PI_SERVER_TOKEN"
MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux, 104 on macOS: keep a margin


class ServerPathError(Exception):
    """A directory pi must keep private is not (wrong owner, or others may enter it)."""


def server_dir() -> Path:
    """``$PI_HOME/server``, created 0700 (its mode is fixed if it was looser)."""
    return private_dir(pi_home() / "server")


def private_dir(path: Path) -> Path:
    """``path`` as a directory only this user may use (created, or checked and tightened)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise ServerPathError(f"{path} is not a directory owned by you: refusing to use it")
    if info.st_mode & 0o077:
        path.chmod(0o700)
    return path


def socket_path() -> Path:
    """The server's Unix socket (see the module docstring)."""
    override = os.environ.get(SOCKET_ENV)
    if override:
        return Path(override).expanduser()
    home_socket = pi_home() / "server" / "pi.sock"
    if len(os.fsencode(home_socket)) <= MAX_SOCKET_PATH:
        return home_socket
    digest = hashlib.sha256(os.fsencode(pi_home().resolve())).hexdigest()[:16]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime and Path(runtime).is_dir() else Path(tempfile.gettempdir())
    directory = base if runtime else private_dir(base / f"pi-{os.getuid()}")
    return directory / f"pi-{digest}.sock"


@dataclass
class ServerInfo:
    """What ``server.json`` says about the running server."""

    pid: int
    socket: str | None
    url: str | None
    on_demand: bool
    started_at: float
    version: str = ""

    def wire(self) -> dict[str, Any]:
        """As stored (and as ``/api/server`` says it): camelCase."""
        return {
            "pid": self.pid,
            "socket": self.socket,
            "url": self.url,
            "onDemand": self.on_demand,
            "startedAt": self.started_at,
            "version": self.version,
        }


def info_path() -> Path:
    """``server.json``."""
    return server_dir() / "server.json"


def read_info() -> ServerInfo | None:
    """The running server's description, if one wrote it (it may have died since)."""
    try:
        data = json.loads(info_path().read_text(encoding="utf-8"))
        return ServerInfo(
            pid=int(data["pid"]),
            socket=data.get("socket"),
            url=data.get("url"),
            on_demand=bool(data.get("onDemand")),
            started_at=float(data.get("startedAt", 0)),
            version=str(data.get("version", "")),
        )
    except (OSError, ValueError, TypeError, KeyError):
        return None


def write_private(path: Path, text: str) -> None:
    """Replace ``path`` atomically with ``text``, readable by this user only (0600)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def pid_alive(pid: int) -> bool:
    """Whether a process with ``pid`` exists (it may be another program after a reboot)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
