"""Marketplaces: Claude Code's ``.claude-plugin/marketplace.json``, from a git repository or a
local folder.

``add`` takes a folder holding ``.claude-plugin/marketplace.json`` (read in place), a git URL
(``https://``, ``ssh://``, ``git@host:path``, ``file://``, a bare repository's path; a ``git:``
prefix is allowed) or GitHub's ``owner/repo``; a git marketplace is cloned into
``$PI_HOME/plugins/marketplaces/<name>/`` and ``update`` fetches it again. Nothing of a
marketplace runs: git is called with hooks off and only the file, git, http(s) and ssh
protocols; names are checked before they become folder names; names Claude Code reserves for
Anthropic's marketplaces are refused from anywhere else.
"""

from __future__ import annotations

import datetime as _dt
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_cli.shell.packages.git import GitError
from pi_cli.shell.packages.git import clone as git_clone
from pi_cli.shell.packages.git import git as git_run
from pi_cli.shell.packages.git import head_commit as git_head
from pi_cli.shell.plugins.manifest import PluginError, read_json, shown, valid_name
from pi_cli.shell.plugins.store import known_marketplaces, plugins_home, save_marketplaces

CATALOG = Path(".claude-plugin") / "marketplace.json"
RESERVED = frozenset(
    {
        "claude-code-marketplace",
        "claude-code-plugins",
        "claude-plugins-official",
        "anthropic-marketplace",
        "anthropic-plugins",
        "agent-skills",
        "life-sciences",
    }
)
"""Marketplace names Claude Code keeps for Anthropic (accepted only from github.com/anthropics)."""
_GITHUB = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_URL = re.compile(r"^(?:https?|ssh|git|file)://|^[\w.-]+@[\w.-]+:")


class MarketplaceError(PluginError):
    """A marketplace cannot be added, read or updated (the message says why)."""


def now() -> str:
    """The time as ISO 8601 (UTC)."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def git(*args: str, cwd: Path | None = None) -> str:
    """Run git (:mod:`pi_cli.shell.packages.git`); MarketplaceError when it fails."""
    try:
        return git_run(*args, cwd=cwd)
    except GitError as exc:
        raise MarketplaceError(str(exc)) from None


def head_commit(folder: Path) -> str | None:
    """The commit checked out in ``folder`` (None: not a git work tree)."""
    return git_head(folder)


def clone(url: str, dest: Path, ref: str | None = None, sha: str | None = None) -> str:
    """Clone ``url`` into ``dest`` at ``ref`` or ``sha``; the commit (MarketplaceError)."""
    try:
        return git_clone(url, dest, ref, sha)
    except GitError as exc:
        raise MarketplaceError(str(exc)) from None


@dataclass
class Source:
    """Where a marketplace comes from: a folder read in place, or a git URL cloned."""

    kind: str  # "directory" or "git"
    location: str

    def wire(self) -> dict[str, str]:
        """As stored in ``known_marketplaces.json``."""
        key = "path" if self.kind == "directory" else "url"
        return {"source": self.kind, key: self.location}


def parse_source(text: str, cwd: Path) -> Source:
    """What ``pi plugin marketplace add TEXT`` names."""
    text = text.strip().removeprefix("git:")
    if not text or text.startswith("-"):
        raise MarketplaceError(f"not a marketplace source: {text!r}")
    path = Path(text).expanduser()
    path = path if path.is_absolute() else cwd / path
    if path.is_dir() and (path / CATALOG).is_file():
        return Source("directory", str(path.resolve()))
    if path.is_dir() and ((path / "HEAD").is_file() or (path / ".git").exists()):
        return Source("git", str(path.resolve()))
    if _URL.match(text):
        return Source("git", text)
    if _GITHUB.match(text) and not path.exists():
        return Source("git", f"https://github.com/{text}.git")
    raise MarketplaceError(
        f"{text!r} is neither a folder with {CATALOG} nor a git repository or URL"
    )


def _official(source: Source) -> bool:
    return source.kind == "git" and bool(
        re.match(r"^(?:https://|git@)github\.com[/:]anthropics/", source.location)
    )


def read_catalog(root: Path) -> dict[str, Any]:
    """``marketplace.json`` of the checkout ``root`` (raises MarketplaceError)."""
    path = root / CATALOG
    if not path.is_file():
        raise MarketplaceError(f"{root} has no {CATALOG}")
    data = read_json(path, "marketplace")
    if not isinstance(data, dict):
        raise MarketplaceError(f"{path} does not hold a JSON object")
    name = data.get("name")
    if not valid_name(name):
        raise MarketplaceError(f"{path}: marketplace name {shown(name, 80)!r} is not usable")
    plugins = data.get("plugins")
    if not isinstance(plugins, list):
        raise MarketplaceError(f"{path}: 'plugins' is not a list")
    return data


def entries(catalog: dict[str, Any]) -> list[dict[str, Any]]:
    """The catalogue's usable plugin entries (a bad one is left out)."""
    return [
        e for e in catalog.get("plugins", []) if isinstance(e, dict) and valid_name(e.get("name"))
    ]


