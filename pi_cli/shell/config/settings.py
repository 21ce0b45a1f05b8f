"""Settings: ``~/.pi/settings.json`` merged under ``.pi/settings.json`` (the project wins)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from pi_cli.shell.paths import pi_home, project_dir


class SettingsError(Exception):
    """A settings file is unreadable or invalid; the message names the file and the key."""


class _Section(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class CompactionSettings(_Section):
    """When and how to compact the context."""

    enabled: bool = True
    reserve_tokens: int = Field(default=16384, ge=0)
    keep_recent_tokens: int = Field(default=20000, ge=0)
    context_budget: int | None = Field(default=None, ge=1000)


class RetrySettings(_Section):
    """Automatic retries of transient provider errors."""

    enabled: bool = True
    max_retries: int = Field(default=3, ge=0, le=10)
    base_delay_ms: int = Field(default=2000, ge=0)


class TimeoutSettings(_Section):
    """How long a model response may stay silent (seconds; 0 = no limit).

    ``first_byte_s``: before its first byte (unset: 600, none for a local server);
    ``idle_s``: between two bytes once it has begun. Either one failing is retried.
    """

    first_byte_s: float | None = Field(default=None, ge=0)
    idle_s: float = Field(default=120.0, ge=0)


class PermissionSettings(_Section):
    """``permissions``: rules in Claude Code's syntax, the mode, extra directories, timeouts."""

    default_mode: str | None = None
    allow: list[str] = Field(default_factory=list)
    ask: list[str] = Field(default_factory=list)
    deny: list[str] = Field(default_factory=list)
    additional_directories: list[str] = Field(default_factory=list)
    approval_timeout_s: float = Field(default=120.0, gt=0)


class ToolEnvSettings(_Section):
    """``toolEnv``: the environment tools run with."""

    inherit_secrets: bool = False


class SandboxSettings(_Section):
    """Where bash commands run (see the README's Sandbox section)."""

    mode: Literal["auto", "required", "off"] = "auto"
    network: bool = False
    writable: list[str] = Field(default_factory=list)


class McpSettings(_Section):
    """``mcp``: how long to wait for MCP servers and their calls (seconds).

    ``startup_timeout_s``: one-shot and JSON mode wait this long (from start-up) for servers
    before the first request; ``connect_timeout_s``: a server that has not finished starting
    by then fails; ``tool_timeout_s``: one tool call, resource read or prompt.
    """

    startup_timeout_s: float = Field(default=5.0, ge=0)
    connect_timeout_s: float = Field(default=30.0, gt=0)
    tool_timeout_s: float = Field(default=300.0, gt=0)


class CheckpointSettings(_Section):
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


class WebFetchSettings(_Section):
    """``webFetch``: private addresses it may reach, its size cap and its timeout."""

    allow_private_hosts: list[str] = Field(default_factory=list)
    max_bytes: int = Field(default=5 * 1024 * 1024, ge=1024, le=100 * 1024 * 1024)
    timeout_s: float = Field(default=30.0, gt=0, le=600)


class SubagentSettings(_Section):
    """``subagents``: how many turns one sub-agent may run."""

    max_turns: int = Field(default=50, ge=1, le=1000)


