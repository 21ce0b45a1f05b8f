"""``auth.json``'s document in the OS keyring (macOS Keychain, Windows Credential Locker, the
Secret Service of GNOME/KDE) when one is available, through the ``keyring`` library.

The whole document is one keyring entry (service ``pi``, account ``auth.json``): one read per
token lookup, and a write replaces it whole, as the file is replaced. ``keyring`` is imported
only here, when a token is read or stored, never on start-up paths that use no sign-in.

Available means: ``PI_KEYRING`` is not ``off``, and ``keyring`` finds a real backend (not its
``fail`` or ``null`` ones). On Linux without a D-Bus session (``DBUS_SESSION_BUS_ADDRESS``,
e.g. a headless server or a container) no Secret Service can answer, so ``keyring`` is not
even imported (its backend discovery costs a third of a second) unless
``PYTHON_KEYRING_BACKEND`` names a backend. Any keyring error (locked, refused, no daemon)
falls back to the file for the rest of the process.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

SERVICE = "pi"
ACCOUNT = "auth.json"
OFF = ("0", "off", "no", "false", "file")


class KeyringVault:
    """The keyring entry holding the document."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.name = f"the OS keyring ({type(backend).__module__}.{type(backend).__name__})"

    def read(self) -> dict[str, Any] | None:
        """The stored document, or None when there is none (or it is not a JSON object)."""
        text = self.backend.get_password(SERVICE, ACCOUNT)
        if not text:
            return None
        try:
            data = json.loads(text)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def write(self, data: dict[str, Any]) -> None:
        if data:
            self.backend.set_password(SERVICE, ACCOUNT, json.dumps(data))
            return
        self.delete()

    def delete(self) -> None:
        from keyring.errors import PasswordDeleteError

        try:
            self.backend.delete_password(SERVICE, ACCOUNT)
        except PasswordDeleteError:
            pass  # nothing stored


def open_vault() -> KeyringVault | None:
    """The OS keyring, or None: the 0600 file is used (see the module doc)."""
    if os.environ.get("PI_KEYRING", "").strip().lower() in OFF:
        return None
    if (
        sys.platform.startswith("linux")
        and not os.environ.get("DBUS_SESSION_BUS_ADDRESS")
        and not os.environ.get("PYTHON_KEYRING_BACKEND")
    ):
        return None
    try:
        import keyring
        from keyring.backends import chainer, fail, null

        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001 - a broken keyring install means: the file
        return None
    if isinstance(backend, fail.Keyring | null.Keyring):
        return None
    if isinstance(backend, chainer.ChainerBackend) and not backend.backends:
        return None
    return KeyringVault(backend)
