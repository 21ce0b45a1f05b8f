"""Where extensions come from: the user's folder, a trusted project's, the settings, installed
packages' entry points; an untrusted project's never load; the TypeScript pi's are named."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from pi_cli.shell import Notice, check_trust, record_trust
from pi_cli.shell.config.settings import Settings
from tests.shell.extensions.helpers import shell_with, texts, write_extension

MARKER = """
    def register(pi):
        @pi.command(description="{name}")
        def {name}(args):
            return "{name} ran"
"""


def marker(folder: Path, name: str) -> Path:
    return write_extension(folder, name, MARKER.format(name=name))


async def test_an_untrusted_projects_extensions_never_load_and_the_notice_names_them(
    project: Path, pi_home: Path
) -> None:
    marker(project / ".pi" / "extensions", "projext")
    package = project / ".pi" / "extensions" / "pkgext"
    package.mkdir()
    (package / "__init__.py").write_text("from .impl import register\n")
    (package / "impl.py").write_text(textwrap.dedent(MARKER.format(name="pkgext")))
    marker(pi_home / "extensions", "userext")
    check = check_trust(project)
    assert ".pi/extensions/projext.py (Python extension, imported by pi)" in check.items
    assert ".pi/extensions/pkgext (Python extension, imported by pi)" in check.items
    notices: list[Notice] = []
    shell = shell_with(project, notices=notices)  # no decision stored: untrusted
    names = set(shell.extensions.runtime.items)
    assert names == {"userext"} and not [m for m in sys.modules if "projext" in m]
    untrusted = next(n.text for n in notices if n.text.startswith("Untrusted folder"))
    assert ".pi/extensions/projext.py (Python extension" in untrusted
    # Trusted: both load (the package with its relative import); changing one asks again.
    record_trust(project, True)
    shell = shell_with(project)
    assert set(shell.extensions.runtime.items) == {"userext", "projext", "pkgext"}
    assert (await shell.submit("/pkgext")).output == "pkgext ran"
    (project / ".pi" / "extensions" / "projext.py").write_text("def register(pi): pass\n")
    changed = check_trust(project)
    assert changed.changed and changed.stored is None


def test_the_typescript_pis_extensions_get_one_warning_naming_them(
    project: Path, pi_home: Path, fake_home: Path
) -> None:
    (project / ".pi" / "extensions").mkdir(parents=True)
    (project / ".pi" / "extensions" / "protected-paths.ts").write_text(
        "export default function () {}"
    )
    (pi_home / "extensions").mkdir()
    (pi_home / "extensions" / "notify.js").write_text("module.exports = () => {}")
    (fake_home / ".pi" / "agent" / "extensions" / "plan-mode").mkdir(parents=True)
    (fake_home / ".pi" / "agent" / "extensions" / "plan-mode" / "index.ts").write_text("")
    notices: list[Notice] = []
    shell_with(project, notices=notices)
    warnings = [n.text for n in notices if "TypeScript pi's extensions" in n.text]
    assert len(warnings) == 1
    assert ".pi/extensions/protected-paths.ts" in warnings[0] and "notify.js" in warnings[0]
    assert "~/.pi/agent/extensions/plan-mode" in warnings[0]
    assert "register(pi)" in warnings[0] and "protected_paths.py" in warnings[0]


async def test_settings_add_and_disable_extensions(
    project: Path, pi_home: Path, tmp_path: Path
) -> None:
    marker(tmp_path / "elsewhere", "extra")
    marker(pi_home / "extensions", "unwanted")
    settings = Settings.model_validate(
        {
            "extensions": [str(tmp_path / "elsewhere"), "missing/ext.py"],
            "disabledExtensions": ["unwanted"],
        }
    )
    notices: list[Notice] = []
    shell = shell_with(project, notices=notices, settings=settings)
    assert set(shell.extensions.runtime.items) == {"extra"}
    assert "Extension missing/ext.py (extensions setting): no such .py file or package" in texts(
        notices
    )


async def test_an_installed_packages_entry_point(
    project: Path, pi_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "pi_weather").mkdir(parents=True)
    (site / "pi_weather" / "__init__.py").write_text(textwrap.dedent(MARKER.format(name="weather")))
    info = site / "pi_weather-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pi-weather\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[pi.extensions]\nweather = pi_weather:register\n")
    monkeypatch.syspath_prepend(str(site))
    from pi_cli.shell import extension_sources

    extension_sources._EP_CACHE.clear()  # this process scanned the packages before: scan again
    shell = shell_with(project)
    ext = shell.extensions.runtime.items["weather"]
    assert ext.source.origin == "package" and ext.source.stamp == "pi-weather==1.0"
    assert (await shell.submit("/weather")).output == "weather ran"
    extension_sources._EP_CACHE.clear()
    monkeypatch.undo()


def test_no_extension_anywhere_means_no_extension_machinery(project: Path) -> None:
    shell = shell_with(project)
    assert shell.extensions is None


async def test_a_project_packages_extension_loads_only_in_a_trusted_folder(
    project: Path, pi_home: Path, tmp_path: Path
) -> None:
    from pi_cli.shell.packages.commands import package_words

    source = project / "vendor" / "team-kit"
    marker(source / "extensions", "teamext")
    assert package_words("install", ["-l", "./vendor/team-kit"], project)[0].startswith(
        "Installed team-kit"
    )
    assert ".pi/packages.lock (project packages" in " ".join(check_trust(project).items)
    notices: list[Notice] = []
    shell = shell_with(project, notices=notices)  # untrusted: named once, nothing imported
    assert shell.extensions is None or "teamext" not in shell.extensions.runtime.items
    assert not [m for m in sys.modules if "teamext" in m]
    named = [n.text for n in notices if n.text.startswith("Project packages not loaded")]
    assert len(named) == 1 and "team-kit" in named[0]
    record_trust(project, True)
    shell = shell_with(project)
    assert shell.extensions is not None and "teamext" in shell.extensions.runtime.items
    assert (await shell.submit("/teamext")).output == "teamext ran"
