"""The ``packages`` setting: declared packages are named when missing, installed only by
``pi install`` (``-l`` for the project's), never at start; an untrusted project's are dropped
with the rest of its settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.shell.config.layers import load_layered
from pi_cli.shell.packages.commands import package_words
from pi_cli.shell.packages.declared import declared_notice, declared_sources
from pi_cli.shell.packages.lock import in_scope, project_scope, read_lock
from pi_cli.shell.packages.sources import PackageError
from pi_cli.shell.paths import pi_home
from tests.shell.packages.test_project_packages import make_package
from tests.shell.plugins.conftest import git


def write_settings(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def notice(cwd: Path, trusted: bool) -> list[str]:
    return declared_notice(cwd, load_layered(cwd, trusted).layers)


def test_declared_packages_are_named_then_installed_by_pi_install(tmp_path: Path) -> None:
    project = tmp_path / "app"
    make_package(project)
    mine = make_package(tmp_path / "mine").rename(tmp_path / "mine" / "my-pack")
    (mine / "package.json").write_text(json.dumps({"name": "my-pack"}))
    write_settings(pi_home() / "settings.json", {"packages": [str(mine)]})
    write_settings(
        project / ".pi" / "settings.json",
        {"packages": [{"source": "./vendor/ship-pack", "prompts": []}, "./vendor/ship-pack"]},
    )
    layers = load_layered(project, True).layers
    assert declared_sources(layers, "project") == ["./vendor/ship-pack"]  # each once
    assert notice(project, trusted=True) == [
        f"Packages declared in your settings are not installed: {mine}. Install them: pi install",
        "Packages declared in the project's settings are not installed: ./vendor/ship-pack. "
        "Install them: pi install -l",
    ]
    assert read_lock() == {}  # nothing was installed at start
    # untrusted: the project's `packages` key is dropped with its other settings
    assert notice(project, trusted=False) == notice(project, trusted=True)[:1]
    assert package_words("install", ["-l"], project) == [
        "Installed ship-pack at a copy (declared in the settings)."
    ]
    assert package_words("install", [], project) == [
        "Installed my-pack at a copy (declared in the settings)."
    ]
    assert notice(project, trusted=True) == []
    with in_scope(project_scope(project)):
        assert list(read_lock()) == ["ship-pack"]
    assert package_words("install", ["-l"], project) == ["ship-pack: as locked"]


def test_declared_sources_a_project_may_not_name(tmp_path: Path) -> None:
    project = tmp_path / "app"
    make_package(project)
    secret = tmp_path / "home-secrets"
    (secret / "prompts").mkdir(parents=True)
    (secret / "prompts" / "key.md").write_text("id_rsa\n")
    git(secret, "init", "-q", "-b", "main")
    git(secret, "add", "-A")
    git(secret, "commit", "-q", "-m", "s")
    declared = [
        str(secret),
        "../home-secrets",
        f"git:file://{secret}",
        "npm:",
        "./vendor/ship-pack",
    ]
    write_settings(project / ".pi" / "settings.json", {"packages": declared})
    lines = package_words("install", ["-l"], project)
    assert lines[-1] == "Installed ship-pack at a copy (declared in the settings)."
    refused = [line for line in lines if ": not installed:" in line]
    assert len(refused) == 4, lines
    assert sum("only folders inside it" in line for line in refused) == 2
    assert sum("a repository on this machine" in line for line in refused) == 1
    with in_scope(project_scope(project)):
        assert list(read_lock()) == ["ship-pack"]
    assert not list((project / ".pi" / "packages" / "store").glob("*secrets*"))
    # a malformed `packages` value is a settings error, said as such
    write_settings(project / ".pi" / "settings.json", {"packages": [42, {"no": "source"}]})
    with pytest.raises(PackageError, match="settings cannot be read"):
        package_words("install", ["-l"], project)
