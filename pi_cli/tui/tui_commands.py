"""Commands and screens only the TUI has: ``/theme``, ``/keys`` (``/hotkeys``), the queue view.

They are registered into the shell's command table (``source="tui"``), so ``/help`` and the
completion list them with the shell's own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_cli.shell import CommandResult, ShellAPI, SlashCommand

if TYPE_CHECKING:
    from pi_cli.shell import FrontShell
    from pi_cli.tui.host import TuiHost


def register_tui_commands(host: TuiHost, shell: FrontShell) -> None:
    """Add the TUI's commands to ``shell`` (a command of that name already there wins)."""
    from pi_cli.tui.controllers.pick_commands import theme_command

    async def keys(api: ShellAPI, args: str) -> CommandResult:
        show_keys(host)
        return CommandResult()

    commands = [
        SlashCommand(
            "theme", "Switch the colour theme", theme_command(host), usage="[name]", source="tui"
        ),
        SlashCommand(
            "keys",
            "List every key binding (also ? or F1)",
            keys,
            aliases=("hotkeys",),
            source="tui",
            while_running=True,
        ),
    ]
    for command in commands:
        if shell.commands.get(command.name) is None:
            shell.commands.register(command)


def show_keys(host: TuiHost) -> None:
    """Open the keys list (once)."""
    from pi_cli.tui.screens.keys_screen import KeysScreen

    if isinstance(host.screen, KeysScreen):
        return
    shell = host.shell
    commands = []
    if shell is not None:
        for command in shell.commands.visible():
            usage = f"/{command.name}" + (f" {command.usage}" if command.usage else "")
            commands.append((usage, command.description))
    extension_keys = []
    if shell is not None and shell.extensions is not None:
        extension_keys = [(k.keys, k.description, k.id) for k in shell.extensions.keys()]
    host.push_screen(KeysScreen(host.options.keymap, commands, extension_keys))


def open_queue_view(host: TuiHost) -> None:
    """Open the queue view, or say there is nothing queued."""
    from pi_cli.tui.screens.queue_screen import QueueScreen

    shell = host.shell
    if shell is None or isinstance(host.screen, QueueScreen):
        return
    items = [(item.id, item.text, str(item.kind)) for item in shell.queued()]
    if not items:
        host.notify("Nothing is queued. While a run is live, Enter steers and Alt+Enter queues.")
        return
    host.push_screen(QueueScreen(shell.queue, items))
