"""pi login's tokens in the OS keyring (``keyring`` with a fake backend standing in for the
Keychain / Secret Service), the 0600 file when there is none (as on this headless machine),
moving a file's tokens into the keyring, refreshing there, and ``pi logout`` clearing both."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backends import fail

from pi_cli.shell.config.auth import AuthStore, Credentials
from pi_cli.shell.config.oauth import refresher
from tests.fakes.keyring_backend import FakeKeyring, LockedKeyring
from tests.fakes.oauth_server import FakeAuthServer
from tests.shell.config.test_login import local

ROOT = Path(__file__).resolve().parents[3]
BACKEND = "tests.fakes.keyring_backend.FakeKeyring"
LATER = 4_102_444_800_000  # 2100


@pytest.fixture
def use_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKeyring]:
    """The keyring library with the fake backend (as PYTHON_KEYRING_BACKEND would pick it)."""
    monkeypatch.setenv("PI_KEYRING", "auto")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", BACKEND)
    previous = keyring.get_keyring()
    backend = FakeKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def stored(backend: FakeKeyring) -> dict[str, object]:
    text = backend.get_password("pi", "auth.json")
    return json.loads(text) if text else {}


def test_tokens_go_to_the_keyring_and_leave_the_plain_file(
    tmp_path: Path, use_keyring: FakeKeyring
) -> None:
    home = tmp_path / "home"
    # Signed in before a keyring was there (or by the TypeScript pi): a plain file.
    AuthStore(home, keyring=False).save("github-copilot", Credentials("c", "gho", LATER))
    assert (home / "auth.json").exists()
    store = AuthStore(home)
    assert "keyring" in store.location and "FakeKeyring" in store.location
    assert store.get("github-copilot") is not None  # the file is still read
    store.save("anthropic", Credentials("sk-ant-oat01-A", "rt-A", LATER))
    assert not (home / "auth.json").exists()  # moved: no token left in plain text
    assert sorted(stored(use_keyring)) == ["anthropic", "github-copilot"]
    assert AuthStore(home).providers() == ["anthropic", "github-copilot"]
    assert AuthStore(home).get("anthropic").access == "sk-ant-oat01-A"  # type: ignore[union-attr]


def test_a_refresh_is_stored_in_the_keyring(tmp_path: Path, use_keyring: FakeKeyring) -> None:
    home = tmp_path / "home"
    with FakeAuthServer() as auth:
        auth.refresh_tokens.add("rt-1")
        store = AuthStore(home)
        store.save("anthropic", Credentials("old", "rt-1", 0))
        renewed = store.access_token("anthropic", refresher(local("anthropic", auth)))  # type: ignore[arg-type]
    assert renewed.access != "old" and auth.refreshes == 1
    entry = stored(use_keyring)["anthropic"]
    assert isinstance(entry, dict) and entry["access"] == renewed.access
    assert not (home / "auth.json").exists()


def test_logout_removes_the_keyring_entry_and_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    shared = tmp_path / "keyring.json"
    monkeypatch.setenv("PI_TEST_KEYRING_FILE", str(shared))
    backend = FakeKeyring()
    backend.set_password(
        "pi", "auth.json", json.dumps({"anthropic": Credentials("k", "r", LATER).to_json()})
    )
    AuthStore(home, keyring=False).save("anthropic", Credentials("f", "r", LATER))
    env = {
        **os.environ,
        "PI_HOME": str(home),
        "PYTHONPATH": str(ROOT),
        "PI_NO_REEXEC": "1",
        "PI_KEYRING": "auto",
        "PYTHON_KEYRING_BACKEND": BACKEND,
        "PI_TEST_KEYRING_FILE": str(shared),
    }
    run = [sys.executable, "-m", "pi_cli.cli"]
    listed = subprocess.run(
        [*run, "login", "--list"], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert "anthropic" in listed.stdout and "signed in" in listed.stdout
    out = subprocess.run([*run, "logout"], capture_output=True, text=True, env=env, cwd=ROOT)
    assert out.returncode == 0 and "Signed out of anthropic" in out.stdout, out.stderr
    assert not (home / "auth.json").exists() or "anthropic" not in (home / "auth.json").read_text()
    assert backend.get_password("pi", "auth.json") is None


@pytest.mark.parametrize("backend", [fail.Keyring(), LockedKeyring()], ids=["none", "locked"])
def test_without_a_usable_keyring_the_file_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: keyring.backend.KeyringBackend
) -> None:
    monkeypatch.setenv("PI_KEYRING", "auto")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", BACKEND)
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        home = tmp_path / "home"
        store = AuthStore(home)
        store.save("anthropic", Credentials("a", "r", LATER))
        assert store.location == str(home / "auth.json")
        assert AuthStore(home).get("anthropic").access == "a"  # type: ignore[union-attr]
    finally:
        keyring.set_keyring(previous)
    assert stat.S_IMODE(os.stat(home / "auth.json").st_mode) == 0o600


def test_headless_linux_does_not_even_import_keyring(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DBUS_SESSION_BUS_ADDRESS", "PYTHON_KEYRING_BACKEND")
    }
    env.update(PI_HOME=str(tmp_path / "home"), PYTHONPATH=str(ROOT), PI_KEYRING="auto")
    code = (
        "import sys\n"
        "from pi_cli.shell.config.auth import AuthStore, Credentials\n"
        "s = AuthStore(); s.save('anthropic', Credentials('a', 'r', 1)); s.get('anthropic')\n"
        "print(s.location, 'keyring' in sys.modules)\n"
    )
    if sys.platform.startswith("linux"):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT
        )
        assert out.stdout.split() == [str(tmp_path / "home" / "auth.json"), "False"], out.stderr


def test_pi_keyring_off_keeps_the_file(
    tmp_path: Path, use_keyring: FakeKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_KEYRING", "off")
    home = tmp_path / "home"
    AuthStore(home).save("openai-codex", Credentials("a", "r", LATER))
    assert (home / "auth.json").exists() and stored(use_keyring) == {}
