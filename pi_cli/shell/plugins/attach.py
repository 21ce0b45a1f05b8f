"""Enabled plugins, built into a shell: commands, skills, agents, hooks, MCP and LSP servers.

Which plugins: every ``--plugin-dir`` of this session (the user named it: it loads wherever pi
runs), and every installed plugin ``enabledPlugins`` enables in a settings layer that applies
(the user's, a trusted project's ``.pi/settings.json`` or ``.claude/settings.json``; an
untrusted project's is dropped with the rest of its configuration and named in the trust
notice). An installed plugin is verified first (:func:`~.store.verify`): a changed copy is
refused, named, and nothing of it loads.

What a plugin brings is named as Claude Code names it: ``/plugin:command``, skills
``plugin:skill`` (``/skill:plugin:skill``, and ``/plugin:skill`` when no command has the name),
agents ``plugin:agent`` for the ``task`` tool (its bare name works when no other has it), hook
commands with ``${CLAUDE_PLUGIN_ROOT}`` (also in their environment), MCP servers as
``plugin_<plugin>_<server>``. A start reads only the install records: commands read their
file when run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pi_cli.shell.agent_tools.profiles import AgentProfile, read_profile
from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand
from pi_cli.shell.hooks import EVENTS, CommandHook, parse_hooks
from pi_cli.shell.mcp import PluginServers
from pi_cli.shell.plugins._checks import DeferredChecks, check_copy, runs_at_start
from pi_cli.shell.plugins.components import build_index
from pi_cli.shell.plugins.manifest import ROOT_VARIABLE, PluginError, expand_root
from pi_cli.shell.plugins.store import installed
from pi_cli.shell.prompt.command_files import expand_command
from pi_cli.shell.prompt.frontmatter import FrontmatterError
from pi_cli.shell.prompt.sources import Skill, SkillSet, load_template, skill_commands

if TYPE_CHECKING:
    from pi_cli.shell.plugins import PluginHost


class LoadedPlugin(NamedTuple):
    """One plugin in use: its id (``name@marketplace``, or its name for ``--plugin-dir``)."""

    id: str
    name: str
    root: Path
    content: dict[str, Any]
    """Its index (:func:`~.components.build_index`)."""
    origin: str
    record: dict[str, Any] | None = None
    """Its install record while its copy's check is pending (:mod:`._checks`)."""


def enabled_table(layers: Sequence[Any]) -> dict[str, tuple[bool, str]]:
    """``enabledPlugins`` of every applying layer, lowest first (a later layer wins)."""
    table: dict[str, tuple[bool, str]] = {}
    for layer in layers:
        value = layer.data.get("enabledPlugins")
        if isinstance(value, dict):
            for plugin_id, enabled in value.items():
                if isinstance(enabled, bool):
                    table[str(plugin_id)] = (enabled, layer.label)
    return table


def discover(shell: PluginHost) -> tuple[list[LoadedPlugin], list[str]]:
    """The plugins this shell uses, and the problems (refused, missing, unreadable)."""
    found: list[LoadedPlugin] = []
    problems: list[str] = []
    for raw in shell.options.plugin_dirs:
        root = (shell.cwd / Path(raw).expanduser()).resolve()
        try:
            index = build_index(root)
        except PluginError as exc:
            problems.append(f"--plugin-dir {raw}: {exc}")
            continue
        found.append(LoadedPlugin(index["name"], index["name"], root, index, "--plugin-dir"))
    records = installed()
    for plugin_id, (enabled, where) in enabled_table(shell.safety.loaded.layers).items():
        record = records.get(plugin_id)
        if not enabled:
            continue
        if record is None:
            problems.append(
                f"Plugin {plugin_id} is enabled in {where} but not installed "
                f"(pi plugin install {plugin_id})"
            )
            continue
        root = Path(str(record.get("path")))
        content = record.get("index")
        if not isinstance(content, dict):
            continue
        name = str(record.get("name"))
        pending: dict[str, Any] | None = record
        if runs_at_start(content):  # its code may run before any input: checked now
            changed = check_copy(plugin_id, record)
            if changed is not None:
                problems.append(changed)
                continue
            pending = None
        found.append(LoadedPlugin(plugin_id, name, root, content, where, pending))
    return _unique(found, problems), problems


