"""``/permissions [mode|next|allow RULE|ask RULE|deny RULE]`` and ``/add-dir PATH``."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand
from pi_cli.shell.permissions.modes import ModeError
from pi_cli.shell.permissions.rules import RuleError, parse_rule


async def _permissions(shell: ShellAPI, args: str) -> CommandResult:
    control = shell.permissions
    word, _, rest = args.strip().partition(" ")
    if not word:
        return CommandResult(output=control.summary())
    if word in ("allow", "ask", "deny"):
        try:
            rule = parse_rule(rest, "/permissions (this session)", shell.cwd)
        except RuleError as exc:
            return CommandResult(output=str(exc), error=True)
        rules = control.engine.rules
        target = rules.session if word == "allow" else rules.ask if word == "ask" else rules.deny
        target.append(rule)
        return CommandResult(output=f"{word.capitalize()} {rule.text} for this session.")
    try:
        mode = control.cycle() if word == "next" else control.set_mode(word)
    except ModeError as exc:
        return CommandResult(output=str(exc), error=True)
    return CommandResult(output=f"Permission mode: {mode}")


async def _add_dir(shell: ShellAPI, args: str) -> CommandResult:
    if not args.strip():
        dirs = shell.permissions.extra_dirs
        return CommandResult(output="Extra directories: " + (", ".join(map(str, dirs)) or "none"))
    path = Path(args.strip()).expanduser()
    path = path if path.is_absolute() else shell.cwd / path
    if not path.is_dir():
        return CommandResult(output=f"Not a directory: {path}", error=True)
    shell.permissions.engine.workspace.add(path)
    return CommandResult(output=f"Added {path.resolve()} to the workspace for this session.")


def permission_commands() -> list[SlashCommand]:
    """The permission commands (safe while a run is live: they touch no conversation)."""
    return [
        SlashCommand(
            "permissions",
            "Show or change the permission mode and rules",
            _permissions,
            usage="[mode|next|allow RULE|ask RULE|deny RULE]",
            aliases=("approvals",),
            while_running=True,
        ),
        SlashCommand(
            "add-dir",
            "Let the agent work in another directory too (this session)",
            _add_dir,
            usage="[path]",
            while_running=True,
        ),
    ]
