"""What ``pi install SOURCE`` names, and what a package carries.

Sources (the TypeScript pi's spellings where they exist):

- ``git:URL[@REF]``, ``git:github.com/owner/repo[@REF]``, or a bare ``https://``, ``ssh://``,
  ``file://`` or ``git@host:path`` URL: a git repository, pinned to the commit ``REF`` (or the
  default branch) resolves to;
- a folder (``./pkg``, ``/abs/pkg``, ``~/pkg``): copied as it is;
- ``pypi:NAME[==VERSION]`` (also ``pip:``): a Python distribution from the package index pip is
  configured with, installed into pi's own environment under ``$PI_HOME`` (never the project's);
- ``npm:NAME[@VERSION]`` (``npm:@scope/name``), or ``npm:`` and a tarball or folder path: the
  TypeScript pi's package, fetched with ``npm pack`` (:mod:`._npm`).

What a package carries: ``package.json``'s ``pi`` key (the TypeScript pi's manifest) or
``pyproject.toml``'s ``[tool.pi]`` with lists of relative paths for ``extensions``, ``skills``,
``prompts``, ``themes`` and ``agents``; without one, the folders of those names.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_cli.shell.packages.lock import KINDS, valid_name

__all__ = ["PackageError", "Spec", "package_name", "parse_spec", "resources", "valid_name"]

_URL = re.compile(r"^(?:https?|ssh|git|file)://|^[\w.-]+@[\w.-]+:")
_HOST_PATH = re.compile(r"^[\w.-]+\.[a-z]{2,}/[\w.-]+/[\w.-]+")
_REF = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./+-]{0,200}$")
_PYPI = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:==([A-Za-z0-9.+!_-]+))?$")
_NPM_NAME = re.compile(r"^(?:@[a-z0-9][a-z0-9._~-]{0,100}/)?[a-z0-9][a-z0-9._~-]{0,213}$")
_NPM_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+_-]{0,100}$")
MAX_MANIFEST_BYTES = 1024 * 1024


class PackageError(ValueError):
    """A package cannot be installed, updated or removed (the message says why)."""


@dataclass(frozen=True)
class Spec:
    """A parsed source: ``kind`` git (``location`` a URL, ``ref``), local (a folder) or pypi
    (``location`` the distribution's name, ``ref`` its ``==`` version)."""

    kind: str
    location: str
    ref: str | None
    text: str

    @property
    def pinned(self) -> bool:
        """Whether the source names its version (``pi update`` leaves it alone)."""
        return self.ref is not None


def _split_ref(text: str) -> tuple[str, str | None]:
    at = text.rfind("@")
    if at <= 0 or at < max(text.rfind("/"), text.rfind(":")):
        return text, None
    ref = text[at + 1 :]
    if not _REF.match(ref) or ".." in ref:
        raise PackageError(f"bad ref {ref!r} in {text!r}")
    return text[:at], ref


def parse_spec(text: str, cwd: Path) -> Spec:
    """Read ``pi install TEXT`` (raises :class:`PackageError`)."""
    raw = text.strip()
    if not raw or raw.startswith("-"):
        raise PackageError(f"not a package source: {raw!r}")
    if raw.startswith("npm:"):
        return _npm_spec(raw, cwd)
    for prefix in ("pypi:", "pip:"):
        if raw.startswith(prefix):
            match = _PYPI.match(raw[len(prefix) :])
            if not match:
                raise PackageError(f"{raw!r} is not pypi:NAME or pypi:NAME==VERSION")
            return Spec("pypi", match.group(1), match.group(2), raw)
    git_text = raw.removeprefix("git:")
    local = Path(git_text).expanduser()
    local = local if local.is_absolute() else cwd / local
    if not raw.startswith("git:") and local.is_dir() and not (local / "HEAD").is_file():
        return Spec("local", str(local.resolve()), None, raw)
    url, ref = _split_ref(git_text)
    if _HOST_PATH.match(url) and not _URL.match(url):
        url = "https://" + url
    elif not _URL.match(url):
        path = Path(url).expanduser()
        path = path if path.is_absolute() else cwd / path
        if not path.exists():
            raise PackageError(f"{raw!r} is neither a folder, a git URL nor pypi:NAME")
        url = str(path.resolve())
    return Spec("git", url, ref, raw)


def _npm_spec(raw: str, cwd: Path) -> Spec:
    """``npm:NAME[@VERSION]`` (``@scope/name`` too), or ``npm:`` and a tarball or folder path
    (``npm pack`` takes it as it is)."""
    rest = raw.removeprefix("npm:")
    if rest.startswith((".", "/", "~")):
        path = Path(rest).expanduser()
        path = path if path.is_absolute() else cwd / path
        if not path.exists():
            raise PackageError(f"{raw!r}: no tarball or folder {path}")
        return Spec("npm", str(path.resolve()), None, raw)
    at = rest.find("@", 1)
    name, version = (rest[:at], rest[at + 1 :]) if at > 0 else (rest, None)
    if not _NPM_NAME.match(name) or (version is not None and not _NPM_VERSION.match(version)):
        raise PackageError(f"{raw!r} is not npm:NAME, npm:@SCOPE/NAME or npm:NAME@VERSION")
    return Spec("npm", name, version, raw)


def _read_small(path: Path) -> bytes | None:
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_MANIFEST_BYTES + 1)
    except OSError:
        return None
    return data if len(data) <= MAX_MANIFEST_BYTES else None


