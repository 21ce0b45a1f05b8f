"""``pi install``, ``pi update``, ``pi remove``, ``pi list``: packages pinned in the lock file.

Layout under ``$PI_HOME/packages/``: ``pi-lock.json`` (:mod:`.lock`), ``store/<name>/<pin>/``
(the installed copies: a git package at its commit, a folder as it was copied, a Python
distribution installed with its dependencies), ``git/<hash>.git`` (a mirror of each git source,
so a reinstall from the lock needs no network) and ``wheels/<name>/<version>/`` (the wheels a
Python package was installed from, each hashed in the lock).

``pi install`` alone puts back every locked package whose copy is missing or changed, exactly
as locked (the commit, the files' hashes, the wheels' hashes), offline when the mirror or the
wheels are there. ``pi update`` resolves each unpinned source again (a git source's default
branch, a folder's files, a Python package's latest version), then installs exactly what it
resolved and records it. Nothing of a package runs while it is installed: git runs without
hooks, Python packages are installed from wheels only (no build step), with ``--no-compile``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from pi_cli.shell.packages._npm import foreign_extensions, keep_tarball, stage_npm
from pi_cli.shell.packages._pypi import pip, stage_pypi, wheel_hashes
from pi_cli.shell.packages.files import CopyTooLarge, copy_tree, file_records, verify
from pi_cli.shell.packages.git import GitError, git
from pi_cli.shell.packages.lock import current_scope, packages_home, read_lock, write_lock
from pi_cli.shell.packages.sources import PackageError, Spec, package_name, parse_spec, resources

MAX_FILES = 20000
MAX_BYTES = 500 * 1024 * 1024


def tree_hash(files: dict[str, list[Any]]) -> str:
    """One hash of a copy's paths and contents (sizes and times left out)."""
    digest = hashlib.sha256()
    for rel, record in sorted(files.items()):
        digest.update(f"{rel}\0{record[2]}\n".encode())
    return "sha256:" + digest.hexdigest()


def _mirror(url: str) -> Path:
    return packages_home() / "git" / (hashlib.sha256(url.encode()).hexdigest()[:16] + ".git")


def _git_fetch(url: str, offline: bool) -> Path:
    """The source's mirror, cloned (also when ``offline``: a reinstall whose mirror is gone, as
    on a teammate's machine, fetches it, then checks the locked commit and hash) or, online,
    fetched again."""
    mirror = _mirror(url)
    if not mirror.is_dir():
        mirror.parent.mkdir(parents=True, exist_ok=True)
        temp = Path(tempfile.mkdtemp(prefix=".mirror-", dir=mirror.parent))
        try:
            git("clone", "--quiet", "--mirror", "--", url, str(temp / "m.git"))
            (temp / "m.git").rename(mirror)
        finally:
            shutil.rmtree(temp, ignore_errors=True)
    elif not offline:
        git("fetch", "--quiet", "--prune", "origin", cwd=mirror)
    return mirror


def _resolve(mirror: Path, ref: str | None) -> str:
    try:
        return git("rev-parse", "--verify", "--quiet", f"{ref or 'HEAD'}^{{commit}}", cwd=mirror)
    except GitError:
        raise PackageError(f"no commit {ref!r} in the repository") from None


def _checkout(mirror: Path, commit: str, dest: Path) -> None:
    git("clone", "--quiet", "--no-checkout", "--", str(mirror), str(dest))
    git("checkout", "--quiet", "--detach", commit, "--", cwd=dest)


def _copy(source: Path, dest: Path) -> None:
    try:
        copy_tree(source, dest, MAX_FILES, MAX_BYTES)
    except CopyTooLarge as exc:
        raise PackageError(str(exc)) from None


def _stage_git(spec: Spec, staging: Path, offline: bool, commit: str | None) -> dict[str, Any]:
    mirror = _git_fetch(spec.location, offline)
    if commit is None:
        commit = _resolve(mirror, spec.ref).strip()
    elif offline and not _has(mirror, commit):
        git("fetch", "--quiet", "--prune", "origin", cwd=mirror)  # the mirror is older
        if not _has(mirror, commit):
            raise PackageError(f"commit {commit[:12]} is not in {spec.location}")
    _checkout(mirror, commit, staging / "repo")
    _copy(staging / "repo", staging / "copy")
    return {"url": spec.location, "ref": spec.ref, "commit": commit, "pin": commit[:12]}


