"""The ``ls`` tool: list one directory, sorted, directories marked with ``/``."""

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from msgspec import Meta

from agent_core import (
    AbortSignal,
    FileEffect,
    ToolArguments,
    ToolBase,
    ToolError,
    ToolResult,
    first_line,
)
from agent_core.tool import OnToolUpdate
from tools._paths import search_target
from tools._present import path_effect, str_arg

DEFAULT_LIMIT = 500


class LsArgs(ToolArguments):
    """Arguments of the ls tool."""

    path: Annotated[
        str | None, Meta(description="Directory to list (default: working directory)")
    ] = None
    limit: Annotated[
        int, Meta(ge=1, description=f"Maximum number of entries (default {DEFAULT_LIMIT})")
    ] = DEFAULT_LIMIT


class LsTool(ToolBase):
    """List a directory: sorted case-insensitively, ``/`` after directories, dotfiles included."""

    name = "ls"
    summary = "List directory contents"
    guideline = "Use ls to list a directory."
    description = (
        "List the entries of a directory, sorted alphabetically, with '/' after directories. "
        f"Includes dotfiles. Returns at most {DEFAULT_LIMIT} entries by default."
    )
    parameters = LsArgs

    def __init__(self, cwd: str | Path) -> None:
        self.cwd = Path(cwd)

    def title(self, args: Mapping[str, Any]) -> str:
        """The directory, ``.`` for the working directory."""
        return first_line(str_arg(args, "path") or ".")

    def file_effects(self, args: Mapping[str, Any]) -> list[FileEffect]:
        """Reads ``path`` (the working directory when absent)."""
        return path_effect(args, "read", default=".")

    async def execute(
        self,
        tool_call_id: str,
        args: LsArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """List ``args.path``."""
        if cancel.aborted:
            raise ToolError("Aborted")
        return await asyncio.to_thread(self._list, args)

    def _list(self, args: LsArgs) -> ToolResult:
        target, shown = search_target(self.cwd, args.path, directory=True)
        try:
            with os.scandir(target) as entries:
                names = [entry.name + ("/" if _is_dir(entry) else "") for entry in entries]
        except OSError as exc:
            raise ToolError(f"Cannot list {shown}: {exc.strerror or exc}") from None
        if not names:
            return ToolResult.of_text("(empty directory)", details={"count": 0})
        names.sort(key=lambda name: (name.lower(), name))
        shown_names = names[: args.limit]
        text = "\n".join(shown_names)
        details: dict[str, object] = {"count": len(names)}
        if len(names) > args.limit:
            text += (
                f"\n\n[{args.limit} entries limit reached ({len(names)} total). "
                f"Use limit={min(len(names), args.limit * 2)} for more]"
            )
            details["entry_limit_reached"] = args.limit
        return ToolResult.of_text(text, details=details)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows symlinks, so a link to a directory gets "/" too
    except OSError:
        return False


def create_ls_tool(cwd: str | Path) -> LsTool:
    """An ls tool listing relative to ``cwd``."""
    return LsTool(cwd)