def _unique(found: list[LoadedPlugin], problems: list[str]) -> list[LoadedPlugin]:
    chosen: dict[str, LoadedPlugin] = {}
    for plugin in found:
        if plugin.name in chosen:
            problems.append(
                f"Plugin {plugin.id} not loaded: {chosen[plugin.name].id} has the name {plugin.name}"
            )
            continue
        chosen[plugin.name] = plugin
    return list(chosen.values())


def _command(plugin: LoadedPlugin, entry: dict[str, Any]) -> SlashCommand:
    full = f"{plugin.name}:{entry['name']}"
    path = plugin.root / str(entry["path"])

    async def handler(shell: ShellAPI, args: str) -> CommandResult:
        try:
            template = load_template(path, "plugin", claude=True, name=full)
        except (OSError, UnicodeDecodeError, FrontmatterError) as exc:
            return CommandResult(output=f"/{full}: cannot read {path}: {exc}", error=True)
        return await expand_command(shell, full, template.body, template.spec, args)

    return SlashCommand(
        full,
        str(entry.get("description") or f"{plugin.name} command"),
        handler,
        usage=str(entry.get("argumentHint") or "[args]"),
        source=f"plugin:{plugin.name}",
    )


def _skills(plugin: LoadedPlugin) -> list[Skill]:
    return [
        Skill(
            name=f"{plugin.name}:{entry['name']}",
            description=str(entry.get("description", "")),
            path=plugin.root / str(entry["path"]),
            source=f"plugin:{plugin.name}",
            model_invocable=entry.get("modelInvocable") is not False,
        )
        for entry in plugin.content.get("skills") or []
        if isinstance(entry, dict)
    ]


def _hooks(plugin: LoadedPlugin, problems: list[str]) -> list[CommandHook]:
    config = plugin.content.get("hooks") or {}
    unknown = sorted(event for event in config if event not in EVENTS)
    if unknown:
        problems.append(f"Plugin {plugin.name}: hook events pi does not have: {', '.join(unknown)}")
    known = {event: entries for event, entries in config.items() if event in EVENTS}
    hooks, trouble = parse_hooks(expand_root(known, plugin.root), f"plugin {plugin.name}")
    problems += [f"Plugin {plugin.name}: {text}" for text in trouble]
    env = {ROOT_VARIABLE: str(plugin.root)}
    return [dataclasses.replace(hook, env=env) for hook in hooks]


