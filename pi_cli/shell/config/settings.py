"""Settings: ``~/.pi/settings.json`` merged under ``.pi/settings.json`` (the project wins).

The sections' models are in :mod:`pi_cli.shell.config.sections` (re-exported here).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from pi_cli.shell.config._defaults import unvalidated_defaults
from pi_cli.shell.config._files import MAX_DEPTH, SettingsError, merge, read_json
from pi_cli.shell.config._server_settings import ServerSettings
from pi_cli.shell.config.connections import (
    LspSettings,
    McpSettings,
    NetworkSettings,
    TelemetrySettings,
    WebFetchSettings,
    WebSearchSettings,
)
from pi_cli.shell.config.long_running import GoalSettings, MonitorSettings
from pi_cli.shell.config.sections import (
    CheckpointSettings,
    CompactionSettings,
    PermissionSettings,
    RetrySettings,
    ReviewSettings,
    SandboxSettings,
    SettingsSection,
    StatusLineSettings,
    SubagentSettings,
    TimeoutSettings,
    ToolEnvSettings,
)
from pi_cli.shell.paths import pi_home, project_dir

__all__ = [
    "CheckpointSettings",
    "CompactionSettings",
    "GoalSettings",
    "MonitorSettings",
    "MAX_DEPTH",
    "LspSettings",
    "McpSettings",
    "NetworkSettings",
    "PermissionSettings",
    "RetrySettings",
    "ReviewSettings",
    "SandboxSettings",
    "Settings",
    "SettingsError",
    "SubagentSettings",
    "TelemetrySettings",
    "TimeoutSettings",
    "ToolEnvSettings",
    "WebFetchSettings",
    "WebSearchSettings",
    "load_settings",
    "save_global_setting",
    "settings_paths",
]


class PackageDeclaration(SettingsSection):
    """A declared package in the object form (the TypeScript pi's)."""

    source: str = Field(description="The package's source, as `pi install` takes it.")


class Settings(SettingsSection):
    """Every setting pi reads. Unknown keys are ignored (newer files stay loadable)."""

    model: str | None = Field(
        default=None,
        description="The model as `provider/model`; `--model` wins over it, and it over `PI_MODEL`.",
    )
    thinking: Literal["off", "minimal", "low", "medium", "high", "xhigh"] = Field(
        default="off", description="The thinking (reasoning) level."
    )
    tools: list[str] | None = Field(
        default=None,
        description="The tools the model gets, like `--tools` (unset: the default set).",
    )
    transport: Literal["auto", "native", "litellm"] = Field(
        default="auto",
        description="How models are called: pi's native HTTP transports where they exist "
        "(`auto`), only those (`native`), or always litellm. `PI_TRANSPORT` overrides it.",
    )
    openai_api: Literal["auto", "completions", "responses"] = Field(
        default="auto",
        description="Which OpenAI API the `openai` provider speaks: the catalogue decides per "
        "model (`auto`: Responses for Responses-only models such as the Codex ones), or always "
        "Chat Completions or Responses. `PI_OPENAI_API` overrides `auto`.",
    )
    api_base: str | None = Field(
        default=None,
        description="The base URL of the start-up model's API, e.g. an OpenAI-compatible "
        "server (`--api-base` wins; after `/model`, only to that provider or to `model`).",
    )
    theme: str = Field(
        default="dark",
        description="The TUI's and HTML export's theme (the TUI's theme picker saves it here).",
    )
    ui: Literal["tui", "plain"] = Field(
        default="tui",
        description="What `pi` without a prompt opens: the TUI, or the plain REPL (`--plain`).",
    )
    steering_mode: Literal["one-at-a-time", "all"] = Field(
        default="one-at-a-time",
        description="Queued steers reach the model one per turn, or all at once.",
    )
    follow_up_mode: Literal["one-at-a-time", "all"] = Field(
        default="one-at-a-time",
        description="Queued follow-ups reach the model one each time it would stop, or all at once.",
    )
    tool_execution: Literal["sequential", "parallel"] = Field(
        default="parallel",
        description="Whether the tool calls of one response run concurrently.",
    )
    compaction: CompactionSettings = Field(
        default_factory=CompactionSettings,
        description="When and how the context is compacted.",
    )
    retry: RetrySettings = Field(
        default_factory=RetrySettings,
        description="Automatic retries of transient provider errors.",
    )
    timeouts: TimeoutSettings = Field(
        default_factory=TimeoutSettings,
        description="How long a model response may stay silent (seconds; 0 = no limit).",
    )
    checkpoints: CheckpointSettings = Field(
        default_factory=CheckpointSettings,
        description="Code snapshots for `/rewind`, in a shadow git repository under `PI_HOME`.",
    )
    hooks: dict[str, Any] = Field(
        default_factory=dict,
        description="Command hooks by event name, in Claude Code's format.",
    )
    skills: list[str] = Field(
        default_factory=list,
        description="More skill files or directories, like `--skill`.",
    )
    enabled_plugins: dict[str, bool] = Field(
        default_factory=dict,
        description="Installed Claude Code plugins on (`true`) or off, as `name@marketplace` "
        "(Claude Code's key and shape; also read from `.claude/settings.json`). A project's "
        "applies only in a trusted folder. See [Plugins](plugins.md).",
    )
    packages: list[str | PackageDeclaration] = Field(
        default_factory=list,
        description="Packages this scope should have installed, as `pi install` sources "
        "(the TypeScript pi's key and shape: a string, or an object with `source`; its filter "
        "keys are not applied). pi names the missing ones at start and never installs them "
        "itself: `pi install` installs yours, `pi install -l` the project's (a project's "
        "need trust). See [Packages](packages.md).",
    )
    extensions: list[str] = Field(
        default_factory=list,
        description="More extension files or folders (Python modules or packages with "
        "`register(pi)`), as the TypeScript pi's setting of the name; a project's need trust.",
    )
    disabled_extensions: list[str] = Field(
        default_factory=list,
        description="Extensions not to load, by name (their file, folder or entry point name).",
    )
    extension_timeout_s: float = Field(
        default=30.0,
        gt=0,
        description="How long one call of an extension's handler may take (waiting for the "
        "user's answer to its dialog not counted) before the extension is disabled.",
    )
    local_probe_ports: dict[str, int] | None = Field(
        default=None,
        description="Ports of local model servers to probe (`ollama`, `llamacpp`, `lmstudio`, "
        "`vllm`); only those named are probed.",
    )
    bash_timeout_s: float | None = Field(
        default=None,
        gt=0,
        description="A bash call's timeout (seconds) when the model gives none (unset: 120).",
    )
    permissions: PermissionSettings = Field(
        default_factory=PermissionSettings,
        description="Permission rules in Claude Code's syntax, the mode, extra directories.",
    )
    server: ServerSettings = Field(
        default_factory=ServerSettings,
        description="`pi serve`: how long approvals wait, idle exit, notifications, slow clients.",
    )
    tool_env: ToolEnvSettings = Field(
        default_factory=ToolEnvSettings, description="The environment tools run with."
    )
    notifications: Literal["auto", "bell", "off"] = Field(
        default="auto",
        description="When a run ends (or waits for an approval) while the terminal is not "
        "focused: a desktop notification where the terminal has them, else the bell (`auto`); "
        "always the bell; nothing.",
    )
    bash_spill_cap_mb: float = Field(
        default=50,
        gt=0,
        description="Cap of the file holding a command's full output (MB); past it the middle "
        "is dropped.",
    )
    sandbox: SandboxSettings = Field(
        default_factory=SandboxSettings, description="Where bash commands run."
    )
    mcp: McpSettings = Field(
        default_factory=McpSettings,
        description="How long to wait for MCP servers and their calls (seconds).",
    )
    mcp_servers: dict[str, Any] = Field(
        default_factory=dict,
        description="MCP servers by name, in Claude Code's format.",
    )
    lsp: LspSettings = Field(
        default_factory=LspSettings,
        description="Language servers: diagnostics after edits and the `lsp` tool.",
    )
    web_fetch: WebFetchSettings = Field(
        default_factory=WebFetchSettings,
        description="The web_fetch tool's private hosts, size cap and timeout.",
    )
    web_search: WebSearchSettings = Field(
        default_factory=WebSearchSettings,
        description="The web_search tool's backend (off without one).",
    )
    status_line: StatusLineSettings | None = Field(
        default=None,
        description='A status line command (Claude Code\'s `statusLine`: `{"type": "command", '
        '"command": "~/.pi/statusline.sh", "padding": 0}`); see docs/tui.md.',
    )
    telemetry: TelemetrySettings = Field(
        default_factory=TelemetrySettings,
        description="OpenTelemetry export (off unless enabled).",
    )
    network: NetworkSettings = Field(
        default_factory=NetworkSettings,
        description="The proxy and the extra trusted CAs of outbound connections.",
    )
    subagents: SubagentSettings = Field(
        default_factory=SubagentSettings, description="Sub-agents run by the task tool."
    )
    review: ReviewSettings = Field(
        default_factory=ReviewSettings, description="`pi review` and `/review`."
    )
    goal: GoalSettings = Field(
        default_factory=GoalSettings, description="How a goal is pursued (`/goal`, `--goal`)."
    )
    monitor: MonitorSettings = Field(
        default_factory=MonitorSettings,
        description="How the monitor tool delivers a command's lines (pacing, caps).",
    )
    max_turns: int | None = Field(
        default=None, ge=1, description="Model calls one run may make, like `--max-turns`."
    )
    max_cost: float | None = Field(
        default=None, gt=0, description="What one run may cost (USD), like `--max-cost`."
    )
    output_schema_retries: int = Field(
        default=2,
        ge=0,
        le=10,
        description="How often `--output-schema` asks again for an answer that does not validate.",
    )


def defaults() -> Settings:
    """The settings no file changed, made without validating (pydantic builds a model's
    validator on its first use, ~10 ms for these 23 sections): defaults are valid by type."""
    settings = unvalidated_defaults(Settings)
    assert isinstance(settings, Settings)
    return settings


def _validate(data: dict[str, Any], source: str) -> Settings:
    if not data or data == {"hooks": {}}:  # no file, or files that set nothing
        return defaults()
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
    global_data = read_json(global_path)
    project_data = read_json(project_path)
    # Validate each file alone first so the error names the file that holds the bad key.
    _validate(global_data, str(global_path))
    _validate(project_data, str(project_path))
    return _validate(merge(global_data, project_data), f"{global_path} + {project_path}")


def save_global_setting(key: str, value: object) -> None:
    """Persist one top-level key in the global settings file (e.g. the last used model)."""
    path = pi_home() / "settings.json"
    data = read_json(path)
    data[key] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
