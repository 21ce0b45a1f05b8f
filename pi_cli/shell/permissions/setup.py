"""Rules, mode and extra directories from the settings layers and the command line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_cli.shell.config.layers import Layer, permissions_of
from pi_cli.shell.permissions.engine import RuleSet
from pi_cli.shell.permissions.modes import DEFAULT_MODE, Mode, ModeError, parse_mode, stricter
from pi_cli.shell.permissions.rules import RuleError, parse_rule, split_rules

if TYPE_CHECKING:
    from pi_cli.shell.options import ShellOptions

CLI = "the command line"


def build_rules(layers: list[Layer], options: ShellOptions, cwd: Path) -> tuple[RuleSet, list[str]]:
    """Every layer's ``permissions.allow|ask|deny`` plus ``--allowed-tools``/``--disallowed-tools``."""
    rules = RuleSet()
    problems: list[str] = []
    for layer in layers:
        permissions = permissions_of(layer)
        for behavior in ("allow", "ask", "deny"):
            entries = permissions.get(behavior)
            for text in entries if isinstance(entries, list) else []:
                try:
                    rule = parse_rule(str(text), layer.label, layer.base)
                except RuleError as exc:
                    problems.append(f"{exc} (in {layer.label}); ignoring it")
                    continue
                getattr(rules, behavior).append(rule)
    for behavior, values in (("allow", options.allowed_tools), ("deny", options.disallowed_tools)):
        flag = "--allowed-tools" if behavior == "allow" else "--disallowed-tools"
        for value in values:
            for text in split_rules(value):
                try:
                    rule = parse_rule(text, flag, cwd)
                except RuleError as exc:
                    problems.append(f"{exc} ({flag}); ignoring it")
                    continue
                (rules.allow if behavior == "allow" else rules.deny).append(rule)
    return rules, problems


def bypass_disabled(layers: list[Layer]) -> str | None:
    """The settings file whose ``disableBypassPermissionsMode: "disable"`` (in ``permissions``,
    where Claude Code has it, or at the top) turns ``bypassPermissions`` off; None if none."""
    for layer in layers:
        for where in (permissions_of(layer), layer.data):
            if where.get("disableBypassPermissionsMode") == "disable":
                return layer.label
    return None


def bypass_refusal(label: str) -> str:
    """The error for a refused ``bypassPermissions`` (yolo) mode."""
    return (
        f"bypassPermissions mode is disabled by disableBypassPermissionsMode in {label}: "
        "--dangerously-skip-permissions, --permission-mode bypassPermissions and yolo are "
        "refused. Choose another mode (default, acceptEdits, auto, plan, dontAsk)."
    )


def build_mode(layers: list[Layer], options: ShellOptions, trusted: bool) -> tuple[Mode, list[str]]:
    """The starting mode: the command line, else the user's setting, else ``auto``; a project's
    ``defaultMode`` applies when trusted, or when it is stricter. Raises :class:`ModeError`
    when the command line asks for ``bypassPermissions`` and a settings file disables it."""
    problems: list[str] = []
    disabled = bypass_disabled(layers)
    if options.skip_permissions or options.permission_mode:
        wanted = "bypassPermissions" if options.skip_permissions else options.permission_mode
        mode = parse_mode(wanted or "")
        if mode == "bypassPermissions" and disabled is not None:
            raise ModeError(bypass_refusal(disabled))
        return mode, problems
    return _settings_mode(layers, trusted, disabled, problems), problems


def _settings_mode(
    layers: list[Layer], trusted: bool, disabled: str | None, problems: list[str]
) -> Mode:
    mode: Mode = DEFAULT_MODE
    for layer in layers:
        value = permissions_of(layer).get("defaultMode")
        if not isinstance(value, str):
            continue
        try:
            wanted = parse_mode(value)
        except ModeError as exc:
            problems.append(f"{exc} (permissions.defaultMode in {layer.label}); ignoring it")
            continue
        if wanted == "bypassPermissions" and disabled is not None:
            problems.append(f"Ignoring permissions.defaultMode {value!r} in {layer.label}: "
                            + bypass_refusal(disabled))  # fmt: skip
        elif layer.scope == "user" or trusted or stricter(wanted, mode):
            mode = wanted
        else:
            problems.append(
                f"Ignoring permissions.defaultMode {value!r} in {layer.label}: an untrusted "
                "folder may only make the mode stricter."
            )
    return mode


def extra_dirs(layers: list[Layer], options: ShellOptions, cwd: Path) -> list[Path]:
    """``--add-dir`` and every layer's ``permissions.additionalDirectories`` (gated already)."""
    dirs: list[Path] = []
    for layer in layers:
        values = permissions_of(layer).get("additionalDirectories")
        for value in values if isinstance(values, list) else []:
            dirs.append(_dir(str(value), layer.base))
    dirs.extend(_dir(value, cwd) for value in options.add_dirs)
    return dirs


def _dir(value: str, base: Path) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else base / path