def _manifest(root: Path) -> tuple[str | None, str, dict[str, Any] | None]:
    """(name, version, the ``pi`` table) of ``package.json`` or ``pyproject.toml``."""
    data = _read_small(root / "package.json")
    if data is not None:
        try:
            value = json.loads(data.decode("utf-8-sig"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise PackageError(f"package.json is not valid JSON ({exc})") from None
        if isinstance(value, dict):
            table = value.get("pi")
            name = value.get("name")
            return (
                str(name) if isinstance(name, str) else None,
                str(value.get("version") or ""),
                table if isinstance(table, dict) else None,
            )
    data = _read_small(root / "pyproject.toml")
    if data is not None:
        try:
            value = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise PackageError(f"pyproject.toml cannot be read ({exc})") from None
        project = value.get("project") if isinstance(value.get("project"), dict) else {}
        table = (value.get("tool") or {}).get("pi") if isinstance(value.get("tool"), dict) else None
        name = project.get("name") if isinstance(project, dict) else None
        version = project.get("version") if isinstance(project, dict) else ""
        return (
            str(name) if isinstance(name, str) else None,
            str(version or ""),
            table if isinstance(table, dict) else None,
        )
    return None, "", None


def package_name(raw: str | None, fallback: str) -> str:
    """A usable name: ``@scope/name`` becomes ``scope-name``; a bad one falls back."""
    for candidate in (raw, fallback):
        if isinstance(candidate, str):
            cleaned = candidate.removeprefix("@").replace("/", "-").removesuffix(".git")
            if valid_name(cleaned):
                return cleaned
    raise PackageError(f"the package has no usable name ({raw!r}, {fallback!r})")


def resources(root: Path) -> tuple[str | None, str, dict[str, list[str]], list[str]]:
    """(name, version, {kind: [relative paths]}, problems) of the package at ``root``."""
    name, version, table = _manifest(root)
    found: dict[str, list[str]] = {}
    problems: list[str] = []
    real = root.resolve()
    for kind in KINDS:
        if table is not None:
            value = table.get(kind) or []
            items = value if isinstance(value, list) else [value]
        else:
            items = [kind] if (root / kind).is_dir() else []
        for item in items:
            target = (real / str(item)).resolve() if isinstance(item, str) else None
            if target is None or (target != real and real not in target.parents):
                problems.append(f"{kind}: {item!r} is not a path inside the package; skipped")
            elif not target.exists():
                problems.append(f"{kind}: {item!r} does not exist; skipped")
            else:
                found.setdefault(kind, []).append(target.relative_to(real).as_posix() or ".")
    return name, version[:40], found, problems
