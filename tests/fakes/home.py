"""A fake ``HOME`` and a git project: fixtures for suites that discover user and project files."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def fake_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME in a temp dir, so ``~/.agents/skills`` of the real user is never read."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project directory (``.git`` marks the root for skill discovery)."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root
