"""Where extensions come from, found without importing any of them (nor anything of
:mod:`pi_cli.shell.extensions`: with none installed, a one-shot loads only this module).

- ``$PI_HOME/extensions/``: a module ``name.py`` or a package ``name/__init__.py``;
- a **trusted** project's ``.pi/extensions/`` (the same forms; an untrusted project's are listed
  in the trust notice and never imported);
- the ``extensions`` setting: more files or folders (pi-ts's setting of the same name);
- installed packages' entry points in the group ``pi.extensions`` (a module, or its ``register``
  function: ``name = "package.module"`` or ``"package.module:register"``).

``.ts`` / ``.js`` files in those folders (and in the TypeScript pi's ``~/.pi/agent/extensions``)
are the TypeScript pi's extensions: pi cannot run them, and says so once (:func:`foreign_files`).

Entry points are read through ``importlib.metadata`` only when an installed package changed:
the result is cached with the modification times of ``sys.path``'s folders.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pi_cli.shell.packages.lock import package_paths
from pi_cli.shell.paths import pi_home, pi_ts_home, project_dir

if TYPE_CHECKING:
    from pi_cli.shell.config.settings import Settings

Origin = Literal["user", "project", "setting", "package"]
ENTRY_POINT_GROUP = "pi.extensions"
FOREIGN_SUFFIXES = (".ts", ".js", ".mjs", ".cjs", ".mts")


@dataclass(frozen=True)
class Source:
    """One extension to load: its name, where it is, and a stamp that changes with its code."""

    name: str
    origin: Origin
    path: Path | None = None
    """The module file or the package folder (``None`` for an entry point)."""
    entry: str | None = None
    """An entry point's value (``module`` or ``module:attribute``)."""
    stamp: str = ""

    @property
    def label(self) -> str:
        """How the user knows it: its path, or the package's entry point."""
        if self.path is not None:
            return str(self.path)
        return f"{self.entry} (entry point {self.name})"


def _stamp(paths: list[Path]) -> str:
    import hashlib  # with tempfile below: ~4 ms no start without extensions needs

    hasher = hashlib.sha256()
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            continue
        hasher.update(f"{path}\0{info.st_mtime_ns}\0{info.st_size}\0".encode(errors="replace"))
    return hasher.hexdigest()[:24]