def checkout_of(name: str) -> Path:
    """Where a known marketplace's files are (its folder, or pi's clone)."""
    record = known_marketplaces().get(name)
    if record is None:
        raise MarketplaceError(
            f"no marketplace {name!r} (add it: pi plugin marketplace add <source>)"
        )
    return Path(str(record.get("installLocation", "")))


def add(text: str, cwd: Path) -> tuple[str, dict[str, Any]]:
    """Add a marketplace; (its name, its catalogue). Raises MarketplaceError."""
    source = parse_source(text, cwd)
    markets = known_marketplaces()
    if source.kind == "directory":
        root = Path(source.location)
        catalog = read_catalog(root)
        name = _check_name(catalog, source, markets)
        commit = head_commit(root)
    else:
        staging = Path(tempfile.mkdtemp(prefix="market-", dir=_ensure(plugins_home())))
        try:
            commit = clone(source.location, staging / "checkout")
            catalog = read_catalog(staging / "checkout")
            name = _check_name(catalog, source, markets)
            root = plugins_home() / "marketplaces" / name
            shutil.rmtree(root, ignore_errors=True)
            root.parent.mkdir(parents=True, exist_ok=True)
            (staging / "checkout").rename(root)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    markets[name] = {
        "source": source.wire(),
        "installLocation": str(root),
        "commit": commit,
        "lastUpdated": now(),
    }
    save_marketplaces(markets)
    return name, catalog


def _ensure(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _check_name(catalog: dict[str, Any], source: Source, markets: dict[str, Any]) -> str:
    name = str(catalog["name"])
    if name in RESERVED and not _official(source):
        raise MarketplaceError(
            f"marketplace name {name!r} is reserved for Anthropic's own marketplaces; "
            "this one is not from github.com/anthropics"
        )
    if name in markets:
        raise MarketplaceError(
            f"marketplace {name!r} is already added (pi plugin marketplace update {name})"
        )
    return name


def update(name: str) -> str | None:
    """Fetch a git marketplace again (a folder is read in place); its new commit."""
    markets = known_marketplaces()
    record = markets.get(name)
    if record is None:
        raise MarketplaceError(f"no marketplace {name!r}")
    root = Path(str(record["installLocation"]))
    source = record.get("source") or {}
    if source.get("source") == "git":
        git("fetch", "--quiet", "origin", cwd=root)
        git("reset", "--quiet", "--hard", "origin/HEAD", cwd=root)
    read_catalog(root)
    record["commit"] = head_commit(root)
    record["lastUpdated"] = now()
    save_marketplaces(markets)
    return record["commit"] if isinstance(record["commit"], str) else None


def remove(name: str) -> None:
    """Forget a marketplace (pi's clone of it is deleted; a folder source is left alone)."""
    markets = known_marketplaces()
    record = markets.pop(name, None)
    if record is None:
        raise MarketplaceError(f"no marketplace {name!r}")
    if (record.get("source") or {}).get("source") == "git":
        clone_dir = plugins_home() / "marketplaces" / name
        if Path(str(record.get("installLocation"))) == clone_dir:
            shutil.rmtree(clone_dir, ignore_errors=True)
    save_marketplaces(markets)
