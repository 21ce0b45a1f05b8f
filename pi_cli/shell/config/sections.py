"""The sections of the settings (``compaction``, ``sandbox``, ...): one record each.

Every field has a description: ``docs/settings.md`` is generated from them
(``python scripts/gen_settings_doc.py``), so the reference cannot drift from the code.

Why records and not pydantic models (issue 25): a :class:`~agent_core.records.Record` is
defined, and its defaults made, in microseconds, so a start without a settings file imports
no pydantic. A file that exists is validated with ``msgspec.convert`` (:mod:`._validation`):
its error names the key, a constraint (``Meta(ge=0)``) is checked there, not on construction.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from agent_core.records import Record


class SettingsSection(Record):
    """A settings object: camelCase keys as users write them, unknown keys ignored."""


class CompactionSettings(SettingsSection):
    """When and how to compact the context."""

    enabled: Annotated[
        bool, Meta(description="Compact automatically when the context nears its limit.")
    ] = True
    reserve_tokens: Annotated[
        int,
        Meta(
            ge=0,
            description="Compact after a run once the context exceeds the window minus this many tokens.",
        ),
    ] = 16384
    keep_recent_tokens: Annotated[
        int,
        Meta(
            ge=0, description="How many tokens of the newest messages a compaction keeps verbatim."
        ),
    ] = 20000
    context_budget: (
        Annotated[
            int,
            Meta(
                ge=1000,
                description="A context window smaller than the model's to compact against (unset: the model's).",
            ),
        ]
        | None
    ) = None


class StatusLineSettings(SettingsSection, kw_only=True):  # mypy: a required key after `type`
    """Claude Code's ``statusLine``: a command whose first line of output is shown."""

    type: Annotated[Literal["command"], Meta(description="Only `command` exists.")] = "command"
    command: Annotated[
        str,
        Meta(
            description="Run with `sh -c` in the project folder, the session as JSON on its stdin "
            "(Claude Code's fields); its first line of stdout is shown in the footer (TUI) or the "
            "toolbar (plain REPL)."
        ),
    ]
    padding: Annotated[int, Meta(ge=0, le=20, description="Spaces before the text.")] = 0
    timeout_ms: Annotated[
        int,
        Meta(
            ge=100,
            le=30000,
            description="A run still going after this is killed with its process group.",
        ),
    ] = 2000


class RetrySettings(SettingsSection):
    """Automatic retries of transient provider errors."""

    enabled: Annotated[
        bool,
        Meta(description="Retry transient provider errors (HTTP 429 and 5xx, overload, stalls)."),
    ] = True
    max_retries: Annotated[
        int, Meta(ge=0, le=10, description="Retries after the first attempt.")
    ] = 3
    base_delay_ms: Annotated[
        int,
        Meta(
            ge=0,
            description="Delay before the first retry; it doubles for each later one (a delay "
            "over 60 s fails at once instead).",
        ),
    ] = 2000


class TimeoutSettings(SettingsSection):
    """How long a model response may stay silent (seconds; 0 = no limit).

    ``first_byte_s``: before its first byte (unset: 600, none for a local server);
    ``idle_s``: between two bytes once it has begun. Either one failing is retried.
    """

    first_byte_s: (
        Annotated[
            float,
            Meta(
                ge=0,
                description="Wait for a response's first byte (unset: 600 s, no limit for a local server).",
            ),
        ]
        | None
    ) = None
    idle_s: Annotated[
        float,
        Meta(ge=0, description="Silence allowed between two bytes once a response has begun."),
    ] = 120.0


