"""Folder trust: whether a project's own configuration may run code or redirect credentials.

What needs trust: ``.pi/hooks/`` and ``.pi/extensions/`` (Python modules pi would import), hooks,
``apiBase``/``model`` and the other loosening keys of ``.pi/settings.json`` and
``.claude/settings*.json`` (:mod:`.settings_layers`), ``.mcp.json``, and the agent profiles of
``.pi/agents/`` and ``.claude/agents/`` (a sub-agent's tools and model). Harmless settings (theme, thinking, compaction)
and tightening ones (deny rules, stricter modes) apply everywhere.

A decision is stored in ``$PI_HOME/trust.json`` under the folder's real path, with a hash of
the content of **every** project file that can run code or move credentials
(``.pi/settings*.json``, ``.pi/hooks/``, ``.pi/extensions/``, ``.mcp.json``,
``.claude/settings*.json``, the agent profiles): a change to any of them (a ``git pull``) makes
the decision stale, so pi asks again.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from pi_cli.shell.config.layers import gate, read_layers
from pi_cli.shell.paths import pi_home, project_profile_files

TRUST_HINT = "Trust it with `pi trust` (or `--trust` for one run)."


class TrustCheck:
    """The trust state of one folder.

    Attributes:
        root: the folder's real path.
        digest: the hash of its code-running and credential files.
        items: what would run or apply only if it is trusted (empty: nothing needs trust).
        stored: the decision stored for this exact digest (``None``: none, or a stale one).
        changed: a decision exists, but for files that have changed since.
    """

    def __init__(self, root: Path, digest: str, items: list[str] | None = None) -> None:
        self.root = root
        self.digest = digest
        self.items: list[str] = items or []
        self.stored: bool | None = None
        self.changed = False

    @property
    def needs_question(self) -> bool:
        """An interactive front end should ask (something needs trust, nothing is decided)."""
        return bool(self.items) and self.stored is None

    def trusted(self, flag: bool | None = None) -> bool:
        """The decision in effect: ``--trust`` wins, else the stored one (default: untrusted)."""
        if flag is not None:
            return flag
        return self.stored is True


def trust_file() -> Path:
    """``$PI_HOME/trust.json``."""
    return pi_home() / "trust.json"


def guarded_files(root: Path) -> list[Path]:
    """Every project file that can run code or move credentials, sorted."""
    found: list[Path] = []
    for directory, pattern in (
        (root / ".pi", "settings*.json"),
        (root / ".claude", "settings*.json"),
    ):
        if directory.is_dir():
            found.extend(p for p in directory.glob(pattern) if p.is_file())
    for directory in (root / ".pi" / "hooks", root / ".pi" / "extensions"):
        if directory.is_dir():
            found.extend(p for p in directory.rglob("*") if p.is_file())
    for single in (root / ".mcp.json", root / ".pi" / "packages.lock"):
        if single.is_file():
            found.append(single)
    found.extend(project_profile_files(root))
    return sorted(found)


def digest_of(root: Path) -> str:
    """A hash over the guarded files' relative paths and contents."""
    hasher = hashlib.sha256()
    for path in guarded_files(root):
        try:
            content = path.read_bytes()
        except OSError as exc:
            content = f"<unreadable: {exc.errno}>".encode()
        relative = str(path.relative_to(root)).encode("utf-8", "surrogateescape")
        hasher.update(relative + b"\0" + str(len(content)).encode() + b"\0" + content)
    return "sha256:" + hasher.hexdigest()


