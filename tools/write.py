"""The ``write`` tool: create or overwrite a file atomically."""

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from msgspec import Meta

from agent_core import AbortSignal, FileEffect, ToolArguments, ToolBase, ToolError, ToolResult
from agent_core.tool import OnToolUpdate
from tools._paths import display_path, resolve_path
from tools._present import path_effect, str_arg, with_suffix
from tools.safe_files import (
    CheckedPaths,
    NotARegularFile,
    PathChanged,
    call_target,
    pin,
    refusal,
)


class WriteArgs(ToolArguments):
    """Arguments of the write tool."""

    path: Annotated[
        str,
        Meta(
            description="Path to the file to write (relative to the working directory or absolute)"
        ),
    ]
    content: Annotated[str, Meta(description="The complete content to write to the file")]


class WriteTool(ToolBase):
    """Write a whole file, creating parent directories; atomic (temp file + rename).

    It writes exactly the path the permission check decided on (:attr:`checked_paths`, filled
    by the gate), through :mod:`tools.safe_files`: a path changed since is refused.
    """

    name = "write"
    summary = "Create or overwrite a file (parent directories created)"
    guideline = "Use write only for new files or complete rewrites."
    description = (
        "Write content to a file. Creates the file if it does not exist and overwrites it if it "
        "does; parent directories are created automatically. Prefer edit for changing part of an "
        "existing file."
    )
    parameters = WriteArgs

    def __init__(self, cwd: str | Path) -> None:
        self.cwd = Path(cwd)
        self.checked_paths = CheckedPaths()

    def title(self, args: Mapping[str, Any]) -> str:
        """``path (N lines)``; just ``path`` while the content has not arrived."""
        path = str_arg(args, "path")
        if path is None:
            return ""
        content = args.get("content")
        if not isinstance(content, str):
            return with_suffix(path, "")
        lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
        return with_suffix(path, f" ({lines} line{'' if lines == 1 else 's'})")

    def file_effects(self, args: Mapping[str, Any]) -> list[FileEffect]:
        """Writes ``path``."""
        return path_effect(args, "write")

    async def execute(
        self,
        tool_call_id: str,
        args: WriteArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Write ``args.content`` to ``args.path`` and report the byte count."""
        if cancel.aborted:
            raise ToolError("Aborted")
        decided = self.checked_paths.take(tool_call_id)
        return await asyncio.to_thread(self._write, args, decided)

    def _write(self, args: WriteArgs, decided: dict[str, Path] | None = None) -> ToolResult:
        shown = display_path(self.cwd, resolve_path(self.cwd, args.path))
        data = args.content.encode("utf-8")
        try:
            target, follow = call_target(self.cwd, args.path, decided)
            with pin(target, follow=follow, create_dirs=True) as place:
                existed = place.write_atomic(data)
        except PathChanged as exc:
            raise ToolError(refusal(shown, exc)) from None
        except IsADirectoryError:
            raise ToolError(f"{shown} is a directory; give a file path.") from None
        except NotARegularFile:
            # The atomic rename would silently swap a FIFO/device/socket for a regular file.
            raise ToolError(
                f"{shown} is not a regular file (device, FIFO or socket); use bash to write to it."
            ) from None
        except OSError as exc:
            raise ToolError(f"Cannot write {shown}: {exc.strerror or exc}") from None
        verb = "Overwrote" if existed else "Created"
        return ToolResult.of_text(
            f"{verb} {shown} ({len(data)} bytes written)",
            details={"path": shown, "bytes": len(data), "created": not existed},
        )


def create_write_tool(cwd: str | Path) -> WriteTool:
    """A write tool resolving relative paths against ``cwd``."""
    return WriteTool(cwd)
