"""What an untrusted project's settings may set: an allowlist, and limits that only tighten.

A folder nobody trusted yet (a fresh clone) may set only:

- **harmless keys** (:data:`HARMLESS`): how pi looks and queues input. ``theme`` (colours),
  ``thinking`` (the reasoning level: tokens, not reach), ``ui`` (TUI or plain REPL),
  ``steeringMode``/``followUpMode`` (how queued input is delivered), ``notifications`` (bell
  or desktop notice), ``toolExecution`` (tool calls of one response at once or in turn: each
  call is still checked and asked one by one), ``compaction`` (when the conversation is
  summarised: what the model remembers, not what it may reach);
- **limits, only downwards** (:data:`LOWER_ONLY`): a budget below what is in effect (the
  user's value or pi's default; unset means unlimited) applies, anything else is skipped;
- **switches, only towards safety** (:data:`SAFE_VALUES`): the sandbox without network,
  tools without inherited secrets, checkpoints on, language servers (or their diagnostics,
  tools, rename, starting on reads) off, and a found language server disabled
  (``lsp.servers.<name>: {"disabled": true}``: a server command is code);
- **permissions that ask or deny**: ``permissions.ask``, ``permissions.deny``,
  ``permissions.disableBypassPermissionsMode: "disable"``, a stricter ``defaultMode`` (decided
  with the command line in :func:`pi_cli.shell.permissions.setup.build_mode`), a stricter
  ``sandbox.mode`` (``off`` < ``auto`` < ``required``).

Everything else (a model, a base URL, hooks, MCP servers, allow rules, extra directories,
compaction or retry tuning, a higher budget...) is skipped and named in the one trust notice.
"""

from __future__ import annotations

import json
from typing import Any

HARMLESS = frozenset(
    {"theme", "thinking", "ui", "steeringMode", "followUpMode", "notifications", "toolExecution"}
    | {"compaction"}
)
LOWER_ONLY: dict[tuple[str, ...], float | None] = {
    ("maxTurns",): None,
    ("maxCost",): None,
    ("bashTimeoutS",): None,
    ("bashSpillCapMb",): 50,
    ("outputSchemaRetries",): 2,
    ("subagents", "maxTurns"): 50,
    ("goal", "maxRounds"): 20,
    ("goal", "checkTimeoutS"): 600.0,
    ("permissions", "approvalTimeoutS"): 120.0,
    ("webFetch", "maxBytes"): 5 * 1024 * 1024,
    ("webFetch", "timeoutS"): 30.0,
    ("lsp", "diagnosticsWaitMs"): 1500,
    ("lsp", "maxDiagnostics"): 20,
}
"""Limits a project may lower, with pi's default (None: unlimited when unset)."""
SAFE_VALUES: dict[tuple[str, ...], object] = {
    ("sandbox", "network"): False,
    ("toolEnv", "inheritSecrets"): False,
    ("checkpoints", "enabled"): True,
    ("lsp", "enabled"): False,
    ("lsp", "diagnostics"): False,
    ("lsp", "navigation"): False,
    ("lsp", "rename"): False,
    ("lsp", "startOnRead"): False,
}
"""Switches a project may set only to the safe value."""
PERMISSION_KEYS = frozenset({"ask", "deny", "defaultMode", "disableBypassPermissionsMode"})
SANDBOX_RANK = {"off": 0, "auto": 1, "required": 2}


class Gated:
    """The part of an untrusted layer that applies, and what was skipped (as notice text)."""

    def __init__(self, label: str, effective: dict[str, Any]) -> None:
        self.label = label
        self.effective = effective
        self.kept: dict[str, Any] = {}
        self.skipped: list[str] = []

    def keep(self, path: tuple[str, ...], value: Any) -> None:
        node = self.kept
        for part in path[:-1]:
            node = node.setdefault(part, {})
        node[path[-1]] = value

    def skip(self, path: tuple[str, ...], value: Any, why: str = "") -> None:
        if isinstance(value, dict) and value and path != ("mcpServers",):
            for key, inner in value.items():  # name each key (``retry.maxRetries``)
                self.skip((*path, str(key)), inner, why)
            return
        self.skipped.append(f"{'.'.join(path)} {_shown(value)} in {self.label}{why}")


