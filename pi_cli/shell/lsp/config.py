"""Which server serves a file: found servers, ``lsp.servers`` settings and plugins' servers.

A configured entry has Claude Code's ``lspServers`` shape (``command``, ``args``,
``extensionToLanguage``, ``env``, ``initializationOptions``, ``settings``,
``startupTimeout``...) plus pi's ``filePatterns`` (globs with a ``languageId``) and
``disabled``. An entry named like a found server (``python``, ``typescript``...) without a
``command`` changes that server (other ``args``, ``disabled``). Per file, configured servers
come first, then plugins', then found ones: one server per language group and workspace.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pi_cli.shell.lsp.catalog import BY_EXTENSION, KNOWN, PROJECT_BIN_DIRS, KnownLanguage

SERVER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
"""A server's name (it is shown in the footer, /lsp and process ids): an allowlist."""


@dataclass(frozen=True)
class ServerSpec:
    """How to run one server and which files it serves."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    extensions: Mapping[str, str] = field(default_factory=dict)
    patterns: tuple[tuple[str, str], ...] = ()
    """(glob on the path relative to the workspace, languageId)."""
    init_options: Any = None
    settings: Any = None
    env: Mapping[str, str] = field(default_factory=dict)
    source: str = "found"
    settle_ms: int = 0
    startup_timeout_s: float | None = None
    max_restarts: int = 3
    base: Path | None = None
    """Where a relative ``command`` is resolved (the settings file's project, a plugin)."""

    def language_id(self, relative: str) -> str | None:
        """The ``languageId`` of a file (path relative to the workspace), or None."""
        ext = os.path.splitext(relative)[1].lower()
        if ext in self.extensions:
            return self.extensions[ext]
        for pattern, language in self.patterns:
            if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(
                os.path.basename(relative), pattern
            ):
                return language
        return None

    @property
    def globs(self) -> list[str]:
        """The files it serves, as globs (``*.py``), for ``/lsp``."""
        return [f"*{ext}" for ext in self.extensions] + [p for p, _ in self.patterns]


def parse_entry(
    name: str, raw: object, source: str, base: Path | None = None, root: str | None = None
) -> tuple[ServerSpec | None, dict[str, Any], str | None]:
    """One configured entry: (spec when it has a command, the raw changes, problem).

    ``root`` replaces ``${CLAUDE_PLUGIN_ROOT}`` in the command, arguments and environment.
    """
    if not SERVER_NAME.fullmatch(name):
        return None, {}, f"LSP server {name!r} in {source}: a name is letters, digits, . _ + -"
    if not isinstance(raw, Mapping):
        return None, {}, f"LSP server {name!r} in {source}: not an object"
    entry = {str(k): v for k, v in raw.items()}
    problem = _check(entry)
    if problem is not None:
        return None, {}, f"LSP server {name!r} in {source}: {problem}"
    if root is not None:
        entry = _substitute(entry, root)
    command = entry.get("command")
    if not isinstance(command, str) or not command:
        return None, entry, None
    extensions = {
        (ext if ext.startswith(".") else "." + ext).lower(): str(lang)
        for ext, lang in dict(entry.get("extensionToLanguage") or {}).items()
    }
    language = str(entry.get("languageId") or name)
    patterns = tuple((str(p), language) for p in entry.get("filePatterns") or [])
    known = next((k for k in KNOWN if k.name == name), None)
    if not extensions and not patterns:
        if known is None:
            return (
                None,
                {},
                (f"LSP server {name!r} in {source}: give extensionToLanguage or filePatterns"),
            )
        extensions = dict(known.extensions)
    timeout = entry.get("startupTimeout")
    spec = ServerSpec(
        name=name,
        command=command,
        args=tuple(str(a) for a in entry.get("args") or []),
        extensions=extensions,
        patterns=patterns,
        init_options=entry.get("initializationOptions"),
        settings=entry.get("settings"),
        env={str(k): str(v) for k, v in dict(entry.get("env") or {}).items()},
        source=source,
        settle_ms=known.settle_ms if known else 0,
        startup_timeout_s=timeout / 1000 if isinstance(timeout, int | float) else None,
        max_restarts=int(entry.get("maxRestarts", 3)),
        base=base,
    )
    return spec, entry, None


def _check(entry: dict[str, Any]) -> str | None:
    types: dict[str, type | tuple[type, ...]] = {
        "command": str,
        "args": list,
        "extensionToLanguage": dict,
        "filePatterns": list,
        "languageId": str,
        "env": dict,
        "disabled": bool,
        "startupTimeout": (int, float),
        "maxRestarts": int,
    }
    for key, kind in types.items():
        if key in entry and entry[key] is not None and not isinstance(entry[key], kind):
            return f"{key} has the wrong type"
    if entry.get("transport", "stdio") != "stdio":
        return f"transport {entry.get('transport')!r} is not supported (only stdio)"
    for key in ("args", "filePatterns"):
        if any(not isinstance(item, str) for item in entry.get(key) or []):
            return f"{key} must be a list of strings"
    return None


def _substitute(value: Any, root: str) -> Any:
    if isinstance(value, str):
        return value.replace("${CLAUDE_PLUGIN_ROOT}", root)
    if isinstance(value, list):
        return [_substitute(item, root) for item in value]
    if isinstance(value, dict):
        return {key: _substitute(item, root) for key, item in value.items()}
    return value


@dataclass
class Found:
    """A known language's server as looked up: the spec, or why there is none."""

    known: KnownLanguage
    spec: ServerSpec | None = None
    missing: str | None = None


class ServerTable:
    """Every server this workspace may use (looked up lazily, per language, once).

    Args:
        configured: ``lsp.servers`` of the settings (already gated by trust).
        cwd: the workspace.
        trusted: the project's own servers (``node_modules/.bin``, ``.venv/bin``) may run.
        search_path: ``PATH`` of the tools' environment.
    """

    def __init__(
        self,
        configured: Mapping[str, Any],
        cwd: Path,
        trusted: bool,
        search_path: str | None,
        source: str = "settings",
    ) -> None:
        self.cwd = cwd
        self.trusted = trusted
        self.search_path = search_path
        self.specs: list[ServerSpec] = []
        self.changes: dict[str, dict[str, Any]] = {}
        self.problems: list[str] = []
        self._found: dict[str, Found] = {}
        for name, raw in configured.items():
            self._add(name, raw, source, cwd)

    def _add(
        self, name: str, raw: object, source: str, base: Path | None, root: str | None = None
    ) -> None:
        spec, changes, problem = parse_entry(name, raw, source, base, root)
        if problem is not None:
            self.problems.append(problem)
        elif spec is not None and not changes.get("disabled"):
            self.specs = [s for s in self.specs if s.name != name] + [spec]
            self._found.clear()
        elif changes:
            self.changes[name] = {**self.changes.get(name, {}), **changes}
            self._found.clear()

    def add_plugin(self, plugin: str, root: Path, servers: Mapping[str, Any]) -> list[str]:
        """A plugin's ``lspServers`` (settings win over a plugin's server of the same name)."""
        before = len(self.problems)
        for name, raw in servers.items():
            if any(s.name == name and not s.source.startswith("plugin") for s in self.specs):
                continue
            self._add(name, raw, f"plugin {plugin}", root, str(root))
        return self.problems[before:]

    def remove_plugin(self, plugin: str) -> list[str]:
        """Take a plugin's servers out (it was disabled or removed); their names."""
        gone = [s.name for s in self.specs if s.source == f"plugin {plugin}"]
        self.specs = [s for s in self.specs if s.name not in gone]
        self._found.clear()
        return gone

    # ------------------------------------------------------------------ lookups

    def relative(self, path: Path) -> str | None:
        """``path`` relative to the workspace (None outside it)."""
        try:
            return path.relative_to(self.cwd).as_posix()
        except ValueError:
            return None

    def spec_for(self, path: Path) -> tuple[ServerSpec, str] | None:
        """The server for ``path`` and its ``languageId`` (None: none applies or is found)."""
        relative = self.relative(path)
        if relative is None:
            return None
        for spec in self.specs:
            language = spec.language_id(relative)
            if language is not None:
                return spec, language
        known = BY_EXTENSION.get(os.path.splitext(relative)[1].lower())
        if known is None:
            return None
        found = self.lookup(known)
        if found.spec is None:
            return None
        return found.spec, known.extensions[os.path.splitext(relative)[1].lower()]

    def why_none(self, path: Path) -> str | None:
        """Why no server serves ``path`` (None: one does, or pi knows none for it)."""
        relative = self.relative(path)
        if relative is None:
            return "it is outside the workspace"
        known = BY_EXTENSION.get(os.path.splitext(relative)[1].lower())
        return None if known is None else self.lookup(known).missing

    def lookup(self, known: KnownLanguage) -> Found:
        """Find the server of one known language (cached)."""
        found = self._found.get(known.name)
        if found is None:
            found = self._found[known.name] = self._search(known)
        return found

    def _search(self, known: KnownLanguage) -> Found:
        changes = self.changes.get(known.name, {})
        if changes.get("disabled"):
            return Found(known, missing="disabled in the settings (lsp.servers)")
        tried = []
        for candidate in known.candidates:
            where = self.which(candidate.executable)
            if where is None:
                tried.append(candidate.executable)
                continue
            path, source = where
            spec = ServerSpec(
                name=known.name,
                command=path,
                args=tuple(changes.get("args") or candidate.args),
                extensions=dict(known.extensions),
                init_options=changes.get("initializationOptions"),
                settings=changes.get("settings"),
                env={str(k): str(v) for k, v in dict(changes.get("env") or {}).items()},
                source=source,
                settle_ms=known.settle_ms,
            )
            return Found(known, spec)
        places = "PATH" + (", node_modules/.bin, .venv/bin" if self.trusted else "")
        hint = "" if self.trusted else " (a project's own servers run only in a trusted folder)"
        return Found(
            known, missing=f"{' or '.join(tried)} not found on {places}{hint}; {known.install}"
        )

    def which(self, executable: str) -> tuple[str, str] | None:
        """(absolute path, where it was found) of an executable, or None."""
        found = shutil.which(executable, path=self.search_path or os.defpath)
        if found is not None:
            return os.path.abspath(found), "found on PATH"
        if not self.trusted:
            return None
        for directory in PROJECT_BIN_DIRS:
            candidate = self.cwd / directory / executable
            if os.access(candidate, os.X_OK) and candidate.is_file():
                return str(candidate), f"found in {directory} (trusted project)"
        return None

    def resolve_command(self, spec: ServerSpec) -> str | None:
        """The absolute path a spec's command runs (None: not found)."""
        command = os.path.expanduser(spec.command)
        if os.sep in command:
            path = Path(command) if os.path.isabs(command) else (spec.base or self.cwd) / command
            return str(path) if os.access(path, os.X_OK) and path.is_file() else None
        where = self.which(command)
        return where[0] if where else None

    def everything(self) -> list[tuple[str, ServerSpec | None, str | None, list[str]]]:
        """(name, spec, why missing, globs) of every configured and known server."""
        rows: list[tuple[str, ServerSpec | None, str | None, list[str]]] = [
            (spec.name, spec, None, spec.globs) for spec in self.specs
        ]
        names = {spec.name for spec in self.specs}
        for known in KNOWN:
            if known.name in names:
                continue
            found = self.lookup(known)
            globs = [f"*{ext}" for ext in known.extensions]
            rows.append((known.name, found.spec, found.missing, globs))
        return rows


def with_changes(spec: ServerSpec, **changes: Any) -> ServerSpec:
    """A copy of ``spec`` with some fields replaced."""
    return replace(spec, **changes)