def _package_files(folder: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        found.extend(Path(root, f) for f in sorted(files) if f.endswith(".py"))
    return found


def source_of(path: Path, origin: Origin) -> Source | None:
    """The extension at ``path`` (a ``.py`` file or a folder with ``__init__.py``), if any."""
    if path.is_file() and path.suffix == ".py" and not path.name.startswith(("_", ".")):
        return Source(path.stem, origin, path, stamp=_stamp([path]))
    if path.is_dir() and (path / "__init__.py").is_file() and not path.name.startswith(("_", ".")):
        return Source(path.name, origin, path, stamp=_stamp(_package_files(path)))
    return None


def folder_sources(folder: Path, origin: Origin) -> list[Source]:
    """The extensions directly in ``folder`` (sorted by name)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    found = [source_of(Path(entry.path), origin) for entry in entries]
    return [source for source in found if source is not None]


def project_sources(cwd: Path) -> list[Source]:
    """The project's extensions (load them only in a trusted folder)."""
    return folder_sources(project_dir(cwd) / "extensions", "project")


def setting_sources(paths: list[str], cwd: Path) -> tuple[list[Source], list[str]]:
    """The ``extensions`` setting's files and folders; problems for those that are none."""
    found: list[Source] = []
    problems: list[str] = []
    for raw in paths:
        path = Path(os.path.expanduser(raw))
        path = path if path.is_absolute() else cwd / path
        source = source_of(path, "setting")
        if source is not None:
            found.append(source)
        elif path.is_dir():
            found.extend(folder_sources(path, "setting"))
        else:
            problems.append(f"Extension {raw} (extensions setting): no such .py file or package")
    return found, problems


def entry_point_sources(cache: dict[str, Any]) -> list[Source]:
    """Installed packages' extensions; ``cache`` (read and updated) spares the metadata scan."""
    stamp = _stamp([Path(p) for p in sys.path if p and os.path.isdir(p)])
    cached = cache.get("entryPoints")
    if isinstance(cached, dict) and cached.get("stamp") == stamp:
        found = cached.get("found")
    else:
        from importlib.metadata import entry_points

        found = []
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            version = getattr(ep.dist, "version", "") if ep.dist is not None else ""
            dist = getattr(ep.dist, "name", "") if ep.dist is not None else ""
            found.append({"name": ep.name, "value": ep.value, "stamp": f"{dist}=={version}"})
        cache["entryPoints"] = {"stamp": stamp, "found": found}
    if not isinstance(found, list):
        return []
    return [
        Source(str(item["name"]), "package", entry=str(item["value"]), stamp=str(item["stamp"]))
        for item in found
        if isinstance(item, dict) and {"name", "value", "stamp"} <= set(item)
    ]


def user_folder() -> Path:
    """``$PI_HOME/extensions``."""
    return pi_home() / "extensions"


def foreign_files(cwd: Path, pi_ts_home: Path | None) -> list[Path]:
    """The TypeScript pi's extensions where pi looks for its own (and in pi-ts's home)."""
    folders = [user_folder(), project_dir(cwd) / "extensions"]
    if pi_ts_home is not None:
        folders.append(pi_ts_home / "extensions")
    found: list[Path] = []
    for folder in folders:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            if path.suffix in FOREIGN_SUFFIXES and entry.is_file():
                found.append(path)
            elif entry.is_dir() and any((path / f"index{s}").is_file() for s in FOREIGN_SUFFIXES):
                found.append(path)
    return found


def foreign_notice(files: list[Path], cwd: Path) -> str:
    """The one warning naming the TypeScript pi's extensions pi cannot run."""

    def shown(path: Path) -> str:
        try:
            return str(path.relative_to(cwd))
        except ValueError:
            return str(path).replace(str(Path.home()), "~", 1)

    names = ", ".join(shown(p) for p in files)
    return (
        f"Not loaded: {names}: the TypeScript pi's extensions (TypeScript/JavaScript) do not run "
        "in pi. pi's extensions are Python modules with a register(pi) function, in "
        "~/.pi/extensions/ or .pi/extensions/ (see docs/extensions.md; "
        "examples/extensions/ has Python versions of pi-ts's examples, such as protected_paths.py)."
    )


def disabled_names(setting: list[str]) -> frozenset[str]:
    """The ``disabledExtensions`` setting as a set of names."""
    return frozenset(name.strip() for name in setting if name.strip())


def by_name(sources: list[Source]) -> tuple[list[Source], list[str]]:
    """One source per name (a later one replaces an earlier: project over user); what was
    replaced, as notices."""
    chosen: dict[str, Source] = {}
    notes: list[str] = []
    for source in sources:
        previous = chosen.get(source.name)
        if previous is not None:
            notes.append(f"Extension {source.name}: {source.label} replaces {previous.label}")
        chosen[source.name] = source
    return list(chosen.values()), notes


# ---------------------------------------------------------------------------- the cache file


def cache_file() -> Path:
    """``$PI_HOME/cache/extensions.json``: the entry points found, and each extension's
    registrations (:mod:`pi_cli.shell.extensions.manifest`)."""
    return pi_home() / "cache" / "extensions.json"


def read_cache() -> dict[str, Any]:
    """The whole cache (empty when missing or unreadable)."""
    try:
        data = json.loads(cache_file().read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def write_cache(data: dict[str, Any]) -> None:
    """Write the cache atomically (a failure is harmless: the next start finds things again)."""
    path = cache_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        import tempfile

        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".extensions.", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)


def cached_flags() -> list[dict[str, Any]]:
    """The command-line flags the cached extensions registered (``name``, ``description``,
    ``type``: ``boolean`` or ``string``, ``extension``), for ``pi``'s parser and ``--help``."""
    entries = read_cache().get("extensions")
    found: list[dict[str, Any]] = []
    for entry in entries.values() if isinstance(entries, dict) else ():
        flags = entry.get("flags") if isinstance(entry, dict) else None
        for flag in flags if isinstance(flags, list) else ():
            if isinstance(flag, dict) and isinstance(flag.get("name"), str):
                found.append(flag)
    return found


def cached_providers() -> dict[str, list[str]]:
    """The model providers the cached extensions registered: name -> model ids."""
    entries = read_cache().get("extensions")
    found: dict[str, list[str]] = {}
    for entry in entries.values() if isinstance(entries, dict) else ():
        providers = entry.get("providers") if isinstance(entry, dict) else None
        for provider in providers if isinstance(providers, list) else ():
            if isinstance(provider, dict) and isinstance(provider.get("name"), str):
                models = provider.get("models")
                found[provider["name"]] = (
                    [str(m) for m in models] if isinstance(models, list) else []
                )
    return found


def split_flags(
    argv: list[str], flags: list[dict[str, Any]]
) -> tuple[list[str], dict[str, str | bool]]:
    """``argv`` without the extensions' flags, and their values (``--name`` for a boolean,
    ``--name value`` or ``--name=value`` for a string; after ``--`` nothing is a flag)."""
    kinds = {f"--{f['name']}": str(f.get("type") or "boolean") for f in flags}
    rest: list[str] = []
    values: dict[str, str | bool] = {}
    index = 0
    while index < len(argv):
        word = argv[index]
        index += 1
        if word == "--":
            rest.extend(argv[index - 1 :])
            break
        flag, eq, inline = word.partition("=")
        kind = kinds.get(flag)
        if kind is None or (kind == "boolean" and eq):
            rest.append(word)
        elif kind == "boolean":
            values[flag[2:]] = True
        elif eq:
            values[flag[2:]] = inline
        elif index < len(argv):
            values[flag[2:]] = argv[index]
            index += 1
        else:
            rest.append(word)  # a string flag without its value: the parser's error
    return rest, values


_EP_CACHE: dict[str, Any] = {}


def _entry_point_cache() -> dict[str, Any]:
    """The entry points, cached in this process and in the cache file."""
    if not _EP_CACHE:
        cache = read_cache()
        before = cache.get("entryPoints")
        _EP_CACHE.update(cache)
        entry_point_sources(_EP_CACHE)  # fills _EP_CACHE["entryPoints"]
        if _EP_CACHE.get("entryPoints") != before:
            cache["entryPoints"] = _EP_CACHE["entryPoints"]
            write_cache(cache)
    return _EP_CACHE


def package_sources() -> list[Source]:
    """The extensions installed packages carry (``pi install``: a ``.py`` file or a package, or
    a folder of them); a Python package's own folder is put on ``sys.path`` (at its end: it
    never hides pi's modules) so its dependencies import."""
    found: list[Source] = []
    for path in package_paths("extensions"):
        source = source_of(path, "package")
        found += [source] if source is not None else folder_sources(path, "package")
    for folder in package_paths("python"):
        if found and str(folder) not in sys.path:
            sys.path.append(str(folder))
    return found


def find_sources(cwd: Path, trusted: bool, settings: Settings) -> tuple[list[Source], list[str]]:
    """Every extension to load, one per name, and what to tell the user about them."""
    notes: list[str] = []
    sources = folder_sources(user_folder(), "user")
    if trusted:
        sources += project_sources(cwd)
    extra, problems = setting_sources(list(settings.extensions), cwd)
    sources += extra
    notes += problems
    sources += package_sources()
    sources += entry_point_sources(_entry_point_cache())
    disabled = disabled_names(list(settings.disabled_extensions))
    sources = [s for s in sources if s.name not in disabled]
    chosen, replaced = by_name(sources)
    return chosen, notes + replaced


def foreign_warning(cwd: Path) -> str | None:
    """The one warning about the TypeScript pi's extensions found here, if any."""
    found = foreign_files(cwd, pi_ts_home())
    return foreign_notice(found, cwd) if found else None
