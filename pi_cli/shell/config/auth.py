"""Subscription sign-in tokens: the OS keyring when available (:mod:`._keyring`), else
``$PI_HOME/auth.json`` (0600), refreshed before they expire.

One file, one entry a provider: ``{"anthropic": {"type": "oauth", "access": ..., "refresh": ...,
"expires": <ms>}}`` (the TypeScript pi's format). Every change is made under an exclusive
``flock`` on ``auth.json.lock`` and written to a temporary file renamed over the old one, so:

- two pi processes refreshing at once do not both spend the refresh token (providers rotate
  it: the loser's would be revoked): the second waits for the lock, reads the file again, finds
  a fresh token and uses it without refreshing;
- a crash mid-write leaves the old file, never half a file;
- the file and its lock are created 0600 inside a 0700 directory.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core.providers.request_auth import AuthFailure
from pi_cli.shell.paths import pi_home

if TYPE_CHECKING:
    from pi_cli.shell.config._keyring import KeyringVault

REFRESH_MARGIN_MS = 5 * 60 * 1000
"""A token expiring within this is refreshed before use."""


class AuthError(AuthFailure):
    """Signing in, refreshing or reading the stored tokens failed (the message says what to do).

    An :class:`~agent_core.providers.request_auth.AuthFailure`: raised by a transport's
    request for a subscription's headers, it fails that request with this message."""


@dataclass
class Credentials:
    """One provider's tokens (``expires``: epoch milliseconds) and what else it needs."""

    access: str = field(repr=False)
    refresh: str = field(repr=False)
    expires: int
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "oauth",
            "access": self.access,
            "refresh": self.refresh,
            "expires": self.expires,
            **self.extra,
        }

    @classmethod
    def from_json(cls, data: Any) -> Credentials | None:
        if not isinstance(data, dict) or data.get("type") != "oauth":
            return None
        access, refresh, expires = data.get("access"), data.get("refresh"), data.get("expires")
        if not (isinstance(access, str) and isinstance(refresh, str) and isinstance(expires, int)):
            return None
        extra = {k: v for k, v in data.items() if k not in ("type", "access", "refresh", "expires")}
        return cls(access, refresh, expires, extra)

    def fresh(self, now_ms: int | None = None) -> bool:
        now = int(time.time() * 1000) if now_ms is None else now_ms
        return self.expires - REFRESH_MARGIN_MS > now


Refresher = Callable[[Credentials], Credentials]
"""Trade a refresh token for new credentials (raises :class:`AuthError`)."""


class AuthStore:
    """``auth.json`` under ``home`` (default ``$PI_HOME``), or the OS keyring when one is
    available (``keyring=False``: the file only).

    With a keyring the document lives there (:mod:`._keyring`); a file left from before (or
    written by the TypeScript pi) is read too, and moved into the keyring at the next write.
    The lock file coordinates processes either way.
    """

    def __init__(self, home: Path | None = None, *, keyring: bool = True) -> None:
        self.home = home or pi_home()
        self.path = self.home / "auth.json"
        self._use_keyring = keyring
        self._vault: KeyringVault | None = None
        self._looked = False

    def vault(self) -> KeyringVault | None:
        """The :class:`~._keyring.KeyringVault` in use, or None (the file)."""
        if not self._looked:
            self._looked = True
            if self._use_keyring:
                from pi_cli.shell.config._keyring import open_vault

                self._vault = open_vault()
        return self._vault

    @property
    def location(self) -> str:
        """Where the tokens are kept, in words."""
        vault = self.vault()
        return str(self.path) if vault is None else str(vault.name)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.home / "auth.json.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _read(self) -> dict[str, Any]:
        data = self._read_file()
        vault = self.vault()
        if vault is not None:
            try:
                stored = vault.read()
            except Exception:  # noqa: BLE001 - locked or refused: the file, for this process
                self._vault = None
            else:
                data = {**data, **(stored or {})}
        return data

    def _write(self, data: dict[str, Any]) -> None:
        vault = self.vault()
        if vault is not None:
            try:
                vault.write(data)
            except Exception:  # noqa: BLE001 - locked or refused: the file, for this process
                self._vault = None
            else:
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()  # the tokens are in the keyring now, not in plain text
                return
        self._write_file(data)

    def _read_file(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise AuthError(
                f"{self.path} cannot be read ({exc}): pi logout, then pi login"
            ) from None
        return data if isinstance(data, dict) else {}

    def _write_file(self, data: dict[str, Any]) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.home, prefix=".auth.", suffix=".json")
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def get(self, provider: str) -> Credentials | None:
        """The stored credentials of ``provider`` (as they are: maybe expired)."""
        return Credentials.from_json(self._read().get(provider))

    def providers(self) -> list[str]:
        """Providers with stored credentials."""
        return sorted(p for p, v in self._read().items() if Credentials.from_json(v))

    def save(self, provider: str, credentials: Credentials) -> None:
        """Store ``provider``'s credentials (replacing any)."""
        with self._locked():
            data = self._read()
            data[provider] = credentials.to_json()
            self._write(data)

    def remove(self, provider: str) -> bool:
        """Forget ``provider``'s credentials; False when there were none."""
        with self._locked():
            data = self._read()
            if provider not in data:
                return False
            del data[provider]
            self._write(data)
            return True

    def access_token(
        self, provider: str, refresh: Refresher, *, refused: str | None = None
    ) -> Credentials:
        """Credentials with a token valid for at least :data:`REFRESH_MARGIN_MS` (and other
        than ``refused``, a token the provider has just refused however fresh it looked).

        Refreshes under the lock, after reading again: another process may have refreshed
        meanwhile (then its token is used and the refresh token is not spent twice).
        """
        current = self.get(provider)
        if current is None:
            raise AuthError(f"not signed in to {provider}: run pi login {provider}")
        if current.fresh() and current.access != refused:
            return current
        with self._locked():
            current = Credentials.from_json(self._read().get(provider))
            if current is None:
                raise AuthError(f"signed out of {provider} meanwhile: run pi login {provider}")
            if current.fresh() and current.access != refused:
                return current
            renewed = refresh(current)
            data = self._read()
            data[provider] = renewed.to_json()
            self._write(data)
            return renewed
