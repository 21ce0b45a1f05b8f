"""A Claude Code plugin folder, read as Claude Code reads it (no code runs here).

Layout (every part optional)::

    .claude-plugin/plugin.json   name, version, description, author... and component paths
    commands/*.md                /plugin:name (commands/sub/x.md: /plugin:sub:x)
    agents/*.md                  sub-agent profiles plugin:name
    skills/*/SKILL.md            skills plugin:name
    hooks/hooks.json             {"hooks": {"SessionStart": [...]}}, ${CLAUDE_PLUGIN_ROOT}
    .mcp.json                    {"mcpServers": {...}}
    .lsp.json                    language servers (Claude Code's lspServers shape)

``plugin.json`` may name more places (``"commands": ["./extra/x.md"]``, ``"agents": "./a/"``,
``"skills"``) or give ``hooks``, ``mcpServers`` and ``lspServers`` as a path or inline; extra
paths add to the default folders. A path must be relative and stay inside the plugin (after
symlinks): ``"../../.ssh"`` or a link out of the folder is refused and named. Names are checked
before they become command names (no ``/``, no ``..``, no control characters), every text a
plugin shows is cleaned of escape sequences, and files are read with a size cap.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_cli.shell.text.terminal import one_line

MANIFEST = Path(".claude-plugin") / "plugin.json"
MAX_JSON_BYTES = 1024 * 1024
"""plugin.json, hooks.json, .mcp.json, .lsp.json, marketplace.json: larger ones are refused."""
MAX_DESCRIPTION = 300
"""Characters of a description pi shows (the rest is cut)."""
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9_])?$")
ROOT_VARIABLE = "CLAUDE_PLUGIN_ROOT"


class PluginError(ValueError):
    """A plugin that cannot be used (the message names it and why)."""


def valid_name(name: object) -> bool:
    """Whether ``name`` can name a plugin, a marketplace or a component (``a-b.c_d``, ≤ 64)."""
    return isinstance(name, str) and bool(_NAME.match(name)) and ".." not in name


def shown(text: object, limit: int = MAX_DESCRIPTION) -> str:
    """A plugin's text for a listing: one line, no escape sequences, at most ``limit`` chars."""
    line = one_line(text if isinstance(text, str) else "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def read_json(path: Path, what: str) -> Any:
    """A JSON file of at most :data:`MAX_JSON_BYTES` (raises :class:`PluginError`)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_JSON_BYTES + 1)
    except OSError as exc:
        raise PluginError(f"{what}: cannot read {path} ({exc.strerror or exc})") from None
    if len(data) > MAX_JSON_BYTES:
        raise PluginError(f"{what}: {path} is larger than {MAX_JSON_BYTES // 1024} KiB")
    try:
        return json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PluginError(f"{what}: {path} is not valid JSON ({exc})") from None


def inside(root: Path, relative: object, what: str) -> Path:
    """``relative`` (a ``./path`` of a manifest) resolved inside ``root`` (raises if it leaves)."""
    if not isinstance(relative, str) or not relative.strip():
        raise PluginError(f"{what}: a path must be a non-empty string")
    if os.path.isabs(relative) or relative.startswith("~"):
        raise PluginError(f"{what}: {relative!r} is not a relative path (./...)")
    real_root = root.resolve()
    target = (real_root / relative).resolve()
    if target != real_root and real_root not in target.parents:
        raise PluginError(f"{what}: {relative!r} leads outside the plugin")
    return target


def expand_root(value: Any, root: Path) -> Any:
    """``${CLAUDE_PLUGIN_ROOT}`` replaced by ``root`` in every string of ``value``."""
    if isinstance(value, str):
        return value.replace("${" + ROOT_VARIABLE + "}", str(root))
    if isinstance(value, list):
        return [expand_root(item, root) for item in value]
    if isinstance(value, dict):
        return {key: expand_root(item, root) for key, item in value.items()}
    return value


@dataclass
class Manifest:
    """``plugin.json`` as read (``name`` defaults to the folder's name)."""

    name: str
    root: Path
    version: str = ""
    description: str = ""
    author: str = ""
    extra: dict[str, list[Path]] = field(default_factory=dict)
    """Paths the manifest adds for ``commands``, ``agents`` and ``skills``."""
    inline: dict[str, Any] = field(default_factory=dict)
    """``hooks``, ``mcpServers``, ``lspServers`` given inline (or read from the named file)."""
    problems: list[str] = field(default_factory=list)


def _author(value: object) -> str:
    if isinstance(value, dict):
        return shown(value.get("name", ""), 80)
    return shown(value, 80)


def _paths(root: Path, value: object, what: str, problems: list[str]) -> list[Path]:
    items = value if isinstance(value, list) else [value]
    found: list[Path] = []
    for item in items:
        try:
            found.append(inside(root, item, what))
        except PluginError as exc:
            problems.append(str(exc))
    return found


def read_manifest(root: Path) -> Manifest:
    """Read ``root``'s manifest (none: the folder's name); raises :class:`PluginError` when the
    plugin cannot be used at all (a bad name, an unreadable manifest)."""
    path = root / MANIFEST
    data: dict[str, Any] = {}
    if path.is_file():
        raw = read_json(path, f"plugin {root.name}")
        if not isinstance(raw, dict):
            raise PluginError(f"plugin {root.name}: {path} does not hold a JSON object")
        data = raw
    name = data.get("name", root.name)
    if not valid_name(name):
        raise PluginError(
            f"plugin in {root}: name {shown(name, 80)!r} is not usable "
            "(letters, digits, '-', '_', '.', at most 64)"
        )
    manifest = Manifest(
        name=name,
        root=root,
        version=shown(data.get("version", ""), 40),
        description=shown(data.get("description", "")),
        author=_author(data.get("author")),
    )
    what = f"plugin {name}"
    for key in ("commands", "agents", "skills"):
        if data.get(key) is not None:
            manifest.extra[key] = _paths(root, data[key], f"{what}: {key}", manifest.problems)
    for key in ("hooks", "mcpServers", "lspServers"):
        value = data.get(key)
        if isinstance(value, str):
            try:
                manifest.inline[key] = read_json(inside(root, value, f"{what}: {key}"), what)
            except PluginError as exc:
                manifest.problems.append(str(exc))
        elif isinstance(value, dict):
            manifest.inline[key] = value
        elif value is not None:
            manifest.problems.append(f"{what}: {key} must be a path or an object")
    return manifest
