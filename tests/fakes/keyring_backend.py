"""A ``keyring`` backend for tests: entries in memory, or in the JSON file named by
``PI_TEST_KEYRING_FILE`` so a ``pi`` subprocess (``PYTHON_KEYRING_BACKEND=
tests.fakes.keyring_backend.FakeKeyring``) sees the same keyring as the test."""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class FakeKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]  # keyring declares it as a classproperty

    def __init__(self) -> None:
        super().__init__()
        self.memory: dict[str, str] = {}
        self.writes = 0

    def _path(self) -> Path | None:
        name = os.environ.get("PI_TEST_KEYRING_FILE")
        return Path(name) if name else None

    def _load(self) -> dict[str, str]:
        path = self._path()
        if path is None:
            return self.memory
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            return {}
        return {str(k): str(v) for k, v in data.items()}

    def _save(self, data: dict[str, str]) -> None:
        self.writes += 1
        path = self._path()
        if path is None:
            self.memory = data
        else:
            path.write_text(json.dumps(data))

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(f"{service}/{username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        self._save({**self._load(), f"{service}/{username}": password})

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if data.pop(f"{service}/{username}", None) is None:
            raise PasswordDeleteError("not found")
        self._save(data)


class LockedKeyring(FakeKeyring):
    """A keyring that refuses every access (locked, or the user said no)."""

    def get_password(self, service: str, username: str) -> str | None:
        from keyring.errors import KeyringLocked

        raise KeyringLocked("the keyring is locked")

    set_password = get_password  # type: ignore[assignment]
