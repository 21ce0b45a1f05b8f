"""How to build a shell: CLI flags, RPC options and test seams (a leaf module, no heavy imports)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from agent_core import StreamFn, Tool
    from pi_cli.shell.config.settings import Settings


@dataclass
class ShellOptions:
    """Everything the CodingAgent is built from.

    ``stream_fn``, ``tool_objects`` and ``settings`` are seams for tests and embedders: they
    replace provider resolution, the built-in tools and the settings files.

    ``approvals`` says who can answer a permission question (set by the front end: ``none``
    for one-shot and JSON mode, ``interactive`` for the TUI and the plain REPL, ``remote`` for
    RPC); ``trust`` is ``--trust`` (``None``: the stored decision for the folder).
    ``max_turns`` / ``max_cost`` may be the command line's text: the shell parses and checks
    them (a usage error names the flag); ``output_schema`` is the path of a JSON Schema.
    """

    cwd: Path = field(default_factory=Path.cwd)
    model: str | None = None
    provider: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    thinking: str | None = None
    tools: list[str] | None = None
    no_tools: bool = False
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    persist_session: bool = True
    continue_session: bool = False
    session: str | None = None
    skill_paths: list[str] = field(default_factory=list)
    plugin_dirs: list[str] = field(default_factory=list)
    """``--plugin-dir``: Claude Code plugin folders for this session."""
    keep_background: bool = False
    """Background shells outlive pi (``--keep-bashes``)."""
    # A queue stored in the session (a run ended by abort, error or crash) is handed back at
    # start (QueueReturned "restored"): for front ends with an editor or a client, not -p.
    offer_stored_queue: bool = False
    one_shot: bool = False
    """The front end sends one prompt and exits (print and JSON modes): with no kept session,
    nothing could ever rewind its run, so no checkpoint is taken."""
    stream_fn: StreamFn | None = None
    tool_objects: list[Tool] | None = None
    settings: Settings | None = None
    api_key_file: str | None = None
    permission_mode: str | None = None
    skip_permissions: bool = False
    allowed_tools: list[str] = field(default_factory=list)
    disallowed_tools: list[str] = field(default_factory=list)
    add_dirs: list[str] = field(default_factory=list)
    trust: bool | None = None
    approvals: Literal["none", "interactive", "remote"] = "none"
    # MCP servers a front end adds (an ACP client's session/new), Claude Code's entry shape;
    # they win over configured servers of the same name.
    mcp_servers: dict[str, Any] = field(default_factory=dict)
    max_turns: int | str | None = None
    max_cost: float | str | None = None
    output_schema: str | None = None
    goal: str | None = None
    """``--goal``: a goal set at start, its directive added to the first prompt."""
    goal_check: str | None = None
    """``--goal-check``: the command that decides ``goal`` (exit 0 = met)."""
    extension_flags: dict[str, str | bool] = field(default_factory=dict)
    """Flags extensions registered, as given on the command line (``--plan``: ``{"plan": True}``)."""
    wake_when_idle: bool = True
    """A monitor's delivery may start a run while the shell is idle (ACP: no, its client
    starts every turn; one-shot and JSON mode never wake either)."""