def gate_untrusted(data: dict[str, Any], label: str, effective: dict[str, Any]) -> Gated:
    """Split an untrusted project layer (see the module doc); ``effective`` is what the user's
    own settings make of every key (raw, camelCase)."""
    gated = Gated(label, effective)
    for key, value in data.items():
        _one(gated, (key,), value)
    return gated


def _one(gated: Gated, path: tuple[str, ...], value: Any) -> None:
    if path in LOWER_ONLY:
        _lower(gated, path, value)
    elif path in SAFE_VALUES:
        if value == SAFE_VALUES[path]:
            gated.keep(path, value)
        else:
            gated.skip(path, value)
    elif len(path) == 1:
        _top(gated, path[0], value)
    elif path == ("lsp", "servers") and isinstance(value, dict):
        for name, entry in value.items():  # only turning a server off
            if entry == {"disabled": True}:
                gated.keep((*path, str(name)), entry)
            else:
                gated.skip((*path, str(name)), entry)
    else:
        gated.skip(path, value)


def _top(gated: Gated, key: str, value: Any) -> None:
    if key in HARMLESS or (key == "disableBypassPermissionsMode" and value == "disable"):
        gated.keep((key,), value)  # the latter: Claude Code's top-level spelling
    elif key == "permissions" and isinstance(value, dict):
        _permissions(gated, value)
    elif key == "sandbox" and isinstance(value, dict):
        _sandbox(gated, value)
    elif key == "hooks":
        if value:
            gated.skipped.append(f"hooks in {gated.label}: {hook_commands(value)}")
    elif isinstance(value, dict) and _has_gated_children(key):
        for child, inner in value.items():
            _one(gated, (key, child), inner)
    else:
        gated.skip((key,), value, _why((key,)))


def _has_gated_children(key: str) -> bool:
    return any(len(p) > 1 and p[0] == key for p in (*LOWER_ONLY, *SAFE_VALUES))


def _lower(gated: Gated, path: tuple[str, ...], value: Any) -> None:
    if not _number(value):
        gated.skip(path, value)
        return
    current = _lookup(gated.effective, path)
    limit = current if _number(current) else LOWER_ONLY[path]
    if limit is None or value <= limit:
        gated.keep(path, value)
    else:
        gated.skip(path, value, f" (only lower than {_shown(limit)} applies)")


def _permissions(gated: Gated, value: dict[str, Any]) -> None:
    for key, inner in value.items():
        path = ("permissions", key)
        if path in LOWER_ONLY:
            _lower(gated, path, inner)
        elif key == "disableBypassPermissionsMode" and inner != "disable":
            gated.skip(path, inner)
        elif key in PERMISSION_KEYS:
            gated.keep(path, inner)
        elif inner:
            gated.skip(path, inner)


def _sandbox(gated: Gated, value: dict[str, Any]) -> None:
    current = _lookup(gated.effective, ("sandbox", "mode"))
    for key, inner in value.items():
        path = ("sandbox", key)
        if path in SAFE_VALUES:
            _one(gated, path, inner)
        elif key == "mode" and isinstance(inner, str) and inner in SANDBOX_RANK:
            now = SANDBOX_RANK.get(current if isinstance(current, str) else "auto", 1)
            if SANDBOX_RANK[inner] >= now:
                gated.keep(path, inner)
            else:
                gated.skip(path, inner, " (only a stricter sandbox mode applies)")
        else:
            gated.skip(path, inner)


def _why(path: tuple[str, ...]) -> str:
    if path == ("apiBase",):
        return " (your API key would be sent there)"
    return ""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _lookup(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = data
    for part in path:
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _shown(value: Any) -> str:
    if isinstance(value, str):
        text = value
    elif isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        text = ", ".join(value)
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:79] + "…"


def hook_commands(config: Any) -> str:
    """The commands of a ``hooks`` object, for the notice."""
    found: list[str] = []
    if isinstance(config, dict):
        for event, entries in config.items():
            for entry in entries if isinstance(entries, list) else []:
                inner = entry.get("hooks") if isinstance(entry, dict) else None
                for item in inner if isinstance(inner, list) else [entry]:
                    if isinstance(item, dict) and isinstance(item.get("command"), str):
                        found.append(f"{event} `{item['command']}`")
    return ", ".join(found) or "(none valid)"
