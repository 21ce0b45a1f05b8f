"""The HTTP API's own bodies (the RPC commands are :mod:`pi_cli.modes.rpc.schema`'s models).

Session ids in paths are checked against :data:`SESSION_ID` before anything else: an id is
never a path (``../``, ``%2F``, NUL and the like are refused with 400).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from agent_core import skip_pydantic_plugin_discovery
from pi_cli.shell import ShellOptions

skip_pydantic_plugin_discovery()  # before the first model is built (~15 ms of start-up)

SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
"""What a session id (or a unique prefix of one) may look like."""
MAX_BODY = 8 * 1024 * 1024
"""Largest request body and WebSocket message (bytes): room for a few screenshots."""


class _Body(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", strict=True
    )


class OpenSession(_Body):
    """Open a session: a new one in ``cwd``, or a stored one (``session``: an id or a file of
    that workspace; ``continue``: its latest). Options are the command line's."""

    cwd: str = Field(description="Absolute path of the workspace.")
    session: str | None = None
    continue_session: bool = Field(default=False, alias="continue")
    model: str | None = None
    provider: str | None = None
    api_base: str | None = None
    api_key: str | None = Field(default=None, description="Never stored by the server.")
    thinking: Literal["off", "minimal", "low", "medium", "high", "xhigh"] | None = None
    tools: list[str] | None = None
    no_tools: bool = False
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    persist_session: bool = True
    skills: list[str] = Field(default_factory=list)
    permission_mode: str | None = None
    skip_permissions: bool = False
    allowed_tools: list[str] = Field(default_factory=list)
    disallowed_tools: list[str] = Field(default_factory=list)
    add_dirs: list[str] = Field(default_factory=list)
    trust: bool | None = None
    max_turns: int | None = Field(default=None, ge=1)
    max_cost: float | None = Field(default=None, gt=0)

    def shell_options(self) -> ShellOptions:
        """The shell's options (raises ValueError when ``cwd`` is no absolute directory)."""
        cwd = Path(self.cwd)
        if not cwd.is_absolute() or "\x00" in self.cwd:
            raise ValueError('"cwd" must be an absolute path')
        if not cwd.is_dir():
            raise ValueError(f"{self.cwd} is not a directory")
        return ShellOptions(
            cwd=cwd,
            session=self.session,
            continue_session=self.continue_session,
            model=self.model,
            provider=self.provider,
            api_base=self.api_base,
            api_key=self.api_key,
            thinking=self.thinking,
            tools=self.tools,
            no_tools=self.no_tools,
            system_prompt=self.system_prompt,
            append_system_prompt=self.append_system_prompt,
            persist_session=self.persist_session,
            skill_paths=list(self.skills),
            permission_mode=self.permission_mode,
            skip_permissions=self.skip_permissions,
            allowed_tools=list(self.allowed_tools),
            disallowed_tools=list(self.disallowed_tools),
            add_dirs=list(self.add_dirs),
            trust=self.trust,
            max_turns=self.max_turns,
            max_cost=self.max_cost,
            approvals="remote",
            offer_stored_queue=True,
        )

    def stored(self) -> dict[str, Any]:
        """What the registry keeps to reopen the session (never the key)."""
        return self.model_dump(by_alias=True, exclude={"api_key"}, exclude_defaults=True)


class Approval(BaseModel):
    """The first approval a session waits for."""

    tool: str
    title: str


class Client(BaseModel):
    """A client attached to a session."""

    id: int
    label: str
    since: float


class SessionSummary(BaseModel):
    """One session as ``GET /api/sessions`` lists it."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)
    id: str
    cwd: str
    session_file: str | None = None
    name: str | None = None
    title: str = ""
    model: str = ""
    state: Literal["idle", "preparing", "running", "command", "compacting", "interrupted", "stored"]
    live: bool = Field(description="Loaded in the server (else only listed: attach opens it).")
    waiting_for_approval: int = 0
    approval: Approval | None = None
    cost: float = 0.0
    tokens: int = 0
    messages: int = 0
    clients: list[Client] = Field(default_factory=list)
    created_at: float = 0.0
    last_activity: float = 0.0
    run_started_at: float | None = None
    interrupted: str | None = None


class SessionList(BaseModel):
    """``GET /api/sessions``."""

    sessions: list[SessionSummary]
    server: dict[str, Any] = Field(default_factory=dict)


class Problem(BaseModel):
    """Any error."""

    error: str
