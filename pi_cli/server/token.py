"""The server's token: every request carries it (standard library only).

``$PI_HOME/server/token`` holds 32 random bytes (URL-safe base64), created 0600 with
``O_EXCL`` so no other user can have made it first, and refused if it is not a regular file
owned by this user with no access for others. ``pi serve --rotate-token`` replaces it
atomically; the running server notices (it compares the file's identity on each request and
every few seconds) and drops every connection made with the old one.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from pathlib import Path

from pi_cli.server.paths import ServerPathError, server_dir, write_private

TOKEN_BYTES = 32


class TokenError(Exception):
    """The token file is unsafe or unreadable."""


def token_path() -> Path:
    """``$PI_HOME/server/token``."""
    return server_dir() / "token"


def new_token() -> str:
    """A fresh random token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def ensure_token(path: Path | None = None) -> str:
    """The token, created now if there is none."""
    path = path or token_path()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return read_token(path)
    token = new_token()
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(token + "\n")
    return token


def read_token(path: Path | None = None) -> str:
    """The token in ``path`` (raises :class:`TokenError` when it is unsafe or empty)."""
    path = path or token_path()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise TokenError(f"cannot read the server token {path}: {exc.strerror}") from None
    with os.fdopen(fd, encoding="ascii", errors="replace") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            raise TokenError(f"{path} is not a file owned by you: refusing to use it")
        if info.st_mode & 0o077:
            raise TokenError(f"{path} may be read by others (chmod 600 it, or rotate the token)")
        token = handle.read(1024).strip()
    if len(token) < 16:
        raise TokenError(f"{path} holds no token: rotate it (pi serve --rotate-token)")
    return token


def rotate_token(path: Path | None = None) -> str:
    """Replace the token with a new one; returns it."""
    path = path or token_path()
    token = new_token()
    write_private(path, token + "\n")
    return token


def same_token(given: str | None, expected: str) -> bool:
    """Constant-time comparison (an absent token never matches)."""
    if not given:
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), expected.encode("utf-8"))


class TokenSource:
    """The current token, re-read when the file changes (a rotation)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or token_path()
        self.token = ensure_token(self.path)
        self._identity = self._stat()

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            info = self.path.stat()
        except OSError:
            return None
        return (info.st_ino, info.st_mtime_ns, info.st_size)

    def current(self) -> str:
        """The token now (a rotated file is read again; a missing or unsafe one keeps the old)."""
        identity = self._stat()
        if identity != self._identity:
            try:
                self.token = read_token(self.path)
            except (TokenError, ServerPathError):
                pass  # keep serving with the last good token rather than with none
            self._identity = identity
        return self.token
