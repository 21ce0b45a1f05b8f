"""The packages' lock file and what the installed packages carry, read at start.

``$PI_HOME/packages/pi-lock.json``::

    {"version": 1, "packages": {"<name>": {
        "source": "git:https://example.com/x.git@v1", "kind": "git" | "local" | "pypi",
        "url": ..., "ref": ..., "commit": "<sha>" | null, "version": ..., "hash": "sha256:...",
        "path": "<the installed copy>", "files": {"<rel>": [size, mtime_ns, sha256]},
        "resources": {"skills": ["skills"], "prompts": [...], "extensions": [...],
                      "themes": [...], "agents": [...]}}}}

A start reads only this file (one ``stat`` when there is none). Each package's copy is checked
against its record (:func:`~.files.verify`): a changed copy is left out and named, with the
command that puts it back (``pi install``, offline from the lock).

**Two scopes** (:class:`Scope`): the user's (above) and a project's (``pi install -l``):
``.pi/packages.lock``, meant to be committed, with the store under ``.pi/packages/`` (ignored by
git). A project lock's paths are relative to its store; any lock's ``path`` must be
``store/<name>/<pin>`` of its own store (a lock naming another folder, say a committed one
naming ``~``, is never loaded, reinstalled over or removed). A project's packages load only
when the folder is trusted; otherwise one notice names them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pi_cli.shell.paths import pi_home, project_dir

Kind = Literal["skills", "prompts", "extensions", "themes", "agents", "python"]
KINDS: tuple[Kind, ...] = ("skills", "prompts", "extensions", "themes", "agents")
"""What a package may carry (``python``, the folder a Python package is installed in, is added
by pi for those)."""
LOCK_VERSION = 1
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9])?$")
_cache: dict[str, tuple[tuple[int, int], dict[Kind, list[Path]], list[str]]] = {}
_project: list[tuple[Path, bool]] = []
"""The folder (and whether it is trusted) of the shell being built: its project packages."""


@dataclass(frozen=True)
class Scope:
    """Where a set of packages lives: ``home`` (the store, mirrors, wheels) and ``lock``;
    ``project`` is the project's folder for a project's packages (``None``: the user's)."""

    home: Path
    lock: Path
    project: Path | None = None

    @property
    def label(self) -> str:
        """``user`` or ``project``."""
        return "user" if self.project is None else "project"


def user_scope() -> Scope:
    """``$PI_HOME/packages`` with ``pi-lock.json``."""
    home = pi_home() / "packages"
    return Scope(home, home / "pi-lock.json")


def project_scope(cwd: Path) -> Scope:
    """``.pi/packages/`` with ``.pi/packages.lock`` (the lock is committed, the store is not)."""
    folder = project_dir(cwd)
    return Scope(folder / "packages", folder / "packages.lock", cwd)


_scope: ContextVar[Scope | None] = ContextVar("pi_packages_scope", default=None)


@contextmanager
def in_scope(scope: Scope) -> Iterator[None]:
    """Install, update, list and remove in ``scope`` (the user's otherwise)."""
    token = _scope.set(scope)
    try:
        yield
    finally:
        _scope.reset(token)


def current_scope() -> Scope:
    """The scope :func:`in_scope` chose (the user's by default)."""
    return _scope.get() or user_scope()


def packages_home() -> Path:
    """The current scope's store folder (``$PI_HOME/packages``)."""
    return current_scope().home


def lock_file() -> Path:
    """The current scope's lock (``$PI_HOME/packages/pi-lock.json``)."""
    return current_scope().lock


def _confined(home: Path, under: str, name: str, value: object) -> str | None:
    """``value`` as an absolute path when it is exactly ``home/under/name/<one folder>`` (no
    link on the way), else ``None``."""
    if not isinstance(value, str) or not value:
        return None
    path = Path(value) if Path(value).is_absolute() else home / value
    expected = home.resolve() / under / name
    real = path.resolve()
    return str(real) if real.parent == expected and real.name not in ("", ".", "..") else None


def read_lock(scope: Scope | None = None) -> dict[str, dict[str, Any]]:
    """The locked packages by name (``{}`` when there is no lock or it is unreadable). A record
    whose ``path`` (or ``wheelsDir``) is not its own place in the store loses it (nothing is
    loaded from, or deleted at, a folder a hostile lock names)."""
    scope = scope or current_scope()
    try:
        data = json.loads(scope.lock.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    packages = data.get("packages") if isinstance(data, dict) else None
    if not isinstance(packages, dict):
        return {}
    found: dict[str, dict[str, Any]] = {}
    linked = scope.home.is_symlink()  # a committed link as the store: it is not pi's store
    for name, value in packages.items():
        if not isinstance(value, dict) or not valid_name(name):
            continue
        record = dict(value)
        record["path"] = "" if linked else _confined(scope.home, "store", name, record.get("path"))
        record["path"] = record["path"] or ""
        if "wheelsDir" in record:
            record["wheelsDir"] = _confined(scope.home, "wheels", name, record["wheelsDir"]) or ""
        found[str(name)] = record
    return found


def valid_name(name: object) -> bool:
    """A name usable as a folder and in listings."""
    return isinstance(name, str) and bool(_NAME.match(name)) and ".." not in name


def write_lock(packages: dict[str, dict[str, Any]]) -> None:
    """Replace the lock's packages (atomically); a project's paths relative to its store."""
    scope = current_scope()
    if scope.project is not None:
        packages = {name: _relative(scope.home, r) for name, r in packages.items()}
        _ignore_store(scope.home)
    from pi_cli.shell.packages.files import write_json  # hashlib, tempfile, shutil: ~4 ms

    write_json(scope.lock, {"version": LOCK_VERSION, "packages": dict(sorted(packages.items()))})
    _cache.clear()


def _relative(home: Path, record: dict[str, Any]) -> dict[str, Any]:
    """A project's record: paths relative to its store, no modification times (they differ on
    each machine; a project's copies are hashed when checked)."""
    record = dict(record)
    files = record.get("files")
    if isinstance(files, dict):
        record["files"] = {
            rel: [value[0], 0, value[2]] if isinstance(value, list) and len(value) == 3 else value
            for rel, value in files.items()
        }
    for key in ("path", "wheelsDir"):
        value = record.get(key)
        if isinstance(value, str) and value and Path(value).is_absolute():
            try:
                record[key] = Path(value).relative_to(home.resolve()).as_posix()
            except ValueError:
                record[key] = ""
    return record


def _ignore_store(home: Path) -> None:
    """The store, mirrors and wheels stay out of git (the lock, beside them, is committed)."""
    ignore = home / ".gitignore"
    if not ignore.exists():
        home.mkdir(parents=True, exist_ok=True)
        ignore.write_text(
            "# pi's package store: rebuilt from ../packages.lock by `pi install -l`\n*\n"
        )


def _inside(root: Path, relative: object) -> Path | None:
    if not isinstance(relative, str):
        return None
    target = (root / relative).resolve()
    real = root.resolve()
    return target if target == real or real in target.parents else None


def package_resources(
    fresh: bool = False, project: tuple[Path, bool] | None = None
) -> tuple[dict[Kind, list[Path]], list[str]]:
    """What the installed packages carry (folders or files by kind), and the packages left out
    (changed, missing), one line each. Cached while the lock file is unchanged, so the parts of
    one shell share one check; ``fresh`` checks the copies again (a shell's start, ``/reload``).
    ``project`` (the folder, whether it is trusted) adds that project's packages, for this and
    the later calls of the same build; untrusted, they are named once and not loaded."""
    if fresh:
        _cache.clear()
    if project is not None:
        _project[:] = [project]
    found, problems = _scope_resources(user_scope())
    if not _project:
        return found, problems
    cwd, trusted = _project[0]
    scope = project_scope(cwd)
    if not scope.lock.is_file():
        return found, problems
    if not trusted:
        names = ", ".join(sorted(read_lock(scope))) or "none readable"
        note = (
            f"Project packages not loaded: this folder is not trusted ({names} in "
            f"{scope.lock}). Trust the folder to use them."
        )
        return found, [*problems, note]
    more, more_problems = _scope_resources(scope)
    for kind, paths in more.items():
        found[kind] = [*found.get(kind, []), *paths]
    return found, [*problems, *more_problems]


def _scope_resources(scope: Scope) -> tuple[dict[Kind, list[Path]], list[str]]:
    found, problems = _cached_resources(scope)
    return {k: list(v) for k, v in found.items()}, problems


def _cached_resources(scope: Scope) -> tuple[dict[Kind, list[Path]], list[str]]:
    path = scope.lock
    try:
        info = path.stat()
    except OSError:
        return {}, []
    key = (info.st_mtime_ns, info.st_size)
    cached = _cache.get(str(path))
    if cached is not None and cached[0] == key:
        return cached[1], list(cached[2])
    found: dict[Kind, list[Path]] = {}
    problems: list[str] = []
    again = "pi install" if scope.project is None else "pi install -l"
    for name, record in read_lock(scope).items():
        root = Path(str(record.get("path") or ""))
        changed = _verify(root, record.get("files") or {}) if record.get("path") else None
        if not record.get("path"):
            changed = "the lock names a folder outside its store"
        if changed is not None:
            problems.append(
                f"Package {name} not loaded: its installed copy changed ({changed}). "
                f"Put it back from the lock: {again}"
            )
            continue
        resources = record.get("resources") if isinstance(record.get("resources"), dict) else {}
        for kind in (*KINDS, "python"):
            for relative in (resources or {}).get(kind) or []:
                target = _inside(root, relative)
                if target is not None and target.exists():
                    found.setdefault(kind, []).append(target)
    _cache[str(path)] = (key, found, problems)
    return found, list(problems)


def package_paths(kind: Kind) -> list[Path]:
    """The installed packages' folders or files of one kind (verified copies only)."""
    return list(package_resources()[0].get(kind, []))


def _verify(root: Path, files: dict[str, Any]) -> str | None:
    """:func:`~.files.verify`, loaded when a package is recorded (not on every start)."""
    from pi_cli.shell.packages.files import verify

    return verify(root, files)
