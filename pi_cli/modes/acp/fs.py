"""Edits through the ACP client's buffers: ``edit`` and ``write`` when the client offers
``fs/read_text_file`` and ``fs/write_text_file``.

They keep the built-in tools' names, arguments and results, so the permission gate, hooks and
front ends treat them exactly as the built-ins (the same checks run before every call). The
text comes from the editor (unsaved changes included) and goes back to it; the editor saves.

Checkpoints (issue 19) record these writes through :data:`CLIENT_WRITE_HOOKS`: each hook gets
(absolute path, text before or None for a new file, text after) just before the write is sent.

Terminals: pi never runs commands in the client's terminal (``terminal/create`` is not used).
Its own bash tool runs them, inside pi's process containment (and the sandbox once it lands),
so an editor's terminal can never bypass what pi enforces.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_core import AbortSignal, ToolError, ToolResult
from agent_core.tool import OnToolUpdate
from tools import display_path, resolve_path
from tools.edit import EditArgs, EditTool, edit_result, edit_text
from tools.write import WriteArgs, WriteTool

WriteHook = Callable[[Path, "str | None", str], None]
CLIENT_WRITE_HOOKS: list[WriteHook] = []


class ClientFiles:
    """The client's file system for one ACP session."""

    def __init__(self, conn: Any, session_id: str) -> None:
        self.conn = conn
        self.session_id = session_id

    async def read(self, path: Path) -> str | None:
        """The editor's text of ``path`` (None: it does not exist)."""
        try:
            response = await self.conn.read_text_file(session_id=self.session_id, path=str(path))
        except Exception as exc:  # noqa: BLE001 - the client says why (not found, denied)
            if not path.exists():
                return None
            raise ToolError(f"The editor could not read {path}: {exc}") from None
        return str(response.content)

    async def write(self, path: Path, before: str | None, text: str) -> None:
        """Send ``text`` to the editor for ``path`` (hooks first: checkpoints record it)."""
        for hook in CLIENT_WRITE_HOOKS:
            hook(path, before, text)
        try:
            await self.conn.write_text_file(
                session_id=self.session_id, path=str(path), content=text
            )
        except Exception as exc:  # noqa: BLE001
            raise ToolError(f"The editor could not write {path}: {exc}") from None


class ClientEditTool(EditTool):
    """``edit`` on the editor's buffer."""

    def __init__(self, cwd: str | Path, files: ClientFiles) -> None:
        super().__init__(cwd)
        self.files = files

    async def execute(
        self,
        tool_call_id: str,
        args: EditArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Apply ``args.edits`` to the editor's text; nothing is written on any failure."""
        path = resolve_path(self.cwd, args.path)
        shown = display_path(self.cwd, path)
        original = await self.files.read(path)
        if original is None:
            raise ToolError(f"File not found: {shown}")
        new_text, details = edit_text(original, args.edits, shown)
        await self.files.write(path, original, new_text)
        return edit_result(len(args.edits), details)


class ClientWriteTool(WriteTool):
    """``write`` into the editor."""

    def __init__(self, cwd: str | Path, files: ClientFiles) -> None:
        super().__init__(cwd)
        self.files = files

    async def execute(
        self,
        tool_call_id: str,
        args: WriteArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Write ``args.content`` through the editor."""
        path = resolve_path(self.cwd, args.path)
        shown = display_path(self.cwd, path)
        if path.is_dir():
            raise ToolError(f"{shown} is a directory; give a file path.")
        before = await self.files.read(path)
        await self.files.write(path, before, args.content)
        verb = "Overwrote" if before is not None else "Created"
        size = len(args.content.encode("utf-8"))
        return ToolResult.of_text(
            f"{verb} {shown} ({size} bytes written)",
            details={"path": shown, "bytes": size, "created": before is None},
        )
