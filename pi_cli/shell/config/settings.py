"""Settings: ``~/.pi/settings.json`` merged under ``.pi/settings.json`` (the project wins).

The sections are in :mod:`.sections`, :mod:`.connections`, :mod:`.long_running` (re-exported
here). With no settings file, :class:`Settings` is its defaults, made without any validation;
a file's data is checked by :func:`._validation.validated`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from msgspec import Meta

from agent_core.records import field
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

    source: Annotated[str, Meta(description="The package's source, as `pi install` takes it.")]


class Settings(SettingsSection):
    """Every setting pi reads. Unknown keys are ignored (newer files stay loadable)."""

    model: Annotated[
        str | None,
        Meta(
            description="The model as `provider/model`; `--model` wins over it, and it over `PI_MODEL`."
        ),
    ] = None
    thinking: Annotated[
        Literal["off", "minimal", "low", "medium", "high", "xhigh"],
        Meta(description="The thinking (reasoning) level."),
    ] = "off"
    tools: Annotated[
        list[str] | None,
        Meta(description="The tools the model gets, like `--tools` (unset: the default set)."),
    ] = None
    transport: Annotated[
        Literal["auto", "native", "litellm"],
        Meta(
            description="How models are called: pi's native HTTP transports where they exist "
            "(`auto`), only those (`native`), or always litellm. `PI_TRANSPORT` overrides it."
        ),
    ] = "auto"
    openai_api: Annotated[
        Literal["auto", "completions", "responses"],
        Meta(
            description="Which OpenAI API the `openai` provider speaks: the catalogue decides per "
            "model (`auto`: Responses for Responses-only models such as the Codex ones), or always "
            "Chat Completions or Responses. `PI_OPENAI_API` overrides `auto`."
        ),
    ] = "auto"
    api_base: Annotated[
        str | None,
        Meta(
            description="The base URL of the start-up model's API, e.g. an OpenAI-compatible "
            "server (`--api-base` wins; after `/model`, only to that provider or to `model`)."
        ),
    ] = None
    theme: Annotated[
        str,
        Meta(
            description="The TUI's and HTML export's theme (the TUI's theme picker saves it here)."
        ),
    ] = "dark"
    ui: Annotated[
        Literal["tui", "plain"],
        Meta(
            description="What `pi` without a prompt opens: the TUI, or the plain REPL (`--plain`)."
        ),
    ] = "tui"
    steering_mode: Annotated[
        Literal["one-at-a-time", "all"],
        Meta(description="Queued steers reach the model one per turn, or all at once."),
    ] = "one-at-a-time"
    follow_up_mode: Annotated[
        Literal["one-at-a-time", "all"],
        Meta(
            description="Queued follow-ups reach the model one each time it would stop, or all at once."
        ),
    ] = "one-at-a-time"
    tool_execution: Annotated[
        Literal["sequential", "parallel"],
        Meta(description="Whether the tool calls of one response run concurrently."),
    ] = "parallel"
    compaction: Annotated[
        CompactionSettings, Meta(description="When and how the context is compacted.")
    ] = field(default_factory=CompactionSettings)
    retry: Annotated[
        RetrySettings, Meta(description="Automatic retries of transient provider errors.")
    ] = field(default_factory=RetrySettings)
    timeouts: Annotated[
        TimeoutSettings,
        Meta(description="How long a model response may stay silent (seconds; 0 = no limit)."),
    ] = field(default_factory=TimeoutSettings)
    checkpoints: Annotated[
        CheckpointSettings,
        Meta(
            description="Code snapshots for `/rewind`, in a shadow git repository under `PI_HOME`."
        ),
    ] = field(default_factory=CheckpointSettings)
    hooks: Annotated[
        dict[str, Any], Meta(description="Command hooks by event name, in Claude Code's format.")
    ] = {}
    skills: Annotated[
        list[str], Meta(description="More skill files or directories, like `--skill`.")
    ] = []
    enabled_plugins: Annotated[
        dict[str, bool],
        Meta(
            description="Installed Claude Code plugins on (`true`) or off, as `name@marketplace` "
            "(Claude Code's key and shape; also read from `.claude/settings.json`). A project's "
            "applies only in a trusted folder. See [Plugins](plugins.md)."
        ),
    ] = {}
    packages: Annotated[
        list[str | PackageDeclaration],
        Meta(
            description="Packages this scope should have installed, as `pi install` sources "
            "(the TypeScript pi's key and shape: a string, or an object with `source`; its filter "
            "keys are not applied). pi names the missing ones at start and never installs them "
            "itself: `pi install` installs yours, `pi install -l` the project's (a project's "
            "need trust). See [Packages](packages.md)."
        ),
    ] = []
    extensions: Annotated[
        list[str],
        Meta(
            description="More extension files or folders (Python modules or packages with "
            "`register(pi)`), as the TypeScript pi's setting of the name; a project's need trust."
        ),
    ] = []
    disabled_extensions: Annotated[
        list[str],
        Meta(
            description="Extensions not to load, by name (their file, folder or entry point name)."
        ),
    ] = []
    extension_timeout_s: Annotated[
        float,
        Meta(
            gt=0,
            description="How long one call of an extension's handler may take (waiting for the "
            "user's answer to its dialog not counted) before the extension is disabled.",
        ),
    ] = 30.0
    local_probe_ports: Annotated[
        dict[str, int] | None,
        Meta(
            description="Ports of local model servers to probe (`ollama`, `llamacpp`, `lmstudio`, "
            "`vllm`); only those named are probed."
        ),
    ] = None
    bash_timeout_s: (
        Annotated[
            float,
            Meta(
                gt=0,
                description="A bash call's timeout (seconds) when the model gives none (unset: 120).",
            ),
        ]
        | None
    ) = None
    permissions: Annotated[
        PermissionSettings,
        Meta(description="Permission rules in Claude Code's syntax, the mode, extra directories."),
    ] = field(default_factory=PermissionSettings)
    server: Annotated[
        ServerSettings,
        Meta(
            description="`pi serve`: how long approvals wait, idle exit, notifications, slow clients."
        ),
    ] = field(default_factory=ServerSettings)
    tool_env: Annotated[ToolEnvSettings, Meta(description="The environment tools run with.")] = (
        field(default_factory=ToolEnvSettings)
    )
    notifications: Annotated[
        Literal["auto", "bell", "off"],
        Meta(
            description="When a run ends (or waits for an approval) while the terminal is not "
            "focused: a desktop notification where the terminal has them, else the bell (`auto`); "
            "always the bell; nothing."
        ),
    ] = "auto"
    bash_spill_cap_mb: Annotated[
        float,
        Meta(
            gt=0,
            description="Cap of the file holding a command's full output (MB); past it the middle "
            "is dropped.",
        ),
    ] = 50.0
    sandbox: Annotated[SandboxSettings, Meta(description="Where bash commands run.")] = field(
        default_factory=SandboxSettings
    )
    mcp: Annotated[
        McpSettings, Meta(description="How long to wait for MCP servers and their calls (seconds).")
    ] = field(default_factory=McpSettings)
    mcp_servers: Annotated[
        dict[str, Any], Meta(description="MCP servers by name, in Claude Code's format.")
    ] = {}
    lsp: Annotated[
        LspSettings,
        Meta(description="Language servers: diagnostics after edits and the `lsp` tool."),
    ] = field(default_factory=LspSettings)
    web_fetch: Annotated[
        WebFetchSettings,
        Meta(description="The web_fetch tool's private hosts, size cap and timeout."),
    ] = field(default_factory=WebFetchSettings)
    web_search: Annotated[
        WebSearchSettings, Meta(description="The web_search tool's backend (off without one).")
    ] = field(default_factory=WebSearchSettings)
    status_line: Annotated[
        StatusLineSettings | None,
        Meta(
            description='A status line command (Claude Code\'s `statusLine`: `{"type": "command", '
            '"command": "~/.pi/statusline.sh", "padding": 0}`); see docs/tui.md.'
        ),
    ] = None
    telemetry: Annotated[
        TelemetrySettings, Meta(description="OpenTelemetry export (off unless enabled).")
    ] = field(default_factory=TelemetrySettings)
    network: Annotated[
        NetworkSettings,
        Meta(description="The proxy and the extra trusted CAs of outbound connections."),
    ] = field(default_factory=NetworkSettings)
    subagents: Annotated[SubagentSettings, Meta(description="Sub-agents run by the task tool.")] = (
        field(default_factory=SubagentSettings)
    )
    review: Annotated[ReviewSettings, Meta(description="`pi review` and `/review`.")] = field(
        default_factory=ReviewSettings
    )
    goal: Annotated[
        GoalSettings, Meta(description="How a goal is pursued (`/goal`, `--goal`).")
    ] = field(default_factory=GoalSettings)
    monitor: Annotated[
        MonitorSettings,
        Meta(description="How the monitor tool delivers a command's lines (pacing, caps)."),
    ] = field(default_factory=MonitorSettings)
    max_turns: (
        Annotated[int, Meta(ge=1, description="Model calls one run may make, like `--max-turns`.")]
        | None
    ) = None
    max_cost: (
        Annotated[float, Meta(gt=0, description="What one run may cost (USD), like `--max-cost`.")]
        | None
    ) = None
    output_schema_retries: Annotated[
        int,
        Meta(
            ge=0,
            le=10,
            description="How often `--output-schema` asks again for an answer that does not validate.",
        ),
    ] = 2


def _validate(data: dict[str, Any], source: str) -> Settings:
    if not data or data == {"hooks": {}}:  # no file, or files that set nothing
        return Settings()
    from pi_cli.shell.config._validation import SettingsInvalid, validated  # a file exists

    try:
        return validated(data, Settings)
    except SettingsInvalid as exc:
        raise SettingsError(_one_line(f"Invalid settings in {source}: {exc}")) from None
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
