"""Slash-command pickers and the theme command of the TUI.

``/model``, ``/resume``, ``/tree`` and ``/theme`` open pickers (modal screens awaited in a
worker); choosing goes through the same paths as typing: the shell's commands, or
``navigate_to`` for the tree. The app is reached through :class:`~pi_cli.tui.host.TuiHost`, so
this module does not import it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.shell import CommandResult, PickAction, ShellAPI

if TYPE_CHECKING:
    from pi_cli.tui.host import TuiHost as PickerHost


def open_picker(host: PickerHost, action: PickAction) -> None:
    """Open the picker a command result asks for (in a worker: the screen is awaited)."""
    pickers: dict[PickAction, Callable[[PickerHost], Coroutine[Any, Any, None]]] = {
        "pick_model": pick_model,
        "pick_session": pick_session,
        "pick_tree": pick_tree,
        "pick_theme": pick_theme,
        "pick_bash": pick_bash,
        "pick_agent": pick_agent,
        "pick_rewind": pick_rewind,
        "pick_diff": pick_diff,
        "pick_plugin": pick_plugin,
    }
    host.run_worker(pickers[action](host), group="picker", exit_on_error=False)


async def pick_model(host: PickerHost) -> None:
    """Choose a model; the choice runs as ``/model spec``."""
    from pi_cli.tui.screens.pickers import model_picker

    assert host.shell is not None
    current = host.shell.model_id
    ports, sources = host.shell.settings.local_probe_ports, host.shell.served_sources()
    spec = await host.push_screen_wait(model_picker(current, ports, sources))
    if spec and spec != current:
        host.submit_text(f"/model {spec}")


async def pick_session(host: PickerHost) -> None:
    """Choose a session of this project (search, rename, delete); it runs as ``/resume path``."""
    from pi_cli.shell import sessions_dir
    from pi_cli.tui.screens.resume import ResumeScreen

    shell = host.shell
    assert shell is not None
    path = await host.push_screen_wait(ResumeScreen(sessions_dir(shell.cwd), shell.session.path))
    if path and path != str(shell.session.path):
        host.submit_text(f"/resume {path}")


async def pick_tree(host: PickerHost) -> None:
    """Choose an entry of the session tree and continue from it."""
    from pi_cli.tui.screens.pickers import tree_picker

    shell = host.shell
    assert shell is not None
    entries = shell.tree_entries()
    if not entries:
        host.notify("Nothing in this session yet.")
        return
    from pi_cli.tui.screens.tree_offer import continue_from

    chosen: str | None = None
    while True:  # Esc at the next question comes back here, at the entry chosen
        chosen = await host.push_screen_wait(tree_picker(entries, chosen))
        # restore its code too? summarise the branch left?
        if not chosen or await continue_from(host, chosen):
            return


async def pick_rewind(host: PickerHost) -> None:
    """``/rewind``: a prompt to go back to, and what to restore."""
    from pi_cli.tui.screens.rewind import pick_rewind as dialogue

    await dialogue(host)


async def pick_diff(host: PickerHost) -> None:
    """``/diff``: the session's changes on a screen of their own."""
    from pi_cli.tui.screens.diff import show_diff

    await show_diff(host)


def navigate_tree(host: PickerHost, entry_id: str) -> None:
    """Continue from ``entry_id``; a chosen prompt goes back into the editor, to edit and resend."""
    from pi_cli.shell import SessionError

    assert host.shell is not None
    try:
        text = host.shell.navigate_to(entry_id)  # emits SessionChanged: the transcript is redrawn
    except SessionError as exc:
        host.notify(str(exc), severity="error")
        return
    if text:
        host.editor.set_text(text)


async def pick_theme(host: PickerHost) -> None:
    """Choose a colour theme."""
    from pi_cli.tui.screens.pickers import theme_picker

    before = host.theme

    def preview(name: str) -> None:
        host.theme = name

    name = await host.push_screen_wait(theme_picker(sorted(host.pi_themes), before, preview))
    host.theme = before
    if name:
        host.switch_theme(name)


async def search_history(host: PickerHost) -> None:
    """Ctrl+R: pick an earlier prompt; it replaces the editor's text (to edit and send)."""
    from pi_cli.tui.screens.pickers import history_picker

    entries = host.editor.prompt_history.newest_first()
    if not entries:
        host.notify("No earlier prompts yet.")
        return
    text = await host.push_screen_wait(history_picker(entries))
    if text:
        host.editor.set_text(text)


