"""Where installed plugins and known marketplaces live, and the check that an install is intact.

Under ``$PI_HOME/plugins/``: ``known_marketplaces.json`` (name -> source, checkout, commit),
``marketplaces/<name>/`` (git checkouts), ``installed.json`` (``name@marketplace`` -> the
commit it was installed from, its folder, every file's size and SHA-256, and the plugin's
index) and ``cache/<marketplace>/<plugin>/<commit>/`` (the plugin's files as they were at that
commit, without ``.git``).

An install is **verified on load** (:func:`pi_cli.shell.packages.files.verify`): a file added,
removed or changed refuses the whole plugin with a message naming the file and how to reinstall
it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_cli.shell.packages.files import write_json
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
