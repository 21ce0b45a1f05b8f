"""``npm:`` sources, offline: a tarball ``npm pack`` made from a local folder (the TypeScript
pi's package form: skills and a TypeScript extension), a fake ``npm`` on PATH for a registry
name, no npm at all, a tampered tarball, hostile archives."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from pi_cli.shell.packages.commands import package_words
from pi_cli.shell.packages.lock import read_lock
from pi_cli.shell.packages.sources import PackageError, parse_spec
from pi_cli.shell.prompt.sources import PromptSources

NPM = shutil.which("npm")
needs_npm = pytest.mark.skipif(NPM is None, reason="npm is not installed (.ci/run installs it)")
SKILL = "---\nname: kit-skill\ndescription: A skill from an npm package\n---\nDo it.\n"


def pi_ts_package(root: Path) -> Path:
    pkg = root / "pi-kit"
    (pkg / "skills" / "kit-skill").mkdir(parents=True)
    (pkg / "skills" / "kit-skill" / "SKILL.md").write_text(SKILL)
    (pkg / "extensions").mkdir()
    (pkg / "extensions" / "guard.ts").write_text("export default function () {}\n")
    manifest = {
        "name": "@acme/pi-kit", "version": "1.2.3", "keywords": ["pi-package"],
        "scripts": {"prepack": "touch SCRIPT_RAN"},
        "pi": {"skills": ["./skills"], "extensions": ["./extensions"]},
    }  # fmt: skip
    (pkg / "package.json").write_text(json.dumps(manifest))
    return pkg


def packed(tmp_path: Path) -> Path:
    pkg = pi_ts_package(tmp_path)
    out = tmp_path / "dist"
    out.mkdir()
    assert NPM is not None
    subprocess.run(
        [NPM, "pack", str(pkg), "--pack-destination", str(out), "--ignore-scripts"],
        check=True, capture_output=True, cwd=out,
    )  # fmt: skip
    return out / "acme-pi-kit-1.2.3.tgz"


def skills(cwd: Path) -> list[str]:
    return [s.name for s in PromptSources.load(cwd, []).skills.skills]


@needs_npm
def test_a_tarball_installs_its_skills_and_names_its_typescript_extensions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tarball = packed(tmp_path)
    lines = package_words("install", [f"npm:{tarball}"], tmp_path)
    assert lines[0] == "Installed acme-pi-kit at 1.2.3 (1 skills)."
    assert lines[1:] == [
        "  note: TypeScript extensions not loaded: extensions/guard.ts (pi runs Python "
        "extensions: port one as a module with register(pi), see docs/extensions.md; its "
        "skills, prompts, agents and themes are used)"
    ]
    record = read_lock()["acme-pi-kit"]
    assert record["kind"] == "npm" and record["version"] == "1.2.3"
    assert record["integrity"].startswith("sha512-") and "extensions" not in record["resources"]
    assert "kit-skill" in skills(tmp_path)
    # the copy goes; npm and the tarball go too: the kept tarball puts it back
    shutil.rmtree(record["path"])
    tarball.unlink()
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    assert package_words("install", [], tmp_path)[0].startswith(
        "acme-pi-kit: reinstalled from the lock"
    )
    assert "kit-skill" in skills(tmp_path)


@needs_npm
def test_a_tarball_that_is_not_the_locked_one_is_refused(tmp_path: Path) -> None:
    tarball = packed(tmp_path)
    package_words("install", [f"npm:{tarball}"], tmp_path)
    record = read_lock()["acme-pi-kit"]
    shutil.rmtree(record["path"])
    home = Path(record["path"]).parents[2]
    kept = home / "npm" / "acme-pi-kit" / "1.2.3" / "package.tgz"
    kept.write_bytes(kept.read_bytes() + b"\0")  # the kept one is damaged: packed again...
    (tmp_path / "pi-kit" / "skills" / "kit-skill" / "SKILL.md").write_text(SKILL + "curl | sh\n")
    tarball.unlink()
    subprocess.run(
        [str(NPM), "pack", str(tmp_path / "pi-kit"), "--ignore-scripts"],
        check=True, capture_output=True, cwd=tarball.parent,
    )  # fmt: skip  # ...from a source that changed under the same version
    [line] = package_words("install", [], tmp_path)
    assert line.startswith("acme-pi-kit: not reinstalled:") and "is not the locked" in line
    assert "kit-skill" not in skills(tmp_path)


def fake_npm(bin_dir: Path, tarball: Path, log: Path, version: str = "1.2.3") -> None:
    """An ``npm`` that answers ``npm pack SPEC`` with ``tarball`` (as the registry would)."""
    bin_dir.mkdir()
    script = bin_dir / "npm"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {log}\n'
        'dest=$(echo "$@" | sed -e "s/.*--pack-destination \\([^ ]*\\).*/\\1/")\n'
        f'cp {tarball} "$dest/acme-pi-kit-1.2.3.tgz"\n'
        f'echo \'[{{"name": "@acme/pi-kit", "version": "{version}", '
        '"filename": "acme-pi-kit-1.2.3.tgz"}]\'\n'
    )
    script.chmod(0o755)


@needs_npm
def test_a_registry_name_is_packed_by_npm_and_pinned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tarball = packed(tmp_path)
    log = tmp_path / "npm.log"
    fake_npm(tmp_path / "bin", tarball, log)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    lines = package_words("install", ["npm:@acme/pi-kit@1.2.3"], tmp_path)
    assert lines[0] == "Installed acme-pi-kit at 1.2.3 (1 skills)."
    assert log.read_text().startswith("pack @acme/pi-kit@1.2.3 --pack-destination ")
    assert "--ignore-scripts" in log.read_text()
    assert package_words("update", [], tmp_path) == [
        "acme-pi-kit: pinned to 1.2.3 (pi install npm:@acme/pi-kit@NEWREF)"
    ]
    assert not (tmp_path / "pi-kit" / "SCRIPT_RAN").exists()


def test_without_npm_the_error_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    with pytest.raises(PackageError, match="npm, which is not on PATH"):
        package_words("install", ["npm:pi-skills"], tmp_path)
    for bad in ("npm:", "npm:Bad Name", "npm:x@../../y", "npm:@scope", "npm:./missing.tgz"):
        with pytest.raises(PackageError):
            parse_spec(bad, tmp_path)
    assert parse_spec("npm:@a/b@2.0.1", tmp_path).ref == "2.0.1"


def hostile_tarball(path: Path, name: str, kind: bytes = tarfile.REGTYPE) -> Path:
    with tarfile.open(path, "w:gz") as archive:
        for member_name, data in (("package/package.json", b'{"name": "evil"}'), (name, b"x")):
            info = tarfile.TarInfo(member_name)
            info.size, info.type = len(data), kind if member_name == name else tarfile.REGTYPE
            if info.type == tarfile.SYMTYPE:
                info.linkname, info.size = "/etc/passwd", 0
            archive.addfile(info, io.BytesIO(data) if info.size else None)
    return path


@needs_npm
@pytest.mark.parametrize(
    ("member", "kind"),
    [
        ("package/../../escape", tarfile.REGTYPE),
        ("/abs/escape", tarfile.REGTYPE),
        ("package/link", tarfile.SYMTYPE),
        ("other/file", tarfile.REGTYPE),
    ],
)
def test_a_hostile_tarball_is_refused(
    tmp_path: Path, member: str, kind: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    tarball = hostile_tarball(tmp_path / "evil-1.0.0.tgz", member, kind)
    fake_npm(tmp_path / "bin", tarball, tmp_path / "npm.log")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(PackageError, match="the tarball holds"):
        package_words("install", ["npm:evil"], tmp_path)
    assert read_lock() == {} and not (tmp_path.parent / "escape").exists()


@needs_npm
def test_a_version_that_is_a_path_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_npm(tmp_path / "bin", packed(tmp_path), tmp_path / "npm.log", version="../../../../x")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(PackageError, match="not a version pi accepts"):
        package_words("install", ["npm:@acme/pi-kit"], tmp_path)
    assert read_lock() == {} and not (tmp_path / "x").exists()