def items_needing_trust(root: Path) -> list[str]:
    """What this folder would run or redirect if trusted (ignored while it is not)."""
    items = [
        f"{p.relative_to(root)} (Python hook, imported by pi)"
        for p in sorted((root / ".pi" / "hooks").glob("*.py"))
        if p.is_file()
    ]
    items += [
        f"{p.relative_to(root)} (Python extension, imported by pi)"
        for p in _project_extensions(root / ".pi" / "extensions")
    ]
    try:
        layers, _ = read_layers(root)
    except Exception:  # noqa: BLE001 - a bad settings file is reported when the shell loads
        layers = []
    user = layers[0].data if layers else {}
    for layer in layers:
        items.extend(gate(layer, trusted=False, user=user)[1])
    if (root / ".pi" / "packages.lock").is_file():  # pi install -l: their extensions are code
        items.append(".pi/packages.lock (project packages: extensions, skills, prompts, agents)")
    servers = _mcp_servers(root / ".mcp.json")
    if servers:
        items.append(f"MCP servers in .mcp.json: {', '.join(servers)}")
    profiles = project_profile_files(root)
    if profiles:
        names = ", ".join(str(p.relative_to(root)) for p in profiles)
        items.append(f"agent profiles (sub-agents' tools and models): {names}")
    rules = [p for d in RULE_DIRS for p in _files(root / d, "*.md")]
    if rules:  # instructions for the model, loaded with AGENTS.md (not in the digest: no code)
        items.append(f"rules in .claude/rules or .pi/rules ({len(rules)} files)")
    return items


RULE_DIRS = (".claude/rules", ".pi/rules")
"""The project's rule folders (:mod:`pi_cli.shell.prompt.rules`), loaded only if trusted."""


def _files(folder: Path, pattern: str) -> list[Path]:
    try:
        return [p for p in folder.rglob(pattern) if p.is_file()] if folder.is_dir() else []
    except OSError:
        return []


def _project_extensions(folder: Path) -> list[Path]:
    """The Python extensions of a project folder (modules and packages), as pi would load them."""
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    return [
        p
        for p in entries
        if not p.name.startswith(("_", "."))
        and ((p.suffix == ".py" and p.is_file()) or (p / "__init__.py").is_file())
    ]


def _mcp_servers(path: Path) -> list[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        # A directory is not a config file (the sandbox's placeholder for a missing one).
        return ["(unreadable)"] if path.exists() and not path.is_dir() else []
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return sorted(servers) if isinstance(servers, dict) else []


def _load_store() -> dict[str, Any]:
    try:
        data = json.loads(trust_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    folders = data.get("folders") if isinstance(data, dict) else None
    return folders if isinstance(folders, dict) else {}


def trusted_folders() -> list[tuple[str, bool]]:
    """Every stored decision: (folder, trusted), sorted by folder (``pi trust --list``)."""
    return sorted(
        (name, isinstance(record, dict) and record.get("trusted") is True)
        for name, record in _load_store().items()
    )


def check_trust(cwd: Path) -> TrustCheck:
    """The trust state of ``cwd`` (cheap: a few small files are read and hashed)."""
    root = Path(os.path.realpath(cwd))
    digest = digest_of(root)
    check = TrustCheck(root, digest, items_needing_trust(root))
    record = _load_store().get(str(root))
    if isinstance(record, dict) and isinstance(record.get("trusted"), bool):
        if record.get("digest") == digest:
            check.stored = record["trusted"]
        else:
            check.changed = True
    return check


def record_trust(root: Path, trusted: bool, digest: str | None = None) -> None:
    """Store a decision for ``root`` (with the current digest unless given)."""
    root = Path(os.path.realpath(root))
    folders = _load_store()
    folders[str(root)] = {
        "trusted": trusted,
        "digest": digest or digest_of(root),
        "decidedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    _save_store(folders)


def forget_trust(root: Path) -> bool:
    """Remove the decision for ``root``; False if there was none."""
    folders = _load_store()
    removed = folders.pop(str(Path(os.path.realpath(root))), None) is not None
    if removed:
        _save_store(folders)
    return removed


def refresh_digest(root: Path) -> None:
    """After pi itself wrote a project settings file of a trusted folder: keep it trusted."""
    record = _load_store().get(str(Path(os.path.realpath(root))))
    if isinstance(record, dict) and record.get("trusted") is True:
        record_trust(root, True)


def _save_store(folders: dict[str, Any]) -> None:
    path = trust_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".trust.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"version": 1, "folders": folders}, handle, indent=2)
            handle.write("\n")
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def untrusted_notice(check: TrustCheck) -> str:
    """The one line saying what an untrusted folder's configuration did not do."""
    changed = " (its configuration changed since you trusted it)" if check.changed else ""
    return f"Untrusted folder{changed}: ignored {'; '.join(check.items)}. {TRUST_HINT}"