async def pick_bash(host: PickerHost) -> None:
    """Choose a background shell, then view its output or stop it (as ``/bashes view|kill``)."""
    from pi_cli.shell import shell_line
    from pi_cli.tui.screens.picker import PickerScreen

    assert host.shell is not None
    items = [(info.id, shell_line(info)) for info in host.shell.sandbox.shells.infos()]
    shell_id = await host.push_screen_wait(PickerScreen("Background shells", items))
    if not shell_id:
        return
    actions = [("view", "View its output, live"), ("kill", "Stop it and everything it started")]
    action = await host.push_screen_wait(PickerScreen(shell_id, actions))
    found = host.shell.sandbox.shells.get(shell_id)
    if action == "view" and found is not None:  # a client of pi serve: the server's text
        from pi_cli.tui.screens.shell_output import ShellOutputScreen

        action = await host.push_screen_wait(ShellOutputScreen(found))
    if action:
        host.submit_text(f"/bashes {action} {shell_id}")


async def pick_agent(host: PickerHost) -> None:
    """Choose a background agent, then open its thread (steer it, stop it) or stop it (as
    ``/agents steer|abort``)."""
    from pi_cli.shell import agent_status_line
    from pi_cli.tui.screens.picker import PickerScreen

    assert host.shell is not None
    background = getattr(host.shell.agent_tools, "background", None)
    if background is None:  # a client of pi serve: the command's text only
        host.submit_text("/agents list")
        return
    items = [(info.id, agent_status_line(info)) for info in background.infos()]
    agent_id = await host.push_screen_wait(PickerScreen("Background agents", items))
    if not agent_id:
        return
    child = background.get(agent_id)
    actions = [("view", "Open its thread, live (send it messages)")]
    if child.running:
        actions.append(("abort", "Stop it (its parent is told)"))
    action = await host.push_screen_wait(PickerScreen(agent_id, actions))
    if action == "view":
        from pi_cli.tui.screens.agent_thread import AgentThreadScreen

        def send(text: str) -> None:
            host.submit_text(f"/agents steer {agent_id} {text}")

        action = await host.push_screen_wait(AgentThreadScreen(child, send))
    if action == "abort":
        host.submit_text(f"/agents abort {agent_id}")


def plugin_items(cwd: Path) -> list[tuple[str, str]]:
    """The marketplaces' plugins as picker items: a heading per marketplace, then each plugin
    with its state (✓ enabled, installed) and description."""
    from pi_cli.shell import plugin_choices

    items: list[tuple[str, str]] = []
    market = None
    for choice in plugin_choices(cwd):
        name, _, where = choice.id.partition("@")
        if where != market:
            market = where
            items.append(("", f"── {where}"))
        state = "✓ enabled" if choice.enabled else "installed" if choice.installed else ""
        items.append((choice.id, f"{name:<28} {state:<10} {choice.description}"))
    return items


async def pick_plugin(host: PickerHost) -> None:
    """``/plugin``: the marketplaces' plugins; then install, enable, disable or uninstall one
    (run as ``/plugin <verb> name@marketplace``)."""
    from pi_cli.shell import plugin_choices
    from pi_cli.tui.screens.picker import PickerScreen

    assert host.shell is not None
    cwd = host.shell.cwd
    title = "Plugins (pi plugin marketplace add SOURCE adds more)"
    items = await asyncio.to_thread(plugin_items, cwd)  # a few small files: no loading state
    plugin_id = await host.push_screen_wait(PickerScreen(title, items))
    if not plugin_id:
        return
    state = next((c for c in plugin_choices(cwd) if c.id == plugin_id), None)
    if state is None or not state.installed:
        actions = [("install", "Install it (for you, in every project)")]
        actions.append(("install --scope project", "Install it for this project only"))
    else:
        toggle = ("disable", "Disable it") if state.enabled else ("enable", "Enable it")
        actions = [toggle, ("uninstall", "Uninstall it")]
    action = await host.push_screen_wait(PickerScreen(plugin_id, actions))
    if action:
        verb, _, scope = action.partition(" ")
        host.submit_text(f"/plugin {verb} {plugin_id} {scope}".rstrip())


def theme_command(host: PickerHost) -> Callable[[ShellAPI, str], Awaitable[CommandResult]]:
    """The handler of ``/theme [name]`` (registered by the TUI into the shell's commands)."""

    async def handler(shell: ShellAPI, args: str) -> CommandResult:
        if not args:
            return CommandResult(action="pick_theme", output=f"Theme: {host.theme}")
        if args not in host.pi_themes:
            themes = ", ".join(host.pi_themes)
            return CommandResult(output=f"Unknown theme {args!r}. Themes: {themes}", error=True)
        host.switch_theme(args)
        return CommandResult(output=f"Theme set to {args}")

    return handler
