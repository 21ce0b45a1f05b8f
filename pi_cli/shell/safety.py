"""Trust, layered settings, keys and permissions of one shell, built in one place.

The CodingAgent builds one :class:`Safety` first: whether the folder is trusted decides which
settings, hooks and credentials apply; the keys found decide what tools may see.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.shell.config.layers import add_permission_rule, load_layered
from pi_cli.shell.config.secrets import (
    KeyFileError,
    api_key_option,
    key_names,
    provider_env,
    tool_environment,
)
from pi_cli.shell.config.trust import (
    TrustCheck,
    check_trust,
    record_trust,
    refresh_digest,
    untrusted_notice,
)
from pi_cli.shell.models.setup import ConfigError
from pi_cli.shell.paths import pi_home, project_dir
from pi_cli.shell.permissions.approvals import ApprovalBroker
from pi_cli.shell.permissions.engine import PermissionEngine
from pi_cli.shell.permissions.gate import ToolGate
from pi_cli.shell.permissions.git_readonly import repo_has_filters
from pi_cli.shell.permissions.modes import ModeError
from pi_cli.shell.permissions.rules import parse_rule
from pi_cli.shell.permissions.setup import build_mode, build_rules, bypass_disabled, extra_dirs
from pi_cli.shell.permissions.workspace import Workspace

if TYPE_CHECKING:
    from agent_core import Tool
    from pi_cli.shell.compaction import Compactor
    from pi_cli.shell.context import Level, ShellContext
    from pi_cli.shell.events.bus import EventBus
    from pi_cli.shell.hooks import HookManager
    from pi_cli.shell.options import ShellOptions
    from tools.safe_files import CheckedPaths

    class WiredShell(ShellContext, Protocol):
        """The shell its hooks and permission gate are wired into."""

        @property
        def events(self) -> EventBus: ...
        @property
        def compactor(self) -> Compactor: ...
        def describe_call(self, tool_name: str, args: object) -> str: ...
        def sandbox_active(self) -> bool: ...


Notify = Callable[[str, "Level"], None]


class Safety:
    """What one shell may run, read and send, and with which keys."""

    def __init__(self, options: ShellOptions, cwd: Path, notify: Notify) -> None:
        self.options = options
        self.cwd = cwd
        self.notify = notify
        injected = options.settings is not None
        self.trust: TrustCheck | None = None if injected else check_trust(cwd)
        self.trusted = True if self.trust is None else self.trust.trusted(options.trust)
        self.loaded = load_layered(cwd, self.trusted, options.settings)
        self.settings = self.loaded.settings
        for problem in self.loaded.problems:
            notify(problem, "warning")
        if self.trust is not None and not self.trusted and self.trust.items:
            notify(untrusted_notice(self.trust), "warning")
        warnings: list[str] = []
        try:
            options.api_key = api_key_option(options.api_key, options.api_key_file, warnings)
        except KeyFileError as exc:
            raise ConfigError(str(exc)) from None
        self._provider_env = provider_env(warnings)
        for warning in warnings:
            notify(warning, "warning")
        held = [self._provider_env[n] for n in key_names() if self._provider_env.get(n)]
        self.secrets = [*held, *([options.api_key] if options.api_key else [])]
        self.tool_env = tool_environment(
            self.settings.tool_env.inherit_secrets, secrets=self.secrets
        )
        self._git_filters: dict[tuple[Path, float], bool] = {}

    def provider_env(self) -> dict[str, str]:
        """The environment keys are resolved from (held keys included)."""
        return dict(self._provider_env)

    def tools_env(self) -> Mapping[str, str]:
        """The environment tools and command hooks run with (no keys)."""
        return self.tool_env

    def wire(self, shell: WiredShell, mode: Callable[[], str]) -> tuple[HookManager, ToolGate]:
        """Load ``shell``'s hooks (project ones only if trusted) and put the permission gate
        into its agent; returns (hooks, gate). ``mode``: the permission mode when a hook asks
        (the permission control is built after the gate)."""
        from pi_cli.shell.hooks import HookManager
        from pi_cli.shell.hooks.lifecycle import run_pre_compact

        hooks = HookManager.load(shell, include_project=self.trusted, env=self.tools_env, mode=mode)
        hooks.attach(shell.agent)
        gate = self.build_permissions(
            shell.tools,
            hooks,
            describe=shell.describe_call,
            emit=shell.emit,
            warn_once=shell.events.warn_once,
            sandbox_active=lambda: shell.sandbox_active(),
        )
        shell.agent.before_tool_call = gate.before_tool_call
        shell.agent.after_tool_call = gate.after_tool_call
        shell.compactor.before_compact = lambda trigger, text: run_pre_compact(hooks, trigger, text)
        return hooks, gate

    def build_permissions(
        self,
        tools: list[Tool],
        hooks: HookManager | None,
        *,
        describe: Callable[[str, Any], str],
        emit: Callable[[Any], None],
        warn_once: Notify,
        sandbox_active: Callable[[], bool],
    ) -> ToolGate:
        """The permission engine, approval broker and gate (raises ConfigError on a bad mode)."""
        layers = self.loaded.layers
        rules, problems = build_rules(layers, self.options, self.cwd)
        try:
            mode, mode_problems = build_mode(layers, self.options, self.trusted)
        except ModeError as exc:
            raise ConfigError(str(exc)) from None
        for problem in [*problems, *mode_problems]:
            self.notify(problem, "warning")
        own = frozenset(t.name for t in tools) if self.options.tool_objects is None else frozenset()

        def find(name: str) -> Tool | None:  # live: MCP tools join ``tools`` later
            return next((tool for tool in tools if tool.name == name), None)

        engine = PermissionEngine(
            Workspace(self.cwd, extra_dirs(layers, self.options, self.cwd)),
            rules,
            mode,
            sandbox_active=sandbox_active,
            builtin=own,
            effects_of=lambda name, args: tool.file_effects(args) if (tool := find(name)) else [],
            read_only=lambda name: getattr(find(name), "read_only", False) is True,
            search_path=self.tool_env.get("PATH"),
            git_filters=self._has_git_filters,
        )
        broker = ApprovalBroker(
            emit, self.options.approvals, self.settings.permissions.approval_timeout_s
        )

        def own_preview(name: str, args: dict[str, Any]) -> str | None:
            method = getattr(find(name), "approval_preview", None)  # a tool's own, optional
            return method(args) if callable(method) else None

        gate = ToolGate(
            engine,
            broker,
            hooks,
            describe,
            self.cwd,
            self.notify,
            warn_once,
            self.save_rule,
            emit,
            checked_paths_of=lambda name: _checked_paths(find(name)),
            refusal_of=lambda name, args: _refusal(find(name), args),
            own_preview=own_preview,
        )
        engine.bypass_disabled_by = bypass_disabled(layers)
        self.engine = engine
        return gate

    def _has_git_filters(self, path: Path) -> bool:
        config = path / ".git" / "config"
        try:
            stamp = config.stat().st_mtime
        except OSError:
            stamp = 0.0
        key = (path, stamp)
        if key not in self._git_filters:
            self._git_filters[key] = repo_has_filters(path, dict(self.tool_env))
        return self._git_filters[key]

    def save_rule(self, scope: str, texts: list[str]) -> str | None:
        """ "Always": write allow rules to the project or user settings (a warning, or None)."""
        project = scope == "project"
        path = project_dir(self.cwd) / "settings.json" if project else pi_home() / "settings.json"
        fresh = not path.parent.exists()
        try:
            for text in texts:
                add_permission_rule(path, "allow", text)
        except (OSError, ValueError) as exc:
            return f"Could not save the rule to {path}: {exc}"
        if fresh:  # pi made .pi itself: the sandbox's watch leaves it in the project
            from tools.safe_files import note_created

            note_created(path.parent.resolve())
        label = ".pi/settings.json" if project else str(path)
        base = self.cwd if project else path.parent.parent
        self.engine.rules.allow.extend(parse_rule(t, label, base) for t in texts)
        if project and not self.trusted and self.trust is not None and not self.trust.items:
            record_trust(self.cwd, True)  # its only configuration is what the user just saved
            self.trusted = True
        elif project and self.trusted:
            refresh_digest(self.cwd)
        elif project:
            return (
                f"Saved to {label}, but this folder is not trusted, so its allow rules apply only "
                "in this session. Trust it with `pi trust`."
            )
        self.notify(f"Saved {', '.join(texts)} to {label}.", "info")
        return None


def _checked_paths(tool: Tool | None) -> CheckedPaths | None:
    """The record of decided paths of pi's file tools (read, edit, write and their ACP twins)."""
    from tools.safe_files import CheckedPaths

    checked = getattr(tool, "checked_paths", None)
    return checked if isinstance(checked, CheckedPaths) else None


def _refusal(tool: Tool | None, args: dict[str, Any]) -> str | None:
    """The tool's own ``refusal`` of a call (an optional member of the Tool protocol)."""
    refusal = getattr(tool, "refusal", None)
    if refusal is None:
        return None
    try:
        reason = refusal(args)
    except Exception:  # noqa: BLE001 - a broken check refuses nothing; execute still checks
        return None
    return reason if isinstance(reason, str) and reason else None