class Plugins:
    """The plugins of one shell (see the module doc)."""

    def __init__(self) -> None:
        self.loaded: list[LoadedPlugin] = []
        self.problems: list[str] = []
        self.checks: DeferredChecks | None = None

    @property
    def mcp_servers(self) -> list[PluginServers]:
        """Each loaded plugin's MCP servers (read by the MCP part when it starts)."""
        return [
            PluginServers(p.name, p.content["mcpServers"], {ROOT_VARIABLE: str(p.root)})
            for p in self.loaded
            if isinstance(p.content.get("mcpServers"), dict) and p.content["mcpServers"]
        ]

    @property
    def lsp_servers(self) -> list[tuple[str, Path, dict[str, Any]]]:
        """Each loaded plugin's language servers (name, root, ``lspServers``), read by the
        language servers' door when its part is built."""
        return [
            (p.name, p.root, p.content["lspServers"])
            for p in self.loaded
            if isinstance(p.content.get("lspServers"), dict) and p.content["lspServers"]
        ]

    def load(self, shell: PluginHost) -> None:
        """Find the plugins and build them into ``shell`` (problems are notices)."""
        self.loaded, self.problems = discover(shell)
        new_agents = False
        for plugin in self.loaded:
            self.problems += [
                f"Plugin {plugin.name}: {p}" for p in plugin.content.get("problems", [])
            ]
            new_agents = self._register(shell, plugin) or new_agents
        if new_agents:
            self._task_tool(shell)
        for problem in self.problems:
            shell.notify(problem, "warning")
        pending = [p for p in self.loaded if p.record is not None]
        if self.checks is not None:
            self.checks.detach(shell)
        self.checks = DeferredChecks(self, pending).attach(shell) if pending else None

    def _register(self, shell: PluginHost, plugin: LoadedPlugin) -> bool:
        commands = shell.commands
        for entry in plugin.content.get("commands") or []:
            command = _command(plugin, entry)
            if commands.get(command.name) is not None:
                self.problems.append(f"Plugin {plugin.name}: /{command.name} is taken; skipped")
                continue
            commands.register(command)
        skills = _skills(plugin)
        shell.sources.skills.skills.extend(skills)
        for command in skill_commands(SkillSet(skills)):
            commands.register(dataclasses.replace(command, source=f"plugin:{plugin.name}"))
            short = command.name.removeprefix("skill:")
            if commands.get(short) is None:
                commands.register(
                    dataclasses.replace(command, name=short, source=f"plugin:{plugin.name}")
                )
        hooks = _hooks(plugin, self.problems)
        if hooks:
            shell.hooks.command_hooks.extend(hooks)
            if shell.hooks.transform_input not in shell.input_transforms:
                shell.input_transforms.append(shell.hooks.transform_input)
        return self._agents(shell, plugin)

    def _agents(self, shell: PluginHost, plugin: LoadedPlugin) -> bool:
        """Add the plugin's agents (from its index; an old index: from its files); any new."""
        profiles = []
        source = f"plugin:{plugin.name}"
        for entry in plugin.content.get("agents") or []:
            name = f"{plugin.name}:{entry['name']}"
            if isinstance(entry.get("prompt"), str):
                tools = entry.get("tools")
                profiles.append(
                    AgentProfile(
                        name,
                        str(entry.get("description", "")),
                        entry["prompt"],
                        plugin.root / str(entry["path"]),
                        source,
                        [str(t) for t in tools] if isinstance(tools, list) else None,
                        str(entry["model"]) if entry.get("model") else None,
                    )
                )
                continue
            profile = read_profile(plugin.root / str(entry["path"]), "plugin", self.problems)
            if profile is not None:
                profiles.append(dataclasses.replace(profile, name=name, source=source))
        return shell.agent_tools.add_profiles(profiles)

    def _task_tool(self, shell: PluginHost) -> None:
        """The ``task`` tool made again, listing the agents as they are now."""
        if any(t.name == "task" for t in shell.tools):
            from tools import create_task_tool

            infos = shell.agent_tools.services().agent_profiles
            shell.replace_tool(create_task_tool(shell.cwd, infos, shell.agent_tools.runner))

    def drop(self, shell: PluginHost, name: str) -> None:
        """Take one plugin out of ``shell`` (refused after its check)."""
        source = f"plugin:{name}"
        for key, command in list(shell.commands.commands.items()):
            if command.source == source:
                shell.commands.commands.pop(key, None)
        skills = shell.sources.skills.skills
        skills[:] = [s for s in skills if s.source != source]
        shell.agent_tools.remove_profiles(
            {p.name for p in shell.agent_tools.profiles if p.source == source}
        )
        self._task_tool(shell)
        self.loaded = [p for p in self.loaded if p.name != name]

    def unload(self, shell: PluginHost) -> None:
        """Take what the plugins registered out of ``shell`` (before loading them again)."""
        for name, command in list(shell.commands.commands.items()):
            if command.source.startswith("plugin:"):
                shell.commands.commands.pop(name, None)
        shell.hooks.command_hooks[:] = [
            h for h in shell.hooks.command_hooks if not h.source.startswith("plugin ")
        ]
        skills = shell.sources.skills.skills
        skills[:] = [s for s in skills if not s.source.startswith("plugin:")]
        self.loaded = []

    def reload(self, shell: PluginHost) -> list[str]:
        """``/reload``: read the enabled plugins again; one line saying what is loaded."""
        self.unload(shell)
        self.load(shell)
        names = ", ".join(p.name for p in self.loaded) or "none"
        return [f"plugins: {names}"]
