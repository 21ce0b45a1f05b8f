"""The shell's front door: what front ends (modes, TUI, server, CLI commands) import.

The CodingAgent shell is shared by every front end. Front ends import from here (and from the
few subpackage APIs listed in ``.importlinter-cli``: :mod:`.permissions`, :mod:`.checkpoints`,
:mod:`.export_html`), never from the shell's modules: an import-linter contract in ``make lint``
holds that line. Names load lazily on first use, as ``textual.widgets`` does, so importing this
package costs nothing at start-up; the ``TYPE_CHECKING`` block gives type checkers the same
names, and :mod:`pi_cli.shell._exports` where each lives (``tests/shell/test_front_door.py``
checks the lists agree)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.shell.agent_tools import (
        AgentError,
        BackgroundChild,
        agent_status_line,
        agent_thread_text,
    )
    from pi_cli.shell.agent_tools.summaries import shown_result, subagent_summary
    from pi_cli.shell.bash.commands import shell_line, shell_output
    from pi_cli.shell.bash.user import UserBashError
    from pi_cli.shell.builtin_commands import THINKING_LEVELS
    from pi_cli.shell.checkpoints.commands import describe_rewind, format_points, resolve_point
    from pi_cli.shell.checkpoints.prune import delete_session
    from pi_cli.shell.checkpoints.replay import ReplayReport, make_scratch, recorded, replay
    from pi_cli.shell.checkpoints.restore import Restored
    from pi_cli.shell.checkpoints.rewind import (
        NeedsConfirmation,
        RewindError,
        RewindPlan,
        RewindPoint,
        RewindResult,
    )
    from pi_cli.shell.checkpoints.snapshot import FileStat
    from pi_cli.shell.coding_agent import CodingAgent
    from pi_cli.shell.commands import (
        CommandResult,
        PickAction,
        ShellAPI,
        SlashCommand,
        SlashCommandRegistry,
        UnknownCommand,
        parse_command_line,
    )
    from pi_cli.shell.compaction import CompactionError
    from pi_cli.shell.compaction.branch_summary import abandoned
    from pi_cli.shell.config.auth import AuthError, AuthStore
    from pi_cli.shell.config.oauth import OAUTH_PROVIDERS, device_login, pkce_login
    from pi_cli.shell.config.settings import (
        Settings,
        SettingsError,
        load_settings,
        save_global_setting,
    )
    from pi_cli.shell.config.trust import (
        TrustCheck,
        check_trust,
        forget_trust,
        record_trust,
        refresh_digest,
        trusted_folders,
    )
    from pi_cli.shell.dialogs import DialogAnswer, DialogBroker
    from pi_cli.shell.events import (
        AutoRetryEnd,
        AutoRetryStart,
        BackgroundShellsChanged,
        CompactionEnd,
        CompactionStart,
        Listener,
        McpStatusChanged,
        ModelChanged,
        Notice,
        OwnEvent,
        PermissionModeChanged,
        PermissionRequested,
        PermissionResolved,
        QueueChanged,
        QueueReturned,
        Reloaded,
        SessionChanged,
        ShellEvent,
        ShellState,
        ShellStateChanged,
    )
    from pi_cli.shell.events.agent_tools import (
        AgentToolEvent,
        BackgroundAgentChanged,
        BackgroundAgentInfo,
        BudgetExceeded,
        StructuredOutput,
        SubagentEnded,
        SubagentEvent,
        SubagentStarted,
        TodoUpdated,
    )
    from pi_cli.shell.events.dialogs import (
        CustomMessageShown,
        DialogKind,
        DialogOption,
        DialogRequested,
        DialogResolved,
        MessageView,
        UiChanged,
        UiSlot,
    )
    from pi_cli.shell.events.long_running import (
        GoalChanged,
        GoalChecked,
        MonitorDelivered,
        ScheduleFired,
        SchedulesChanged,
    )
    from pi_cli.shell.events.lsp import DiagnosticsReported, LspStatusChanged
    from pi_cli.shell.export_html import ExportError, default_export_path, export_session
    from pi_cli.shell.extension_sources import cached_flags, split_flags
    from pi_cli.shell.front import BackgroundShellView, FrontShell, QueueView
    from pi_cli.shell.importing import TranscriptImportError, import_words
    from pi_cli.shell.input_policy import Intent
    from pi_cli.shell.input_queue import InputQueue, QueuedInput, QueueError
    from pi_cli.shell.models.choices import model_rows
    from pi_cli.shell.models.local import (
        detect_local_servers,
        probe_local_servers,
        probe_targets,
        probing_disabled,
    )
    from pi_cli.shell.models.served import ServedModels, ServedSource, served_models, served_sources
    from pi_cli.shell.models.setup import ConfigError, models_file
    from pi_cli.shell.models.usage import (
        SessionUsage,
        cache_hit_rate,
        context_tokens,
        format_cost,
        short_tokens,
    )
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.packages.commands import PackageError, package_accepts, package_words
    from pi_cli.shell.packages.lock import package_paths
    from pi_cli.shell.paths import editor_command, pi_home, pi_ts_home, sessions_dir
    from pi_cli.shell.permissions.approvals import ApprovalAnswer
    from pi_cli.shell.permissions.modes import MODE_DESCRIPTIONS, MODES
    from pi_cli.shell.plugins.commands import PLUGIN_VERBS, plugin_choices, plugin_words
    from pi_cli.shell.plugins.manifest import PluginError
    from pi_cli.shell.prompt.images import ImageError, load_image, looks_like_image
    from pi_cli.shell.reports.context import context_report
    from pi_cli.shell.reports.quitting import quit_report
    from pi_cli.shell.review.hunks import DiffFile
    from pi_cli.shell.review.main import ReviewCli
    from pi_cli.shell.review.session_changes import (
        ChangeSet,
        change_sets,
        change_sets_of_json,
        diff_json,
        diff_text,
        revert_session_file,
        session_changes,
    )
    from pi_cli.shell.schedules import ScheduleError
    from pi_cli.shell.session.bash_messages import BashExecutionMessage, bash_message_from_wire
    from pi_cli.shell.session.branching import fork_before, fork_points
    from pi_cli.shell.session.files import find_latest_session, resolve_session
    from pi_cli.shell.session.listing import SessionInfo, list_sessions, rename_session
    from pi_cli.shell.session.names import session_name, set_session_name
    from pi_cli.shell.session.skill_text import skill_call_of
    from pi_cli.shell.session.store import SessionError, SessionStore, compaction_summary_of
    from pi_cli.shell.session.tree import TreeEntry, text_of
    from pi_cli.shell.status_line import StatusLine, strip_sgr
    from pi_cli.shell.text.redaction import REDACTOR, redact
    from pi_cli.shell.text.terminal import clean, json_text, one_line, say, write_all
    from pi_cli.shell.wire.jsonl import dumps_line
    from pi_cli.shell.wire.jsonrpc import check_frame, encode, valid_id
    from pi_cli.shell.worktrees import (
        Worktree,
        WorktreeError,
        create_worktree,
        find_worktree,
        list_worktrees,
        remove_worktree,
        valid_name,
    )

__all__ = [
    "ChangeSet",
    "DiffFile",
    "change_sets",
    "change_sets_of_json",
    "diff_json",
    "diff_text",
    "revert_session_file",
    "session_changes",
    "ReviewCli",
    "abandoned",
    "AgentToolEvent",
    "ApprovalAnswer",
    "AuthError",
    "AuthStore",
    "AutoRetryEnd",
    "AutoRetryStart",
    "BackgroundShellsChanged",
    "BashExecutionMessage",
    "BudgetExceeded",
    "cache_hit_rate",
    "GoalChanged",
    "GoalChecked",
    "ScheduleFired",
    "SchedulesChanged",
    "MonitorDelivered",
    "ScheduleError",
    "check_frame",
    "check_trust",
    "clean",
    "CodingAgent",
    "CommandResult",
    "compaction_summary_of",
    "context_report",
    "quit_report",
    "CompactionEnd",
    "CompactionError",
    "CompactionStart",
    "ConfigError",
    "default_export_path",
    "delete_session",
    "DialogAnswer",
    "DialogBroker",
    "DialogKind",
    "DialogOption",
    "DialogRequested",
    "DialogResolved",
    "describe_rewind",
    "detect_local_servers",
    "device_login",
    "dumps_line",
    "editor_command",
    "encode",
    "export_session",
    "ExportError",
    "find_latest_session",
    "forget_trust",
    "fork_before",
    "fork_points",
    "format_cost",
    "subagent_summary",
    "shown_result",
    "format_points",
    "ImageError",
    "InputQueue",
    "Intent",
    "list_sessions",
    "Listener",
    "load_image",
    "load_settings",
    "looks_like_image",
    "make_scratch",
    "McpStatusChanged",
    "LspStatusChanged",
    "DiagnosticsReported",
    "MODE_DESCRIPTIONS",
    "models_file",
    "model_rows",
    "served_models",
    "served_sources",
    "StatusLine",
    "strip_sgr",
    "ServedModels",
    "ServedSource",
    "ModelChanged",
    "MODES",
    "NeedsConfirmation",
    "Notice",
    "OAUTH_PROVIDERS",
    "OwnEvent",
    "parse_command_line",
    "PermissionModeChanged",
    "PermissionRequested",
    "PermissionResolved",
    "pi_home",
    "pi_ts_home",
    "cached_flags",
    "split_flags",
    "PickAction",
    "pkce_login",
    "probe_local_servers",
    "probe_targets",
    "probing_disabled",
    "QueueChanged",
    "QueuedInput",
    "QueueError",
    "QueueReturned",
    "record_trust",
    "recorded",
    "redact",
    "REDACTOR",
    "refresh_digest",
    "Reloaded",
    "rename_session",
    "replay",
    "ReplayReport",
    "resolve_point",
    "resolve_session",
    "RewindError",
    "RewindPlan",
    "RewindPoint",
    "RewindResult",
    "save_global_setting",
    "session_name",
    "PLUGIN_VERBS",
    "plugin_choices",
    "plugin_words",
    "PluginError",
    "package_accepts",
    "package_words",
    "package_paths",
    "PackageError",
    "TranscriptImportError",
    "import_words",
    "SessionChanged",
    "SessionError",
    "SessionInfo",
    "sessions_dir",
    "SessionStore",
    "SessionUsage",
    "set_session_name",
    "Settings",
    "SettingsError",
    "shell_line",
    "shell_output",
    "ShellAPI",
    "ShellEvent",
    "ShellOptions",
    "ShellState",
    "ShellStateChanged",
    "short_tokens",
    "skill_call_of",
    "SlashCommand",
    "StructuredOutput",
    "SubagentEnded",
    "BackgroundAgentChanged",
    "BackgroundAgentInfo",
    "agent_status_line",
    "Worktree",
    "WorktreeError",
    "create_worktree",
    "find_worktree",
    "list_worktrees",
    "remove_worktree",
    "valid_name",
    "agent_thread_text",
    "BackgroundChild",
    "AgentError",
    "SubagentEvent",
    "SubagentStarted",
    "text_of",
    "THINKING_LEVELS",
    "TodoUpdated",
    "TrustCheck",
    "UiChanged",
    "CustomMessageShown",
    "MessageView",
    "UiSlot",
    "trusted_folders",
    "UnknownCommand",
    "UserBashError",
    "valid_id",
    "one_line",
    "say",
    "write_all",
    "json_text",
    "FrontShell",
    "BackgroundShellView",
    "context_tokens",
    "TreeEntry",
    "bash_message_from_wire",
    "SlashCommandRegistry",
    "FileStat",
    "Restored",
    "QueueView",
]


def __getattr__(name: str) -> object:
    """Import the module defining ``name`` on first use and keep the value here."""
    from pi_cli.shell._exports import EXPORTS  # the table loads with the first name used

    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    from pi_cli.shell._exports import EXPORTS

    return sorted([*globals(), *EXPORTS])
