"""Settings files as layers, and what an untrusted project may set.

Layers, lowest first: the TypeScript pi's ``~/.pi/agent/settings.json`` (the keys both share,
:mod:`.pi_ts`), the user's ``$PI_HOME/settings.json``, the project's ``.pi/settings.json``,
and Claude Code's ``.claude/settings.json`` and ``.claude/settings.local.json`` (from those only
``permissions``, ``hooks``, ``disableBypassPermissionsMode`` and ``enabledPlugins`` are read).
pi's own layers are merged into :class:`Settings`; rules and hooks are collected per layer (a
rule's ``/path`` is relative to its file's root).

**Untrusted project settings are an allowlist**: in a folder that is not trusted, a project
layer keeps only harmless keys and limits that tighten (:mod:`.untrusted`); everything else is
skipped (:func:`gate`) and listed, so the user is told.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pi_cli.shell.config._files import merge, read_json
from pi_cli.shell.config.pi_ts import read_pi_ts_settings
from pi_cli.shell.config.settings import (
    PermissionSettings,
    Settings,
    SettingsError,
    _validate,
)
from pi_cli.shell.config.untrusted import gate_untrusted
from pi_cli.shell.paths import pi_home, pi_ts_home, project_dir

_CLAUDE_KEYS = ("permissions", "hooks", "disableBypassPermissionsMode", "enabledPlugins")
"""What pi reads from Claude Code's settings files."""


class Layer:
    """One settings file: where it is, whose it is, and its (possibly gated) content."""

    def __init__(
        self,
        path: Path,
        scope: Literal["user", "project"],
        kind: Literal["pi", "claude"],
        data: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.scope: Literal["user", "project"] = scope
        self.kind: Literal["pi", "claude"] = kind
        self.data: dict[str, Any] = data if data is not None else {}

    @property
    def base(self) -> Path:
        """The root ``/path`` rules are relative to (the directory holding ``.pi``/``.claude``)."""
        return self.path.parent.parent

    @property
    def label(self) -> str:
        """The file's name as the user knows it (``.pi/settings.json``)."""
        return (
            f"{self.path.parent.name}/{self.path.name}"
            if self.scope == "project"
            else str(self.path)
        )


class LoadedSettings:
    """The merged settings, the gated layers, what was ignored, what was wrong."""

    def __init__(
        self,
        settings: Settings,
        layers: list[Layer],
        ignored: list[str] | None = None,
        problems: list[str] | None = None,
    ) -> None:
        self.settings = settings
        self.layers = layers
        self.ignored: list[str] = ignored or []
        self.problems: list[str] = problems or []


def project_layer_paths(cwd: Path) -> list[tuple[Path, Literal["pi", "claude"]]]:
    """The project's settings files, lowest precedence first."""
    claude = cwd / ".claude"
    return [
        (project_dir(cwd) / "settings.json", "pi"),
        (claude / "settings.json", "claude"),
        (claude / "settings.local.json", "claude"),
    ]


def read_layers(cwd: Path) -> tuple[list[Layer], list[str]]:
    """Every layer's raw content (pi files must be valid: :class:`SettingsError`); the lowest
    is the TypeScript pi's settings, where they exist (:mod:`.pi_ts`)."""
    problems: list[str] = []
    layers: list[Layer] = []
    pi_ts = pi_ts_home()
    if pi_ts is not None:
        data, problems = read_pi_ts_settings(pi_ts / "settings.json")
        if data:
            layers.append(Layer(pi_ts / "settings.json", "user", "pi", data))
    user_path = pi_home() / "settings.json"
    layers.append(Layer(user_path, "user", "pi", read_json(user_path)))
    for path, kind in project_layer_paths(cwd):
        if kind == "pi":
            layers.append(Layer(path, "project", "pi", read_json(path)))
            continue
        try:
            data = read_json(path)
        except SettingsError as exc:  # Claude Code's file: a warning, never fatal for pi
            problems.append(f"{exc}; ignoring it")
            continue
        if data:
            layers.append(Layer(path, "project", "claude", data))
    for layer in layers:
        if layer.kind == "pi":
            _validate(layer.data, str(layer.path))
    return layers, problems


def gate(
    layer: Layer, trusted: bool, user: dict[str, Any] | None = None
) -> tuple[Layer, list[str]]:
    """``layer`` with what it may not set removed; returns (gated layer, what was skipped).

    An untrusted project layer keeps only what :mod:`.untrusted` allows (an allowlist, limits
    that only tighten against ``user``, the user's own raw settings).
    """
    data = layer.data
    if layer.kind == "claude":
        data = {k: v for k, v in data.items() if k in _CLAUDE_KEYS}
    if layer.scope == "user" or trusted:
        return Layer(layer.path, layer.scope, layer.kind, data), []
    gated = gate_untrusted(data, layer.label, user or {})
    return Layer(layer.path, layer.scope, layer.kind, gated.kept), gated.skipped


def load_layered(cwd: Path, trusted: bool, injected: Settings | None = None) -> LoadedSettings:
    """The shell's settings for ``cwd``; ``injected`` (tests, embedders) replaces every file."""
    if injected is not None:
        from pi_cli.shell.config._validation import non_defaults

        data = non_defaults(injected)
        return LoadedSettings(injected, [Layer(cwd / ".pi" / "injected.json", "user", "pi", data)])
    raw, problems = read_layers(cwd)
    layers: list[Layer] = []
    ignored: list[str] = []
    for layer in raw:
        gated, dropped = gate(layer, trusted, raw[0].data)
        layers.append(gated)
        ignored.extend(dropped)
    merged: dict[str, Any] = {}
    for layer in layers:
        if layer.kind == "pi":
            merged = merge(merged, layer.data)
    merged["hooks"] = hooks_config(layers)
    settings = _validate(merged, " + ".join(str(x.path) for x in layers if x.kind == "pi"))
    for layer in layers:
        if layer.kind == "claude" and isinstance(layer.data.get("permissions"), dict):
            from pi_cli.shell.config._validation import SettingsInvalid, validated

            try:
                validated(layer.data["permissions"], PermissionSettings)
            except SettingsInvalid as exc:
                problems.append(f"Invalid permissions in {layer.path}: {exc}")
                layer.data.pop("permissions")
    return LoadedSettings(settings, layers, ignored, problems)


def hooks_config(layers: list[Layer]) -> dict[str, list[Any]]:
    """Every layer's ``hooks``, concatenated per event (user first, as Claude Code does)."""
    combined: dict[str, list[Any]] = {}
    for layer in layers:
        hooks = layer.data.get("hooks")
        if not isinstance(hooks, dict):
            continue
        for event, entries in hooks.items():
            combined.setdefault(event, []).extend(
                entries if isinstance(entries, list) else [entries]
            )
    return combined


def permissions_of(layer: Layer) -> dict[str, Any]:
    """A layer's ``permissions`` object (``{}`` when absent or not an object)."""
    value = layer.data.get("permissions")
    return value if isinstance(value, dict) else {}


def add_permission_rule(path: Path, behavior: str, rule: str) -> None:
    """Append ``rule`` to ``permissions.<behavior>`` of the settings file at ``path``."""
    data = read_json(path)
    permissions = data.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise SettingsError(f'{path}: "permissions" is not an object')
    rules = permissions.setdefault(behavior, [])
    if rule not in rules:
        rules.append(rule)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
