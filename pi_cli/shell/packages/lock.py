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
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pi_cli.shell.packages.files import verify, write_json
from pi_cli.shell.paths import pi_home

Kind = Literal["skills", "prompts", "extensions", "themes", "agents", "python"]
KINDS: tuple[Kind, ...] = ("skills", "prompts", "extensions", "themes", "agents")
"""What a package may carry (``python``, the folder a Python package is installed in, is added
by pi for those)."""
LOCK_VERSION = 1
_cache: dict[str, tuple[tuple[int, int], dict[Kind, list[Path]], list[str]]] = {}


def packages_home() -> Path:
    """``$PI_HOME/packages``."""
    return pi_home() / "packages"


def lock_file() -> Path:
    """``$PI_HOME/packages/pi-lock.json``."""
    return packages_home() / "pi-lock.json"


def read_lock() -> dict[str, dict[str, Any]]:
    """The locked packages by name (``{}`` when there is no lock or it is unreadable)."""
    try:
        data = json.loads(lock_file().read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    packages = data.get("packages") if isinstance(data, dict) else None
    if not isinstance(packages, dict):
        return {}
    return {str(k): v for k, v in packages.items() if isinstance(v, dict)}


def write_lock(packages: dict[str, dict[str, Any]]) -> None:
    """Replace the lock's packages (atomically)."""
    write_json(lock_file(), {"version": LOCK_VERSION, "packages": dict(sorted(packages.items()))})
    _cache.clear()


def _inside(root: Path, relative: object) -> Path | None:
    if not isinstance(relative, str):
        return None
    target = (root / relative).resolve()
    real = root.resolve()
    return target if target == real or real in target.parents else None


def package_resources(fresh: bool = False) -> tuple[dict[Kind, list[Path]], list[str]]:
    """What the installed packages carry (folders or files by kind), and the packages left out
    (changed, missing), one line each. Cached while the lock file is unchanged, so the parts of
    one shell share one check; ``fresh`` checks the copies again (a shell's start, ``/reload``)."""
    if fresh:
        _cache.clear()
    path = lock_file()
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
    for name, record in read_lock().items():
        root = Path(str(record.get("path", "")))
        changed = verify(root, record.get("files") or {})
        if changed is not None:
            problems.append(
                f"Package {name} not loaded: its installed copy changed ({changed}). "
                "Put it back from the lock: pi install"
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