class Settings(_Section):
    """Every setting pi reads. Unknown keys are ignored (newer files stay loadable)."""

    model: str | None = None
    thinking: Literal["off", "minimal", "low", "medium", "high", "xhigh"] = "off"
    tools: list[str] | None = None
    transport: Literal["auto", "native", "litellm"] = "auto"
    api_base: str | None = None
    theme: str = "dark"
    ui: Literal["tui", "plain"] = "tui"
    steering_mode: Literal["one-at-a-time", "all"] = "one-at-a-time"
    follow_up_mode: Literal["one-at-a-time", "all"] = "one-at-a-time"
    tool_execution: Literal["sequential", "parallel"] = "parallel"
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    timeouts: TimeoutSettings = Field(default_factory=TimeoutSettings)
    checkpoints: CheckpointSettings = Field(default_factory=CheckpointSettings)
    hooks: dict[str, Any] = Field(default_factory=dict)
    skills: list[str] = Field(default_factory=list)
    local_probe_ports: dict[str, int] | None = None
    bash_timeout_s: float | None = Field(default=None, gt=0)
    permissions: PermissionSettings = Field(default_factory=PermissionSettings)
    tool_env: ToolEnvSettings = Field(default_factory=ToolEnvSettings)
    # When a run ends (or waits for an approval) while the terminal is not focused: a desktop
    # notification where the terminal has them, else the bell ("bell": always the bell).
    notifications: Literal["auto", "bell", "off"] = "auto"
    bash_spill_cap_mb: float = Field(default=50, gt=0)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    mcp_servers: dict[str, Any] = Field(default_factory=dict)
    web_fetch: WebFetchSettings = Field(default_factory=WebFetchSettings)
    subagents: SubagentSettings = Field(default_factory=SubagentSettings)
    max_turns: int | None = Field(default=None, ge=1)
    max_cost: float | None = Field(default=None, gt=0)
    output_schema_retries: int = Field(default=2, ge=0, le=10)


MAX_DEPTH = 64
"""Deeper nesting than this is no settings file (and would exhaust the parser's stack)."""


def _read_json(path: Path) -> dict[str, Any]:
    try:
        # utf-8-sig: a byte-order mark (Windows editors) is not an error.
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise SettingsError(f"Cannot read settings file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SettingsError(
            f"Settings file {path} is not UTF-8 text (byte {exc.start}): save it as UTF-8"
        ) from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"Settings file {path} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None
    except RecursionError:
        raise SettingsError(_too_deep(path)) from None
    if not isinstance(data, dict):
        raise SettingsError(
            f"Settings file {path} must contain a JSON object, not {type(data).__name__}"
        )
    if _depth(data) > MAX_DEPTH:
        raise SettingsError(_too_deep(path))
    return data


def _too_deep(path: Path) -> str:
    return f"Settings file {path} is nested more than {MAX_DEPTH} levels deep: not a settings file"


def _depth(data: Any) -> int:
    """How deeply ``data`` nests (iterative: a deep value must not exhaust the stack here)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, level = stack.pop()
        if level > MAX_DEPTH:
            return level
        deepest = max(deepest, level)
        children = value.values() if isinstance(value, dict) else value
        if isinstance(value, dict | list):
            stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _validate(data: dict[str, Any], source: str) -> Settings:
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        problems = []
        for item in exc.errors(include_url=False):
            key = ".".join(str(part) for part in item.get("loc", ()))
            problems.append(f'"{key}": {item.get("msg", "invalid")}')
        raise SettingsError(
            _one_line(f"Invalid settings in {source}: " + "; ".join(problems))
        ) from None
    except RecursionError:
        raise SettingsError(f"Invalid settings in {source}: nested too deeply") from None


def _one_line(text: str, limit: int = 600) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def settings_paths(cwd: Path) -> tuple[Path, Path]:
    """(global settings file, project settings file)."""
    return pi_home() / "settings.json", project_dir(cwd) / "settings.json"


def load_settings(cwd: Path) -> Settings:
    """Load and merge the global and project settings; raise :class:`SettingsError` if bad."""
    global_path, project_path = settings_paths(cwd)
    global_data = _read_json(global_path)
    project_data = _read_json(project_path)
    # Validate each file alone first so the error names the file that holds the bad key.
    _validate(global_data, str(global_path))
    _validate(project_data, str(project_path))
    return _validate(_merge(global_data, project_data), f"{global_path} + {project_path}")


def save_global_setting(key: str, value: Any) -> None:
    """Persist one top-level key in the global settings file (e.g. the last used model)."""
    path = pi_home() / "settings.json"
    data = _read_json(path)
    data[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
