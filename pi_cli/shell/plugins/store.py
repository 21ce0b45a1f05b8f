"""Where installed plugins and known marketplaces live, and the check that an install is intact.

Under ``$PI_HOME/plugins/``: ``known_marketplaces.json`` (name -> source, checkout, commit),
``marketplaces/<name>/`` (git checkouts), ``installed.json`` (``name@marketplace`` -> the
commit it was installed from, its folder, every file's size and SHA-256, and the plugin's
index) and ``cache/<marketplace>/<plugin>/<commit>/`` (the plugin's files as they were at that
commit, without ``.git``).

An install is **verified on load**: its files are listed and each one's size and modification
time compared with the record; a file that differs is hashed, and a file added, removed or
changed refuses the whole plugin with a message naming the file and how to reinstall it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pi_cli.shell.paths import pi_home

STORE_VERSION = 1


def plugins_home() -> Path:
    """``$PI_HOME/plugins``."""
    return pi_home() / "plugins"


def installed_file() -> Path:
    """``$PI_HOME/plugins/installed.json``."""
    return plugins_home() / "installed.json"


def marketplaces_file() -> Path:
    """``$PI_HOME/plugins/known_marketplaces.json``."""
    return plugins_home() / "known_marketplaces.json"


def read_store(path: Path) -> dict[str, Any]:
    """A store file's object (``{}`` when missing or unreadable: pi's own file, rewritten)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically (a temp file in the same folder, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def installed() -> dict[str, dict[str, Any]]:
    """Installed plugins by ``name@marketplace``."""
    plugins = read_store(installed_file()).get("plugins")
    if not isinstance(plugins, dict):
        return {}
    return {k: v for k, v in plugins.items() if isinstance(v, dict)}


def save_installed(plugins: dict[str, dict[str, Any]]) -> None:
    """Replace the installed plugins' records."""
    write_json(installed_file(), {"version": STORE_VERSION, "plugins": plugins})


def known_marketplaces() -> dict[str, dict[str, Any]]:
    """Known marketplaces by name."""
    data = read_store(marketplaces_file())
    return {k: v for k, v in data.items() if isinstance(v, dict)}


def save_marketplaces(markets: dict[str, dict[str, Any]]) -> None:
    """Replace the known marketplaces."""
    write_json(marketplaces_file(), markets)


def _walk(root: str) -> dict[str, os.stat_result]:
    """Every regular file (and link) under ``root`` by relative path, with its ``lstat``."""
    found: dict[str, os.stat_result] = {}
    prefix = len(root) + 1
    for folder, dirs, files in os.walk(root):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = os.path.join(folder, name)
            try:
                found[path[prefix:]] = os.lstat(path)
            except OSError:
                continue
    return found


def sha256_of(path: str) -> str:
    """The file's SHA-256 (a link: of its target's path text)."""
    if os.path.islink(path):
        return "link:" + hashlib.sha256(os.readlink(path).encode()).hexdigest()
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_records(root: Path) -> dict[str, list[Any]]:
    """``{relative path: [size, mtime_ns, sha256]}`` of every file under ``root``."""
    base = str(root)
    return {
        rel: [info.st_size, info.st_mtime_ns, sha256_of(os.path.join(base, rel))]
        for rel, info in sorted(_walk(base).items())
    }


def verify(root: Path, records: dict[str, Any]) -> str | None:
    """``None`` when ``root`` holds exactly the recorded files, else what differs (one line)."""
    base = str(root)
    if not os.path.isdir(base):
        return f"its folder {root} is missing"
    now = _walk(base)
    added = sorted(set(now) - set(records))
    removed = sorted(set(records) - set(now))
    if added:
        return f"{added[0]} was added" + (f" (and {len(added) - 1} more)" if len(added) > 1 else "")
    if removed:
        return f"{removed[0]} was removed"
    for rel, info in now.items():
        record = records[rel]
        if not isinstance(record, list) or len(record) != 3:
            return f"its record of {rel} is damaged"
        if info.st_size == record[0] and info.st_mtime_ns == record[1]:
            continue
        try:
            same = info.st_size == record[0] and sha256_of(os.path.join(base, rel)) == record[2]
        except OSError:
            same = False
        if not same:
            return f"{rel} was changed"
    return None
