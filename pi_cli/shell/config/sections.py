"""The sections of the settings (``compaction``, ``sandbox``, ...): one pydantic model each.

Every field has a description: ``docs/settings.md`` is generated from them
(``python scripts/gen_settings_doc.py``), so the reference cannot drift from the code.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class SettingsSection(BaseModel):
    """A settings object: camelCase keys as users write them, unknown keys ignored."""

    # Built on first validation: with no settings file nothing validates (settings.defaults).
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="ignore", defer_build=True
    )


class CompactionSettings(SettingsSection):
    """When and how to compact the context."""

    enabled: bool = Field(
        default=True, description="Compact automatically when the context nears its limit."
    )
    reserve_tokens: int = Field(
        default=16384,
        ge=0,
        description="Compact after a run once the context exceeds the window minus this many tokens.",
    )
    keep_recent_tokens: int = Field(
        default=20000,
        ge=0,
        description="How many tokens of the newest messages a compaction keeps verbatim.",
    )
    context_budget: int | None = Field(
        default=None,
        ge=1000,
        description="A context window smaller than the model's to compact against (unset: the model's).",
    )


class StatusLineSettings(SettingsSection):
    """Claude Code's ``statusLine``: a command whose first line of output is shown."""

    type: Literal["command"] = Field(default="command", description="Only `command` exists.")
    command: str = Field(
        description="Run with `sh -c` in the project folder, the session as JSON on its stdin "
        "(Claude Code's fields); its first line of stdout is shown in the footer (TUI) or the "
        "toolbar (plain REPL)."
    )
    padding: int = Field(default=0, ge=0, le=20, description="Spaces before the text.")
    timeout_ms: int = Field(
        default=2000,
        ge=100,
        le=30000,
        description="A run still going after this is killed with its process group.",
    )


class RetrySettings(SettingsSection):
    """Automatic retries of transient provider errors."""

    enabled: bool = Field(
        default=True,
        description="Retry transient provider errors (HTTP 429 and 5xx, overload, stalls).",
    )
    max_retries: int = Field(default=3, ge=0, le=10, description="Retries after the first attempt.")
    base_delay_ms: int = Field(
        default=2000,
        ge=0,
        description="Delay before the first retry; it doubles for each later one (a delay "
        "over 60 s fails at once instead).",
    )


class TimeoutSettings(SettingsSection):
    """How long a model response may stay silent (seconds; 0 = no limit).

    ``first_byte_s``: before its first byte (unset: 600, none for a local server);
    ``idle_s``: between two bytes once it has begun. Either one failing is retried.
    """

    first_byte_s: float | None = Field(
        default=None,
        ge=0,
        description="Wait for a response's first byte (unset: 600 s, no limit for a local server).",
    )
    idle_s: float = Field(
        default=120.0,
        ge=0,
        description="Silence allowed between two bytes once a response has begun.",
    )


class PermissionSettings(SettingsSection):
    """``permissions``: rules in Claude Code's syntax, the mode, extra directories, timeouts."""

    default_mode: str | None = Field(
        default=None,
        description="The permission mode: `auto` (unset), `default`, `acceptEdits`, `plan`, "
        "`dontAsk` or `bypassPermissions`.",
    )
    allow: list[str] = Field(
        default_factory=list, description="Rules for calls that run without asking."
    )
    ask: list[str] = Field(default_factory=list, description="Rules for calls that always ask.")
    deny: list[str] = Field(
        default_factory=list,
        description="Rules for calls that never run (deny beats ask and allow).",
    )
    additional_directories: list[str] = Field(
        default_factory=list,
        description="More directories of the workspace, like `--add-dir`.",
    )
    approval_timeout_s: float = Field(
        default=120.0,
        gt=0,
        description="An approval question unanswered this long (seconds) denies the call.",
    )
    disable_bypass_permissions_mode: str | None = Field(
        default=None,
        description="`\"disable\"` (Claude Code's key, in any settings file, a project's too): "
        "`--dangerously-skip-permissions`, `--permission-mode bypassPermissions` and switching "
        "to `bypassPermissions` (yolo) are refused with an error.",
    )


class ToolEnvSettings(SettingsSection):
    """``toolEnv``: the environment tools run with."""

    inherit_secrets: bool = Field(
        default=False,
        description="Give tools the provider keys pi removes from their environment.",
    )


class SandboxSettings(SettingsSection):
    """Where bash commands run (see docs/sandbox.md)."""

    mode: Literal["auto", "required", "off"] = Field(
        default="auto",
        description="`auto`: sandbox where it works; `required`: bash refuses to run without it; "
        "`off`. `PI_SANDBOX_MODE` overrides it.",
    )
    network: bool = Field(default=False, description="Let sandboxed commands reach the network.")
    writable: list[str] = Field(
        default_factory=list,
        description="More directories writable inside the sandbox (relative to the working "
        "directory; `~` expands).",
    )


class CheckpointSettings(SettingsSection):
    """Code snapshots in a shadow git repository under ``PI_HOME`` (see ``/rewind``).

    A file over ``max_file_bytes`` is left out of snapshots (and never touched by a restore);
    a snapshot adding more than ``max_snapshot_bytes`` or ``max_files`` is skipped with a
    notice. ``wait_ms``: how long a tool call that may change files waits for its snapshot
    before it runs without one. Snapshots of sessions idle for ``keep_days`` are pruned, and
    the oldest ones when the repository grows past ``max_repo_mb``.
    """

    enabled: bool = Field(
        default=True, description="Snapshot the workspace before turns that may change files."
    )
    max_file_bytes: int = Field(
        default=10_000_000,
        ge=0,
        description="Larger files are left out of snapshots (and never touched by a restore).",
    )
    max_snapshot_bytes: int = Field(
        default=300_000_000,
        ge=0,
        description="A snapshot adding more bytes than this (the first one adds the whole "
        "workspace) is skipped with a notice.",
    )
    max_files: int = Field(
        default=20_000,
        ge=0,
        description="A snapshot adding more files than this is skipped with a notice.",
    )
    wait_ms: int = Field(
        default=5000,
        ge=0,
        description="How long a tool call that may change files waits for its snapshot.",
    )
    keep_days: float = Field(
        default=30, ge=0, description="Snapshots of sessions idle this long are pruned."
    )
    max_repo_mb: int = Field(
        default=2048,
        ge=1,
        description="Past this size the oldest snapshots are pruned first.",
    )


class SubagentSettings(SettingsSection):
    """``subagents``: how many turns one sub-agent may run."""

    max_turns: int = Field(
        default=50, ge=1, le=1000, description="Model calls one sub-agent may make."
    )


class ReviewSettings(SettingsSection):
    """``review``: the model and the shape of ``pi review`` and ``/review``."""

    model: str | None = Field(
        default=None,
        description="Model of reviews as provider/model (unset: the session's model); `--model` wins.",
    )
    parallel: int = Field(
        default=4, ge=1, le=16, description="Parts of a large diff reviewed at the same time."
    )
    chunk_lines: int = Field(
        default=1500,
        ge=100,
        le=50000,
        description="Diff lines one reviewer gets; a larger diff is split by file into parts.",
    )
