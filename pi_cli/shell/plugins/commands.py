"""``pi plugin …`` and ``/plugin …``: the same verbs, the same words.

::

    plugin list                              installed plugins, enabled where
    plugin browse [MARKETPLACE]              what the marketplaces offer
    plugin install NAME@MARKET [--scope user|project]
    plugin uninstall NAME@MARKET
    plugin enable|disable NAME@MARKET [--scope user|project]
    plugin marketplace add SOURCE | list | update [NAME] | remove NAME

A change applies to the next session (``/reload`` reads plugins again in this one).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_cli.shell.commands import CommandResult, PickAction, ShellAPI, split_args
from pi_cli.shell.packages.files import exclusive
from pi_cli.shell.plugins import marketplace
from pi_cli.shell.plugins.components import summary
from pi_cli.shell.plugins.install import (
    Scope,
    install,
    set_enabled,
    settings_path,
    split_id,
    uninstall,
)
from pi_cli.shell.plugins.manifest import PluginError, shown
from pi_cli.shell.plugins.store import installed, known_marketplaces, plugins_home

PLUGIN_USAGE = """usage: pi plugin list | browse [MARKETPLACE]
       pi plugin install NAME@MARKETPLACE [--scope user|project]
       pi plugin uninstall NAME@MARKETPLACE
       pi plugin enable|disable NAME@MARKETPLACE [--scope user|project]
       pi plugin marketplace add SOURCE | list | update [NAME] | remove NAME"""
PLUGIN_VERBS = ("list", "browse", "install", "uninstall", "enable", "disable", "marketplace")


@dataclass
class PluginChoice:
    """One plugin a marketplace offers, as a picker shows it."""

    id: str
    description: str
    installed: bool
    enabled: bool


def _enabled(cwd: Path) -> dict[str, bool]:
    """``enabledPlugins`` of the user's and the project's settings (the project's wins)."""
    table: dict[str, bool] = {}
    for scope in ("user", "project"):
        try:
            data = json.loads(settings_path(scope, cwd).read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            continue
        value = data.get("enabledPlugins") if isinstance(data, dict) else None
        if isinstance(value, dict):
            table.update({str(k): v for k, v in value.items() if isinstance(v, bool)})
    return table


def plugin_choices(cwd: Path, only: str | None = None) -> list[PluginChoice]:
    """Every plugin of the known marketplaces (``only``: of that one), with its state."""
    found: list[PluginChoice] = []
    records = installed()
    enabled = _enabled(cwd)
    for name in sorted(known_marketplaces()):
        if only and name != only:
            continue
        try:
            catalog = marketplace.read_catalog(marketplace.checkout_of(name))
        except PluginError:
            continue
        for entry in marketplace.entries(catalog):
            plugin_id = f"{entry['name']}@{name}"
            found.append(
                PluginChoice(
                    plugin_id,
                    shown(entry.get("description", ""), 100),
                    plugin_id in records,
                    enabled.get(plugin_id, False),
                )
            )
    return found


def _scope(words: list[str]) -> tuple[list[str], Scope]:
    scope: Scope = "user"
    rest: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("--scope", "-s") and index + 1 < len(words):
            value = words[index + 1]
            if value not in ("user", "project"):
                raise PluginError(f"--scope must be user or project, not {shown(value, 40)!r}")
            scope = "project" if value == "project" else "user"
            index += 2
            continue
        rest.append(word)
        index += 1
    return rest, scope


def _list(cwd: Path) -> list[str]:
    records = installed()
    if not records:
        return ["No plugins installed (pi plugin browse; pi plugin install NAME@MARKETPLACE)."]
    enabled = _enabled(cwd)
    lines = []
    for plugin_id, record in sorted(records.items()):
        state = "enabled" if enabled.get(plugin_id) else "disabled"
        commit = str(record.get("commit") or "local")[:12]
        index = record.get("index") if isinstance(record.get("index"), dict) else {}
        lines.append(
            f"{shown(plugin_id, 80)}  {state}  {shown(record.get('version') or '-', 20)} "
            f"@ {commit}  ({summary(index or {})})"
        )
    return lines


def _browse(cwd: Path, only: str | None) -> list[str]:
    if only and only not in known_marketplaces():
        raise PluginError(f"no marketplace {only!r}")
    items = plugin_choices(cwd, only)
    if not items:
        return ["No marketplace offers plugins yet (pi plugin marketplace add SOURCE)."]
    marks = {(True, True): "✓ enabled ", (True, False): "installed ", (False, False): "          "}
    return [
        f"{marks.get((c.installed, c.enabled), '          ')}{c.id}  {c.description}" for c in items
    ]


def _marketplace(words: list[str], cwd: Path) -> list[str]:
    verb, rest = (words[0], words[1:]) if words else ("list", [])
    if verb == "add" and len(rest) == 1:
        name, catalog = marketplace.add(rest[0], cwd)
        count = len(marketplace.entries(catalog))
        return [f"Added marketplace {name} ({count} plugins). pi plugin browse {name} lists them."]
    if verb == "list" and not rest:
        markets = known_marketplaces()
        if not markets:
            return ["No marketplaces (pi plugin marketplace add SOURCE)."]
        return [
            f"{name}  {shown((r.get('source') or {}).get('url') or (r.get('source') or {}).get('path'), 120)}"
            f"  @ {str(r.get('commit') or '-')[:12]}"
            for name, r in sorted(markets.items())
        ]
    if verb == "update" and len(rest) <= 1:
        names = rest or sorted(known_marketplaces())
        return [f"Updated {n} @ {str(marketplace.update(n) or '-')[:12]}" for n in names]
    if verb == "remove" and len(rest) == 1:
        marketplace.remove(rest[0])
        return [f"Removed marketplace {rest[0]} (installed plugins stay until uninstalled)."]
    raise PluginError(PLUGIN_USAGE)


def _install(rest: list[str], cwd: Path) -> list[str]:
    words, scope = _scope(rest)
    if len(words) != 1:
        raise PluginError(PLUGIN_USAGE)
    record, notes = install(words[0], scope, cwd)
    index = record["index"]
    commit = str(record.get("commit") or "a local folder")[:12]
    lines = [
        f"Installed {words[0]} {record.get('version') or ''} at {commit} ({summary(index)}); "
        f"enabled in {settings_path(scope, cwd)}. It loads in the next session (/reload: now)."
    ]
    return lines + [f"  note: {shown(note)}" for note in notes]


def _toggle(verb: str, rest: list[str], cwd: Path) -> list[str]:
    words, scope = _scope(rest)
    if len(words) != 1:
        raise PluginError(PLUGIN_USAGE)
    split_id(words[0])
    if verb == "enable" and words[0] not in installed():
        raise PluginError(f"{words[0]} is not installed (pi plugin install {words[0]})")
    path = set_enabled(words[0], verb == "enable", scope, cwd)
    return [f"{verb.capitalize()}d {words[0]} in {path} (next session; /reload: now)."]


def plugin_words(words: list[str], cwd: Path) -> list[str]:
    """Do what ``plugin WORDS…`` says; the lines to show. Raises PluginError."""
    verb, rest = (words[0], words[1:]) if words else ("list", [])
    table: dict[str, Callable[[], list[str]]] = {
        "list": lambda: _list(cwd),
        "browse": lambda: _browse(cwd, rest[0] if rest else None),
        "install": lambda: _install(rest, cwd),
        "uninstall": lambda: _uninstall(rest, cwd),
        "enable": lambda: _toggle("enable", rest, cwd),
        "disable": lambda: _toggle("disable", rest, cwd),
        "marketplace": lambda: _marketplace(rest, cwd),
    }
    action = table.get(verb)
    if action is None:
        raise PluginError(PLUGIN_USAGE)
    if verb in ("list", "browse"):
        return action()
    with exclusive(plugins_home() / ".lock"):  # one pi at a time changes the plugins
        return action()


def _uninstall(rest: list[str], cwd: Path) -> list[str]:
    if len(rest) != 1:
        raise PluginError(PLUGIN_USAGE)
    uninstall(rest[0], cwd)
    return [f"Uninstalled {rest[0]}."]


async def plugin_command(shell: ShellAPI, args: str) -> CommandResult:
    """``/plugin [verb …]``: without a verb, the TUI's picker (else the list)."""
    words = split_args(args)
    try:
        lines: list[Any] = await asyncio.to_thread(plugin_words, words or ["browse"], shell.cwd)
    except PluginError as exc:
        return CommandResult(output=str(exc), error=True)
    action: PickAction | None = "pick_plugin" if not words else None
    return CommandResult(output="\n".join(map(str, lines)), action=action)
