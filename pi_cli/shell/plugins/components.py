"""What a plugin holds, found and read once: its index (commands, agents, skills, hooks, MCP and
LSP servers), a plain JSON value kept with the install so a start reads no plugin file.

Reading runs no code of the plugin. Files over :data:`MAX_FILE_BYTES` are skipped and named;
at most :data:`MAX_COMPONENTS` of each kind are read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pi_cli.shell.agent_tools.profiles import read_profile
from pi_cli.shell.plugins.manifest import (
    Manifest,
    PluginError,
    inside,
    read_json,
    read_manifest,
    shown,
    valid_name,
)
from pi_cli.shell.prompt.frontmatter import FrontmatterError, parse_document, text_field

MAX_FILE_BYTES = 256 * 1024
"""A command, agent or skill file larger than this is not read."""
MAX_COMPONENTS = 200
"""Commands, agents or skills read per plugin (each kind)."""
MAX_DEPTH = 4
"""Folders below ``commands/`` followed (``commands/a/b/x.md`` is ``/plugin:a:b:x``)."""
INDEX_VERSION = 2


def _front(path: Path) -> tuple[dict[str, Any], str] | str:
    """(front matter fields, body) of a markdown file, or why it cannot be read."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return f"larger than {MAX_FILE_BYTES // 1024} KiB"
        document = parse_document(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return f"cannot be read ({exc})"
    except FrontmatterError as exc:
        return f"front matter: {exc}"
    return document.fields, document.body


def _markdown(folder: Path, depth: int = 0) -> Iterator[tuple[list[str], Path]]:
    """``*.md`` under ``folder`` with their sub-folder names (no hidden entries, no links out)."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False) and depth < MAX_DEPTH:
            for parts, found in _markdown(path, depth + 1):
                yield [entry.name, *parts], found
        elif entry.name.endswith(".md") and entry.is_file(follow_symlinks=False):
            yield [], path


def _relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _commands(manifest: Manifest, problems: list[str]) -> list[dict[str, Any]]:
    root = manifest.root.resolve()
    found: dict[str, dict[str, Any]] = {}
    places = [root / "commands", *manifest.extra.get("commands", [])]
    for place in places:
        files = [([], place)] if place.suffix == ".md" and place.is_file() else _markdown(place)
        for parts, path in files:
            name = ":".join([*parts, path.stem])
            if not all(valid_name(p) for p in [*parts, path.stem]):
                problems.append(
                    f"plugin {manifest.name}: command file {path.name!r} skipped (name)"
                )
                continue
            if len(found) >= MAX_COMPONENTS:
                problems.append(f"plugin {manifest.name}: more than {MAX_COMPONENTS} commands")
                break
            read = _front(path)
            if isinstance(read, str):
                problems.append(f"plugin {manifest.name}: command {name}: {read}; skipped")
                continue
            fields, body = read
            description = (text_field(fields, "description") or "").strip()
            if not description:
                first = next((line.strip() for line in body.splitlines() if line.strip()), "")
                description = first.lstrip("# ")
            found[name] = {
                "name": name,
                "path": _relative(path, root),
                "description": shown(description, 120),
                "argumentHint": shown(text_field(fields, "argument-hint") or "", 80),
            }
    return list(found.values())


def _agents(manifest: Manifest, problems: list[str]) -> list[dict[str, Any]]:
    root = manifest.root.resolve()
    found: dict[str, dict[str, Any]] = {}
    for place in [root / "agents", *manifest.extra.get("agents", [])]:
        files = [place] if place.suffix == ".md" and place.is_file() else _top_markdown(place)
        for path in files[: MAX_COMPONENTS - len(found)]:
            read = _front(path)
            if isinstance(read, str):
                problems.append(f"plugin {manifest.name}: agent {path.name}: {read}; skipped")
                continue
            name = (text_field(read[0], "name") or path.stem).strip()
            if not valid_name(name):
                problems.append(f"plugin {manifest.name}: agent {path.name}: bad name; skipped")
                continue
            entry: dict[str, Any] = {"name": name, "path": _relative(path, root)}
            profile = read_profile(path, "plugin", problems)
            if profile is not None:  # kept whole: a start reads no agent file
                entry.update(
                    description=profile.description,
                    prompt=profile.prompt,
                    tools=profile.tools,
                    model=profile.model,
                )
            found[name] = entry
    return list(found.values())


def _top_markdown(folder: Path) -> list[Path]:
    return [path for parts, path in _markdown(folder, MAX_DEPTH) if not parts]


def _skills(manifest: Manifest, problems: list[str]) -> list[dict[str, Any]]:
    root = manifest.root.resolve()
    found: dict[str, dict[str, Any]] = {}
    for place in [root / "skills", *manifest.extra.get("skills", [])]:
        candidates = [place] if (place / "SKILL.md").is_file() else _subfolders(place)
        for folder in candidates[: MAX_COMPONENTS - len(found)]:
            path = folder / "SKILL.md"
            if not path.is_file() or path.is_symlink():
                continue
            read = _front(path)
            if isinstance(read, str):
                problems.append(f"plugin {manifest.name}: skill {folder.name}: {read}; skipped")
                continue
            fields = read[0]
            name = (text_field(fields, "name") or folder.name).strip()
            description = (text_field(fields, "description") or "").strip()
            if not valid_name(name) or not description:
                why = "bad name" if not valid_name(name) else "no description"
                problems.append(f"plugin {manifest.name}: skill {folder.name}: {why}; skipped")
                continue
            found[name] = {
                "name": name,
                "path": _relative(path, root),
                "description": shown(description, 1024),
                "modelInvocable": fields.get("disable-model-invocation") is not True,
            }
    return list(found.values())


def _subfolders(folder: Path) -> list[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    return [
        Path(e.path)
        for e in entries
        if not e.name.startswith(".") and e.is_dir(follow_symlinks=False)
    ]


def _config(manifest: Manifest, key: str, default: str, inner: str, problems: list[str]) -> Any:
    """``hooks`` / ``mcpServers`` / ``lspServers``: inline, from plugin.json's path, or the
    default file; ``inner`` is the key wrapping it in a file (``hooks``, ``mcpServers``)."""
    value = manifest.inline.get(key)
    if value is None:
        path = manifest.root / default
        if not path.is_file():
            return {}
        try:
            inside(manifest.root, default, f"plugin {manifest.name}")
            value = read_json(path, f"plugin {manifest.name}")
        except PluginError as exc:
            problems.append(str(exc))
            return {}
    if isinstance(value, dict) and inner and isinstance(value.get(inner), dict):
        value = value[inner]
    if not isinstance(value, dict):
        problems.append(f"plugin {manifest.name}: {key} is not an object; ignored")
        return {}
    return value


def build_index(root: Path) -> dict[str, Any]:
    """Read the plugin at ``root`` (raises :class:`PluginError` if it cannot be used)."""
    manifest = read_manifest(root)
    problems = list(manifest.problems)
    return {
        "version": INDEX_VERSION,
        "name": manifest.name,
        "pluginVersion": manifest.version,
        "description": manifest.description,
        "author": manifest.author,
        "commands": _commands(manifest, problems),
        "agents": _agents(manifest, problems),
        "skills": _skills(manifest, problems),
        "hooks": _config(manifest, "hooks", "hooks/hooks.json", "hooks", problems),
        "mcpServers": _config(manifest, "mcpServers", ".mcp.json", "mcpServers", problems),
        "lspServers": _config(manifest, "lspServers", ".lsp.json", "", problems),
        "problems": problems,
    }


def summary(index: dict[str, Any]) -> str:
    """``3 commands, 2 agents, 1 skill, hooks, MCP`` for listings."""
    parts = []
    for key, word in (("commands", "command"), ("agents", "agent"), ("skills", "skill")):
        count = len(index.get(key) or [])
        if count:
            parts.append(f"{count} {word}{'s' if count != 1 else ''}")
    for key, word in (("hooks", "hooks"), ("mcpServers", "MCP"), ("lspServers", "LSP")):
        if index.get(key):
            parts.append(word)
    return ", ".join(parts) or "nothing pi loads"