def _has(mirror: Path, commit: str) -> bool:
    try:
        git("cat-file", "-e", f"{commit}^{{commit}}", cwd=mirror)
    except GitError:
        return False
    return True


def _install(
    spec: Spec, *, offline: bool = False, locked: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Stage ``spec`` (exactly ``locked`` when given), move it into the store; its record."""
    home = packages_home()
    home.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=home))
    try:
        facts = _stage(spec, staging, offline, locked)
        copy = staging / "copy"
        name, version, found, problems = resources(copy)
        if spec.kind == "npm":
            _, warning = foreign_extensions(copy, found)
            problems += [warning] if warning else []
        if spec.kind == "pypi":
            found, problems = facts.pop("resources"), []
            name, version = facts.pop("name"), facts["version"]
        fallback = Path(spec.location.rstrip("/")).name
        final = str(locked["name"]) if locked else package_name(name, fallback)
        files = file_records(copy)
        if (
            locked
            and locked.get("hash")
            and tree_hash(files) != locked["hash"]
            and spec.kind != "pypi"
        ):
            raise PackageError(
                f"{final}: what {spec.text} holds now differs from the lock "
                f"({tree_hash(files)[:19]} ≠ {str(locked['hash'])[:19]}); refused"
            )
        dest = home / "store" / final / str(facts.pop("pin"))
        shutil.rmtree(dest, ignore_errors=True)
        dest.parent.mkdir(parents=True, exist_ok=True)
        copy.rename(dest)
        _keep_wheels(facts, final)
        keep_tarball(facts, home, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    files = file_records(dest)
    return {
        "name": final,
        "source": _source_text(spec),
        "kind": spec.kind,
        "version": version or facts.get("version", ""),
        **{k: v for k, v in facts.items() if k != "version"},
        "hash": tree_hash(files),
        "path": str(dest),
        "files": files,
        "resources": found,
        "problems": problems,
    }


def _source_text(spec: Spec) -> str:
    """How the lock names the source: a folder as an absolute path (the user's lock) or, when
    inside a project, relative to it (a project's lock, read on a teammate's machine)."""
    if spec.kind != "local":
        return spec.text
    project = current_scope().project
    if project is not None:
        try:
            return "./" + Path(spec.location).relative_to(project.resolve()).as_posix()
        except ValueError:
            pass
    return spec.location


def _remove_copy(record: dict[str, Any] | None) -> None:
    """Delete a record's copy (its path was confined to the store by :func:`read_lock`)."""
    path = str((record or {}).get("path") or "")
    if path and Path(path).is_absolute():
        shutil.rmtree(path, ignore_errors=True)


def _keep_wheels(facts: dict[str, Any], name: str) -> None:
    wheels = facts.get("wheelsDir")
    if not wheels:
        return
    keep = packages_home() / "wheels" / name / str(facts.get("version"))
    if Path(wheels) != keep:
        shutil.rmtree(keep, ignore_errors=True)
        keep.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(wheels, keep)
    facts["wheelsDir"] = str(keep)


def _stage(
    spec: Spec, staging: Path, offline: bool, locked: dict[str, Any] | None
) -> dict[str, Any]:
    if spec.kind == "git":
        commit = str(locked["commit"]) if locked and locked.get("commit") else None
        return _stage_git(spec, staging, offline, commit)
    if spec.kind == "npm":
        facts = stage_npm(spec, staging, packages_home(), locked)
        return {**facts, "npmSource": spec.location, "ref": spec.ref}
    if spec.kind == "local":
        source = Path(spec.location)
        if not source.is_dir():
            raise PackageError(f"the folder {source} is gone")
        _copy(source, staging / "copy")
        return {"pin": "local-" + hashlib.sha256(_source_text(spec).encode()).hexdigest()[:8]}
    wheels = None
    if locked is not None:
        wheels = Path(str(locked.get("wheelsDir") or ""))
        if not locked.get("wheelsDir") or not wheels.is_dir():  # a teammate's clone: fetch them
            wheels = staging / "wheels"
            pinned = f"{spec.location}=={locked.get('version')}"
            pip("download", "--quiet", "--only-binary", ":all:", "--dest", str(wheels), pinned)
            spec = Spec(spec.kind, spec.location, str(locked.get("version")), spec.text)
        if wheel_hashes(wheels) != locked.get("wheels"):
            raise PackageError(
                f"the wheels of {spec.location} in {wheels} differ from the lock; refused "
                f"(pi update {locked.get('name')} downloads them again)"
            )
    return stage_pypi(spec, staging, wheels)


def install(text: str, cwd: Path) -> tuple[dict[str, Any], list[str]]:
    """``pi install SOURCE``: install it and lock it; (its record, notes)."""
    spec = parse_spec(text, cwd)
    record = _install(spec)
    packages = read_lock()
    old = packages.get(record["name"])
    if old is not None and old.get("source") != record["source"]:
        notes = [f"replaces {record['name']} from {old.get('source')}"]
    else:
        notes = []
    notes += [str(p) for p in record.get("problems", [])]
    _commit(packages, record, old)
    return record, notes


def _commit(
    packages: dict[str, dict[str, Any]], record: dict[str, Any], old: dict[str, Any] | None
) -> None:
    record.pop("problems", None)
    packages[record["name"]] = record
    write_lock(packages)
    if old is not None and old.get("path") != record["path"]:
        _remove_copy(old)


def reinstall() -> list[str]:
    """``pi install`` alone: every locked package whose copy is missing or changed, put back
    exactly as locked (offline when its mirror or wheels are here)."""
    packages = read_lock()
    if not packages:
        return ["No packages in the lock file (pi install SOURCE)."]
    lines = []
    for name, locked in sorted(packages.items()):
        path = str(locked.get("path") or "")
        changed = verify(Path(path), locked.get("files") or {}) if path else "no copy in the store"
        if changed is None:
            lines.append(f"{name}: as locked")
            continue
        spec = Spec(
            str(locked.get("kind")),
            locked_location(locked),
            locked.get("ref"),
            str(locked.get("source")),
        )
        try:
            record = _install(spec, offline=True, locked=locked)
        except (PackageError, GitError) as exc:
            lines.append(f"{name}: not reinstalled: {exc}")
            continue
        _commit(packages, record, None)
        lines.append(f"{name}: reinstalled from the lock ({changed})")
    return lines


def locked_location(locked: dict[str, Any]) -> str:
    """A locked package's source: a git URL, a distribution's name, a folder (resolved from the
    current scope's project)."""
    if locked.get("kind") == "git":
        return str(locked.get("url"))
    if locked.get("kind") == "pypi":
        return str(locked.get("name"))
    if locked.get("kind") == "npm":
        return str(locked.get("npmSource"))
    return str(parse_spec(str(locked.get("source")), current_scope().project or Path("/")).location)


def update(names: list[str]) -> list[str]:
    """``pi update [NAME…]`` (none: all): resolve each unpinned source again and install exactly
    what was resolved; pinned ones are named and left."""
    packages = read_lock()
    unknown = [n for n in names if n not in packages]
    if unknown:
        raise PackageError(f"not installed: {', '.join(unknown)}")
    lines = []
    for name in names or sorted(packages):
        locked = packages[name]
        spec = Spec(
            str(locked.get("kind")),
            locked_location(locked),
            locked.get("ref"),
            str(locked.get("source")),
        )
        if spec.pinned:
            lines.append(
                f"{name}: pinned to {spec.ref} (pi install {spec.text.rsplit('@', 1)[0]}@NEWREF)"
            )
            continue
        try:
            record = _install(spec)
        except (PackageError, GitError) as exc:
            lines.append(f"{name}: not updated: {exc}")
            continue
        before = str(locked.get("commit") or locked.get("version") or locked.get("hash"))[:12]
        after = str(record.get("commit") or record.get("version") or record.get("hash"))[:12]
        _commit(packages, record, locked)
        lines.append(
            f"{name}: {before} -> {after}" if before != after else f"{name}: up to date ({after})"
        )
    return lines


def remove(name: str) -> str:
    """``pi remove NAME`` (or its source): out of the lock, its copy deleted."""
    packages = read_lock()
    key = (
        name
        if name in packages
        else next((k for k, v in packages.items() if v.get("source") == name), None)
    )
    if key is None:
        raise PackageError(f"{name} is not installed (pi list)")
    record = packages.pop(key)
    write_lock(packages)
    _remove_copy(record)
    folder = packages_home() / "store" / key
    if folder.is_dir() and not any(os.scandir(folder)):
        folder.rmdir()
    return f"Removed {key}."
