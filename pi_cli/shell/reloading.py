"""``/reload``: read again what pi read at start, without restarting or losing the session.

In order: settings (in place: every part holding them sees the new values) and the folder's
trust (a trusted folder whose configuration changed is asked again where someone can answer, else
its configuration stops applying); permission rules (the answers "for this session" stay) and
hooks; context files, skills and prompt templates (their commands); agent profiles (the ``task``
tool); then each reloader registered in ``shell.reloaders`` (Claude Code plugins hook in here);
then extensions, loaded afresh (the old ones are told ``session_shutdown`` with reason
``reload`` and dropped; the new ones get ``session_start`` with reason ``reload``); last the
system prompt. A :class:`~pi_cli.shell.events.Reloaded` event says what was read.

Under a live run (or compaction) the reload waits until the shell is idle: a run keeps the
tools, hooks and extensions it started with, and nothing it uses is swapped under it. The
conversation, the session file, the model, the permission mode and the queue are untouched.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand

if TYPE_CHECKING:
    from agent_core import Tool
    from pi_cli.shell.agent_tools import AgentTools
    from pi_cli.shell.commands import SlashCommandRegistry
    from pi_cli.shell.context import ShellContext
    from pi_cli.shell.dialogs import DialogBroker
    from pi_cli.shell.extensions.shell import ShellExtensions
    from pi_cli.shell.hooks import HookManager
    from pi_cli.shell.input_policy import InputPolicy
    from pi_cli.shell.models.setup import ModelResolver
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.prompt.sources import PromptSources
    from pi_cli.shell.safety import Safety

    class ReloadHost(ShellContext, Protocol):
        """The shell as ``/reload`` re-reads it (the CodingAgent satisfies it)."""

        options: ShellOptions
        sources: PromptSources
        extensions: ShellExtensions | None
        reloaders: list[Reloader]

        @property
        def safety(self) -> Safety: ...
        @property
        def hooks(self) -> HookManager: ...
        @property
        def input_transforms(self) -> list[Any]: ...
        @property
        def run_preparers(self) -> list[Any]: ...
        @property
        def commands(self) -> SlashCommandRegistry: ...
        @property
        def agent_tools(self) -> AgentTools: ...
        @property
        def models(self) -> ModelResolver: ...
        @property
        def policy(self) -> InputPolicy: ...
        @property
        def dialogs(self) -> DialogBroker: ...
        @property
        def messages(self) -> Sequence[Any]: ...
        @property
        def model_id(self) -> str: ...
        @property
        def thinking(self) -> str: ...
        def replace_tool(self, tool: Tool) -> None: ...
        def rebuild_system_prompt(self) -> None: ...
        async def wait_idle(self) -> None: ...
        def subscribe(self, listener: Any) -> Any: ...
        def abort(self) -> None: ...
        def context_usage(self) -> tuple[int, int]: ...
        def submit(self, text: str, intent: Any = "auto") -> Any: ...


Reloader = Callable[["ReloadHost"], "list[str] | Awaitable[list[str]]"]
"""Re-reads one part of a shell; returns what to tell the user (one line each, maybe none)."""


async def reload_shell(shell: ReloadHost) -> list[str]:
    """Re-read everything (see the module doc); what was read, one line each. Call when idle."""
    from pi_cli.shell.events import Reloaded

    lines: list[str] = []
    lines += _settings_and_trust(shell)
    lines += _prompt_sources(shell)
    lines += _profiles(shell)
    for reloader in list(shell.reloaders):
        result = reloader(shell)
        lines += await result if inspect.isawaitable(result) else result
    lines += await _extensions(shell)
    shell.rebuild_system_prompt()
    shell.emit(Reloaded(what=lines))
    return lines


def _settings_and_trust(shell: ReloadHost) -> list[str]:
    from pi_cli.shell.config.layers import load_layered
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.config.trust import check_trust, untrusted_notice
    from pi_cli.shell.hooks import HookManager
    from pi_cli.shell.permissions.setup import build_rules

    safety, options = shell.safety, shell.options
    if options.settings is None:  # injected settings (tests, embedders) are not files
        check = check_trust(shell.cwd)
        trusted = check.trusted(options.trust)
        if safety.trusted and not trusted and check.items:
            shell.notify(untrusted_notice(check), "warning")
        safety.trust, safety.trusted = check, trusted
    loaded = load_layered(shell.cwd, safety.trusted, options.settings)
    for problem in loaded.problems:
        shell.notify(problem, "warning")
    for name in Settings.field_names():
        setattr(shell.settings, name, getattr(loaded.settings, name))
    safety.loaded = loaded
    rules, problems = build_rules(loaded.layers, options, shell.cwd)
    for problem in problems:
        shell.notify(problem, "warning")
    rules.session = safety.engine.rules.session  # "allow for this session" answers stay
    safety.engine.rules = rules
    fresh = HookManager.load(shell, include_project=safety.trusted, env=safety.tools_env)
    shell.hooks.python_hooks, shell.hooks.command_hooks = fresh.python_hooks, fresh.command_hooks
    transform = shell.hooks.transform_input
    if shell.hooks.python_hooks or shell.hooks.command_hooks:
        if transform not in shell.input_transforms:
            shell.input_transforms.append(transform)
    elif transform in shell.input_transforms:
        shell.input_transforms.remove(transform)
    trust = "trusted" if safety.trusted else "not trusted"
    hooks = len(fresh.python_hooks) + len(fresh.command_hooks)
    return [f"settings ({len(loaded.layers)} files, folder {trust}), {hooks} hooks"]


def _prompt_sources(shell: ReloadHost) -> list[str]:
    from pi_cli.shell.prompt.sources import PromptSources

    for name, command in list(shell.commands.commands.items()):
        if command.source == "skill" or command.source.startswith("template:"):
            shell.commands.unregister(name)
    sources = PromptSources.of(shell)
    shell.sources = sources
    sources.register(shell.commands)
    for problem in sources.problems:
        shell.notify(problem, "warning")
    return [
        f"{len(sources.context_files)} context files, {len(sources.skills)} skills, "
        f"{len(sources.templates)} prompt templates"
    ]


def _profiles(shell: ReloadHost) -> list[str]:
    from pi_cli.shell.agent_tools.profiles import load_profiles
    from tools import create_task_tool

    profiles, problems = load_profiles(shell.cwd, shell.safety.trusted)
    for problem in problems:
        shell.notify(problem, "warning")
    shell.agent_tools.profiles[:] = profiles  # the sub-agent runner holds this list
    if any(tool.name == "task" for tool in shell.tools):
        infos = shell.agent_tools.services().agent_profiles
        shell.replace_tool(create_task_tool(shell.cwd, infos, shell.agent_tools.runner))
    return [f"{len(profiles)} agent profiles"]


async def _extensions(shell: ReloadHost) -> list[str]:
    from pi_cli.shell.extension_setup import attach_extensions

    if shell.extensions is not None:
        await shell.extensions.detach()
    shell.extensions = attach_extensions(shell, shell.models, shell.safety.trusted, fresh=True)
    if shell.extensions is None:
        return ["no extensions"]
    await shell.extensions.dispatcher.start("reload")
    live = [ext.name for ext in shell.extensions.runtime if ext.state == "live"]
    broken = [ext.name for ext in shell.extensions.runtime if not ext.usable]
    line = f"extensions: {', '.join(live) or 'none loaded'}"
    return [line + (f" (not loaded: {', '.join(broken)})" if broken else "")]


async def _reload_when_idle(shell: ReloadHost) -> None:
    while True:
        await shell.wait_idle()
        if not shell.busy:
            break
    task = shell.policy.begin("command", lambda: _reload_and_say(shell))
    await task


async def _reload_and_say(shell: ReloadHost) -> None:
    try:
        lines = await reload_shell(shell)
    except Exception as exc:  # noqa: BLE001 - a reload that fails leaves the session usable
        shell.notify(f"Reload failed: {type(exc).__name__}: {exc}", "error")
        return
    shell.notify("Reloaded: " + "; ".join(lines))


_PENDING: set[asyncio.Task[None]] = set()


async def reload_command(api: ShellAPI, args: str) -> CommandResult:
    """``/reload``: now when idle, else once the live run has ended."""
    shell: ReloadHost = api  # type: ignore[assignment]  # the CodingAgent, a ShellAPI too
    if shell.policy.busy_elsewhere():
        task = asyncio.ensure_future(_reload_when_idle(shell))
        _PENDING.add(task)
        task.add_done_callback(_PENDING.discard)
        return CommandResult(output="Reload deferred: it runs when the current run ends.")
    try:
        lines = await reload_shell(shell)
    except Exception as exc:  # noqa: BLE001 - a reload that fails leaves the session usable
        return CommandResult(output=f"Reload failed: {type(exc).__name__}: {exc}", error=True)
    return CommandResult(output="Reloaded: " + "; ".join(lines))


def reload_commands() -> list[SlashCommand]:
    """``/reload``."""
    return [
        SlashCommand(
            "reload",
            "Re-read extensions, skills, prompt templates, agent profiles, commands, settings and "
            "context files (deferred until a live run ends)",
            reload_command,
            while_running=True,
        )
    ]