class PermissionSettings(SettingsSection):
    """``permissions``: rules in Claude Code's syntax, the mode, extra directories, timeouts."""

    default_mode: Annotated[
        str | None,
        Meta(
            description="The permission mode: `auto` (unset), `default`, `acceptEdits`, `plan`, "
            "`dontAsk` or `bypassPermissions`."
        ),
    ] = None
    allow: Annotated[list[str], Meta(description="Rules for calls that run without asking.")] = []
    ask: Annotated[list[str], Meta(description="Rules for calls that always ask.")] = []
    deny: Annotated[
        list[str], Meta(description="Rules for calls that never run (deny beats ask and allow).")
    ] = []
    additional_directories: Annotated[
        list[str], Meta(description="More directories of the workspace, like `--add-dir`.")
    ] = []
    approval_timeout_s: Annotated[
        float,
        Meta(
            gt=0, description="An approval question unanswered this long (seconds) denies the call."
        ),
    ] = 120.0
    disable_bypass_permissions_mode: Annotated[
        str | None,
        Meta(
            description="`\"disable\"` (Claude Code's key, in any settings file, a project's too): "
            "`--dangerously-skip-permissions`, `--permission-mode bypassPermissions` and switching "
            "to `bypassPermissions` (yolo) are refused with an error."
        ),
    ] = None


class ToolEnvSettings(SettingsSection):
    """``toolEnv``: the environment tools run with."""

    inherit_secrets: Annotated[
        bool, Meta(description="Give tools the provider keys pi removes from their environment.")
    ] = False


class SandboxSettings(SettingsSection):
    """Where bash commands run (see docs/sandbox.md)."""

    mode: Annotated[
        Literal["auto", "required", "off"],
        Meta(
            description="`auto`: sandbox where it works; `required`: bash refuses to run without it; "
            "`off`. `PI_SANDBOX_MODE` overrides it."
        ),
    ] = "auto"
    network: Annotated[bool, Meta(description="Let sandboxed commands reach the network.")] = False
    writable: Annotated[
        list[str],
        Meta(
            description="More directories writable inside the sandbox (relative to the working "
            "directory; `~` expands)."
        ),
    ] = []


class CheckpointSettings(SettingsSection):
    """Code snapshots in a shadow git repository under ``PI_HOME`` (see ``/rewind``).

    A file over ``max_file_bytes`` is left out of snapshots (and never touched by a restore);
    a snapshot adding more than ``max_snapshot_bytes`` or ``max_files`` is skipped with a
    notice. ``wait_ms``: how long a tool call that may change files waits for its snapshot
    before it runs without one. Snapshots of sessions idle for ``keep_days`` are pruned, and
    the oldest ones when the repository grows past ``max_repo_mb``.
    """

    enabled: Annotated[
        bool, Meta(description="Snapshot the workspace before turns that may change files.")
    ] = True
    max_file_bytes: Annotated[
        int,
        Meta(
            ge=0,
            description="Larger files are left out of snapshots (and never touched by a restore).",
        ),
    ] = 10_000_000
    max_snapshot_bytes: Annotated[
        int,
        Meta(
            ge=0,
            description="A snapshot adding more bytes than this (the first one adds the whole "
            "workspace) is skipped with a notice.",
        ),
    ] = 300_000_000
    max_files: Annotated[
        int,
        Meta(ge=0, description="A snapshot adding more files than this is skipped with a notice."),
    ] = 20_000
    wait_ms: Annotated[
        int,
        Meta(
            ge=0, description="How long a tool call that may change files waits for its snapshot."
        ),
    ] = 5000
    keep_days: Annotated[
        float, Meta(ge=0, description="Snapshots of sessions idle this long are pruned.")
    ] = 30.0
    max_repo_mb: Annotated[
        int, Meta(ge=1, description="Past this size the oldest snapshots are pruned first.")
    ] = 2048


class SubagentSettings(SettingsSection):
    """``subagents``: how many turns one sub-agent may run."""

    max_turns: Annotated[
        int, Meta(ge=1, le=1000, description="Model calls one sub-agent may make.")
    ] = 50


class ReviewSettings(SettingsSection):
    """``review``: the model and the shape of ``pi review`` and ``/review``."""

    model: Annotated[
        str | None,
        Meta(
            description="Model of reviews as provider/model (unset: the session's model); `--model` wins."
        ),
    ] = None
    parallel: Annotated[
        int, Meta(ge=1, le=16, description="Parts of a large diff reviewed at the same time.")
    ] = 4
    chunk_lines: Annotated[
        int,
        Meta(
            ge=100,
            le=50000,
            description="Diff lines one reviewer gets; a larger diff is split by file into parts.",
        ),
    ] = 1500
