"""The sections of the settings (``compaction``, ``sandbox``, ...): one pydantic model each."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class SettingsSection(BaseModel):
    """A settings object: camelCase keys as users write them, unknown keys ignored."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class CompactionSettings(SettingsSection):
    """When and how to compact the context."""

    enabled: bool = True
    reserve_tokens: int = Field(default=16384, ge=0)
    keep_recent_tokens: int = Field(default=20000, ge=0)
    context_budget: int | None = Field(default=None, ge=1000)


class RetrySettings(SettingsSection):
    """Automatic retries of transient provider errors."""

    enabled: bool = True
    max_retries: int = Field(default=3, ge=0, le=10)
    base_delay_ms: int = Field(default=2000, ge=0)


class TimeoutSettings(SettingsSection):
    """How long a model response may stay silent (seconds; 0 = no limit).

    ``first_byte_s``: before its first byte (unset: 600, none for a local server);
    ``idle_s``: between two bytes once it has begun. Either one failing is retried.
    """

    first_byte_s: float | None = Field(default=None, ge=0)
    idle_s: float = Field(default=120.0, ge=0)


class PermissionSettings(SettingsSection):
    """``permissions``: rules in Claude Code's syntax, the mode, extra directories, timeouts."""

    default_mode: str | None = None
    allow: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    additional_directories: list[str] = Field(default_factory=list)
    approval_timeout_s: float = Field(default=120.0, gt=0)


class ToolEnvSettings(SettingsSection):
    """``toolEnv``: the environment tools run with."""

    inherit_secrets: bool = False


class SandboxSettings(SettingsSection):
    """Where bash commands run (see the README's Sandbox section)."""

    mode: Literal["auto", "required", "off"] = "auto"
    network: bool = False
    writable: list[str] = Field(default_factory=list)


class McpSettings(SettingsSection):
    """``mcp``: how long to wait for MCP servers and their calls (seconds).

    ``startup_timeout_s``: one-shot and JSON mode wait this long (from start-up) for servers
    before the first request; ``connect_timeout_s``: a server that has not finished starting
    by then fails; ``tool_timeout_s``: one tool call, resource read or prompt.
    """

    startup_timeout_s: float = Field(default=5.0, ge=0)
    connect_timeout_s: float = Field(default=30.0, gt=0)
    tool_timeout_s: float = Field(default=300.0, gt=0)


class CheckpointSettings(SettingsSection):
    """Code snapshots in a shadow git repository under ``PI_HOME`` (see ``/rewind``).

    A file over ``max_file_bytes`` is left out of snapshots (and never touched by a restore);
    a snapshot adding more than ``max_snapshot_bytes`` or ``max_files`` is skipped with a
    notice. ``wait_ms``: how long a tool call that may change files waits for its snapshot
    before it runs without one. Snapshots of sessions idle for ``keep_days`` are pruned, and
    the oldest ones when the repository grows past ``max_repo_mb``.
    """

    enabled: bool = True
    max_file_bytes: int = Field(default=10_000_000, ge=0)
    max_snapshot_bytes: int = Field(default=300_000_000, ge=0)
    max_files: int = Field(default=20_000, ge=0)
    wait_ms: int = Field(default=5000, ge=0)
    keep_days: float = Field(default=30, ge=0)
    max_repo_mb: int = Field(default=2048, ge=1)


class WebFetchSettings(SettingsSection):
    """``webFetch``: private addresses it may reach, its size cap and its timeout."""

    allow_private_hosts: list[str] = Field(default_factory=list)
    max_bytes: int = Field(default=5 * 1024 * 1024, ge=1024, le=100 * 1024 * 1024)
    timeout_s: float = Field(default=30.0, gt=0, le=600)


class SubagentSettings(SettingsSection):
    """``subagents``: how many turns one sub-agent may run."""

    max_turns: int = Field(default=50, ge=1, le=1000)
