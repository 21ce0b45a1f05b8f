"""How to build a shell: CLI flags, RPC options and test seams (a leaf module, no heavy imports)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_core import StreamFn, Tool
    from pi_cli.shell.settings import Settings


@dataclass
class ShellOptions:
    """Everything the CodingAgent is built from.

    ``stream_fn``, ``tool_objects`` and ``settings`` are seams for tests and embedders: they
    replace provider resolution, the built-in tools and the settings files.
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
    stream_fn: StreamFn | None = None
    tool_objects: list[Tool] | None = None
    settings: Settings | None = None
