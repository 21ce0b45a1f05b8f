"""Installing plugins from marketplaces, pinned to a commit; enabling them per settings scope.

``install name@marketplace`` copies the plugin's folder, as it is at the marketplace's commit
(or the commit its entry names, for a plugin in its own repository), into
``$PI_HOME/plugins/cache/<marketplace>/<plugin>/<commit>/``, records every file's SHA-256 and
the plugin's index, and enables it in the chosen scope's settings (``enabledPlugins``, Claude
Code's key and shape: ``{"name@marketplace": true}``): ``user`` is ``$PI_HOME/settings.json``,
``project`` is ``.pi/settings.json`` (it applies only in a trusted folder).

Copying follows no link out of the plugin (such a link is left out and named) and stops at
:data:`MAX_FILES` files or :data:`MAX_BYTES` bytes. Nothing of the plugin runs while it is
installed.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Literal

from pi_cli.shell.packages.files import CopyTooLarge, copy_tree, file_records, write_json
from pi_cli.shell.paths import pi_home, project_dir
from pi_cli.shell.plugins.components import build_index
from pi_cli.shell.plugins.manifest import MANIFEST, PluginError, inside, valid_name
from pi_cli.shell.plugins.marketplace import (
    MarketplaceError,
    checkout_of,
    clone,
    entries,
    git,
    head_commit,
    now,
    read_catalog,
)
from pi_cli.shell.plugins.store import installed, plugins_home, save_installed

Scope = Literal["user", "project"]
MAX_FILES = 5000
MAX_BYTES = 200 * 1024 * 1024
_REF = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./-]{0,200}$")
_ENTRY_KEYS = ("description", "version", "author", "commands", "agents", "hooks")
_ENTRY_KEYS_MORE = ("mcpServers", "lspServers", "skills")


def split_id(plugin_id: str) -> tuple[str, str]:
    """``name@marketplace`` -> (name, marketplace); raises PluginError."""
    name, at, market = plugin_id.strip().partition("@")
    if not at or not valid_name(name) or not valid_name(market):
        raise PluginError(f"{plugin_id!r} is not name@marketplace")
    return name, market


def settings_path(scope: Scope, cwd: Path) -> Path:
    """The settings file of ``scope``."""
    return pi_home() / "settings.json" if scope == "user" else project_dir(cwd) / "settings.json"


def set_enabled(plugin_id: str, enabled: bool | None, scope: Scope, cwd: Path) -> Path:
    """Write ``enabledPlugins[plugin_id]`` (None: remove it) in ``scope``'s settings file."""
    path = settings_path(scope, cwd)
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig") or "{}")
    except FileNotFoundError:
        data = {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PluginError(f"{path} cannot be updated: {exc}") from None
    if not isinstance(data, dict):
        raise PluginError(f"{path} does not hold a JSON object")
    table = data.get("enabledPlugins")
    if not isinstance(table, dict):
        table = {}
    if enabled is None:
        table.pop(plugin_id, None)
    else:
        table[plugin_id] = enabled
    data["enabledPlugins"] = table
    write_json(path, data)
    return path


def _entry(market: str, name: str) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    root = checkout_of(market)
    catalog = read_catalog(root)
    for entry in entries(catalog):
        if entry["name"] == name:
            return root, catalog, entry
    raise PluginError(f"marketplace {market} has no plugin {name!r}")


def _source(
    root: Path, catalog: dict[str, Any], entry: dict[str, Any], staging: Path
) -> tuple[Path, str | None]:
    """The plugin's folder and the commit it is taken at."""
    source = entry.get("source")
    metadata = catalog.get("metadata") if isinstance(catalog.get("metadata"), dict) else {}
    if isinstance(source, str):
        base = str(metadata.get("pluginRoot") or ".") if isinstance(metadata, dict) else "."
        folder = inside(inside(root, base, "pluginRoot"), source, f"plugin {entry['name']}")
        if (root / ".git").exists() and git("status", "--porcelain", cwd=root).strip():
            raise MarketplaceError(f"the marketplace checkout {root} has local changes")
        return folder, head_commit(root)
    if not isinstance(source, dict):
        raise PluginError(f"plugin {entry['name']}: its source is neither a path nor an object")
    kind = source.get("source")
    url = source.get("url")
    if kind == "github" and isinstance(source.get("repo"), str):
        url = f"https://github.com/{source['repo']}.git"
    elif kind not in ("url", "git", "git-subdir") or not isinstance(url, str):
        raise PluginError(f"plugin {entry['name']}: source type {kind!r} is not supported by pi")
    ref, sha = source.get("ref"), source.get("sha")
    for value in (ref, sha):
        if value is not None and (not isinstance(value, str) or not _REF.match(value)):
            raise PluginError(f"plugin {entry['name']}: bad ref {value!r}")
    commit = clone(url, staging / "repo", ref, sha)
    sub = source.get("path") if kind == "git-subdir" else None
    folder = inside(staging / "repo", sub, "path") if isinstance(sub, str) else staging / "repo"
    return folder, commit


def _synthesize_manifest(folder: Path, entry: dict[str, Any]) -> None:
    """``strict: false``: the marketplace entry is the manifest when the plugin has none."""
    if entry.get("strict", True) is not False or (folder / MANIFEST).is_file():
        return
    data = {"name": entry["name"]}
    data.update({k: entry[k] for k in (*_ENTRY_KEYS, *_ENTRY_KEYS_MORE) if k in entry})
    (folder / MANIFEST).parent.mkdir(parents=True, exist_ok=True)
    (folder / MANIFEST).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def install(plugin_id: str, scope: Scope, cwd: Path) -> tuple[dict[str, Any], list[str]]:
    """Install and enable ``name@marketplace``; (its record, notes). Raises PluginError."""
    name, market = split_id(plugin_id)
    root, catalog, entry = _entry(market, name)
    cache = plugins_home() / "cache" / market / name
    cache.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=cache.parent))
    try:
        folder, commit = _source(root, catalog, entry, staging)
        copy = staging / "copy"
        try:
            notes = copy_tree(folder, copy, MAX_FILES, MAX_BYTES)
        except CopyTooLarge as exc:
            raise PluginError(f"the plugin {name}: {exc}") from None
        _synthesize_manifest(copy, entry)
        index = build_index(copy)
        label = (commit or "local")[:12]
        dest = cache / label
        shutil.rmtree(dest, ignore_errors=True)
        dest.parent.mkdir(parents=True, exist_ok=True)
        copy.rename(dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    index = build_index(dest)  # paths as they are now
    record = {
        "name": name,
        "marketplace": market,
        "path": str(dest),
        "commit": commit,
        "version": index.get("pluginVersion", ""),
        "installedAt": now(),
        "files": file_records(dest),
        "index": index,
    }
    plugins = installed()
    old = plugins.get(plugin_id)
    plugins[plugin_id] = record
    save_installed(plugins)
    if old and old.get("path") != str(dest):
        shutil.rmtree(str(old.get("path")), ignore_errors=True)
    set_enabled(plugin_id, True, scope, cwd)
    if index["name"] != name:
        notes.append(f"its plugin.json names it {index['name']!r}; pi calls it {name}")
    return record, notes + list(index.get("problems", []))


def uninstall(plugin_id: str, cwd: Path) -> None:
    """Remove an installed plugin and its ``enabledPlugins`` entries (user and project)."""
    plugins = installed()
    record = plugins.pop(plugin_id, None)
    if record is None:
        raise PluginError(f"{plugin_id} is not installed")
    save_installed(plugins)
    shutil.rmtree(str(record.get("path")), ignore_errors=True)
    for scope in ("user", "project"):
        path = settings_path(scope, cwd)
        if path.is_file() and plugin_id in path.read_text(encoding="utf-8", errors="replace"):
            set_enabled(plugin_id, None, scope, cwd)
