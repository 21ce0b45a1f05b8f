"""``npm:`` sources: the TypeScript pi's packages, fetched with ``npm pack`` (never ``npm
install``: no dependency tree, and ``--ignore-scripts``, so nothing of the package runs).

The tarball is kept under the store's ``npm/<name>/<version>/`` and its SHA-512 integrity
(npm's own ``sha512-…`` form) is locked: a reinstall uses the kept tarball when it still has
that integrity, else packs ``name@version`` again and refuses one that differs. The tarball is
unpacked by pi (regular files and folders only, under ``package/``); what pi uses of it are its
skills, prompt templates, agent profiles and themes. Its extensions are TypeScript: not loaded,
named once at install with what pi offers instead.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import tarfile
from pathlib import Path, PurePosixPath
from typing import Any

from pi_cli.shell.packages.sources import PackageError, Spec

NPM_TIMEOUT_S = 300.0
MAX_MEMBERS = 20000
MAX_BYTES = 500 * 1024 * 1024
_VERSION = re.compile(r"^[0-9A-Za-z][0-9A-Za-z.+_-]{0,100}$")
FOREIGN = (".ts", ".mts", ".cts", ".js", ".mjs", ".cjs", ".tsx", ".jsx")


def integrity_of(path: Path) -> str:
    """npm's integrity string of a file: ``sha512-`` and the base64 digest."""
    digest = hashlib.sha512()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return "sha512-" + base64.b64encode(digest.digest()).decode()


def _pack(spec: str, dest: Path) -> dict[str, Any]:
    npm = shutil.which("npm")
    if npm is None:
        raise PackageError(
            "npm: sources are fetched with npm, which is not on PATH (install Node.js and npm, "
            "or install the package from git: git:URL)"
        )
    dest.mkdir(parents=True, exist_ok=True)
    command = [npm, "pack", spec, "--pack-destination", str(dest), "--json", "--ignore-scripts"]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=NPM_TIMEOUT_S,
            stdin=subprocess.DEVNULL, cwd=dest,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PackageError(f"npm could not run ({exc})") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        raise PackageError(f"npm pack {spec} failed: {(lines or ['no message'])[-1][:300]}")
    try:
        report = json.loads(done.stdout)[0]
        tarball = dest / PurePosixPath(str(report["filename"])).name
    except (ValueError, LookupError, TypeError):
        raise PackageError(f"npm pack {spec} said something pi cannot read") from None
    if not tarball.is_file():
        raise PackageError(f"npm pack {spec} made no tarball")
    return {
        "tarball": tarball,
        "name": str(report.get("name")),
        "version": _version(report.get("version")),
    }


def _unpack(tarball: Path, dest: Path) -> None:
    """The tarball's ``package/`` files into ``dest``: regular files and folders only, each
    inside ``dest`` (a link, a device, ``..`` or an absolute name is refused)."""
    count = total = 0
    try:
        with tarfile.open(tarball, "r:gz") as archive:
            for member in archive:
                parts = PurePosixPath(member.name).parts
                if (
                    not parts
                    or parts[0] != "package"
                    or ".." in parts
                    or member.name.startswith("/")
                ):
                    raise PackageError(f"the tarball holds {member.name!r}, outside package/")
                rel = Path(*parts[1:]) if len(parts) > 1 else Path()
                if member.isdir():
                    (dest / rel).mkdir(parents=True, exist_ok=True)
                    continue
                if not member.isfile():
                    raise PackageError(f"the tarball holds {member.name!r}, not a plain file")
                count, total = count + 1, total + member.size
                if count > MAX_MEMBERS or total > MAX_BYTES:
                    raise PackageError("the tarball is larger than pi installs")
                source = archive.extractfile(member)
                if source is None:
                    continue
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                with source, (dest / rel).open("wb") as out:
                    shutil.copyfileobj(source, out)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise PackageError(f"the tarball cannot be read ({exc})") from None


def _version(value: object) -> str:
    """A version usable as a folder name (npm's or the lock's; anything else is refused)."""
    if not isinstance(value, str) or not _VERSION.match(value):
        raise PackageError(f"not a version pi accepts: {str(value)[:60]!r}")
    return value


def kept_tarball(home: Path, name: str, version: str) -> Path:
    """Where a package's tarball is kept (``npm/<name>/<version>/package.tgz``)."""
    return home / "npm" / name / version / "package.tgz"


def stage_npm(
    spec: Spec, staging: Path, home: Path, locked: dict[str, Any] | None
) -> dict[str, Any]:
    """Pack (or, for a locked package, reuse) the tarball, check it, unpack it into
    ``staging/copy``; the record's facts."""
    kept = None
    if locked is not None:
        kept = kept_tarball(home, str(locked.get("name")), _version(locked.get("version")))
    if (
        locked is not None
        and kept is not None
        and kept.is_file()
        and integrity_of(kept) == locked.get("integrity")
    ):
        tarball, version = kept, _version(locked.get("version"))
    else:
        wanted = spec.location + (f"@{spec.ref}" if spec.ref else "")
        if locked is not None and not Path(spec.location).exists():
            wanted = f"{spec.location}@{locked.get('version')}"
        packed = _pack(wanted, staging / "npm")
        tarball, version = packed["tarball"], packed["version"]
    integrity = integrity_of(tarball)
    if locked is not None and integrity != locked.get("integrity"):
        raise PackageError(
            f"{spec.text}: the tarball's integrity {integrity[:19]}… is not the locked "
            f"{str(locked.get('integrity'))[:19]}…; refused"
        )
    _unpack(tarball, staging / "copy")
    return {"version": version, "pin": version, "integrity": integrity, "npmTarball": tarball}


def keep_tarball(facts: dict[str, Any], home: Path, name: str) -> None:
    """Move the packed tarball beside the store, for reinstalls without the registry."""
    tarball = facts.pop("npmTarball", None)
    if tarball is None:
        return
    kept = kept_tarball(home, name, str(facts["version"]))
    if Path(tarball) != kept:
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(tarball, kept)


def foreign_extensions(root: Path, found: dict[str, list[str]]) -> tuple[list[str], str | None]:
    """Drop a package's ``extensions`` (the TypeScript pi's); the warning naming them."""
    names: list[str] = []
    for relative in found.pop("extensions", []):
        target = root / relative
        files = [target] if target.is_file() else sorted(target.rglob("*"))
        names += [p.relative_to(root).as_posix() for p in files if p.suffix in FOREIGN]
    if not names:
        return [], None
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return names, (
        f"TypeScript extensions not loaded: {shown} (pi runs Python extensions: port one as a "
        "module with register(pi), see docs/extensions.md; its skills, prompts, agents and "
        "themes are used)"
    )
