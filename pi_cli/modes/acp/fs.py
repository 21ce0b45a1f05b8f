"""Edits through the ACP client's buffers: ``edit`` and ``write`` when the client offers
``fs/read_text_file`` and ``fs/write_text_file``.

They keep the built-in tools' names, arguments and results, so the permission gate, hooks and
front ends treat them exactly as the built-ins (the same checks run before every call). The
text comes from the editor (unsaved changes included) and goes back to it; the editor saves.

Checkpoints (issue 19) record these writes through :data:`CLIENT_WRITE_HOOKS`: each hook gets
(absolute path, text before or None for a new file, text after) just before the write is sent.

The path sent is the one the permission check decided on, walked again without following any
symlink (:mod:`tools.safe_files`) just before it is sent: a path changed since is refused. The
editor then opens that path itself, in its own process, which pi cannot hold for it: a symlink
swapped in between that walk and the editor's write is the one window left (the sandbox keeps
``.git`` and the other protected paths read-only, so it cannot point at them).

Terminals: pi never runs commands in the client's terminal (``terminal/create`` is not used).
Its own bash tool runs them, inside pi's process containment (and the sandbox once it lands),
so an editor's terminal can never bypass what pi enforces.
"""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agent_core import AbortSignal, ToolError, ToolResult
from agent_core.tool import OnToolUpdate
from tools import display_path, resolve_path
from tools.edit import EditArgs, EditTool, edit_result, edit_text
from tools.safe_files import PathChanged, call_target, pin, refusal
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
        shown = display_path(self.cwd, resolve_path(self.cwd, args.path))
        path, _ = await checked_path(self.cwd, args.path, self.checked_paths.take(tool_call_id))
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
        shown = display_path(self.cwd, resolve_path(self.cwd, args.path))
        decided = self.checked_paths.take(tool_call_id)
        path, directory = await checked_path(self.cwd, args.path, decided)
        if directory:
            raise ToolError(f"{shown} is a directory; give a file path.")
        before = await self.files.read(path)
        await self.files.write(path, before, args.content)
        verb = "Overwrote" if before is not None else "Created"
        size = len(args.content.encode("utf-8"))
        return ToolResult.of_text(
            f"{verb} {shown} ({size} bytes written)",
            details={"path": shown, "bytes": size, "created": before is None},
        )


async def checked_path(
    cwd: Path, raw: str, decided: Mapping[str, Path] | None
) -> tuple[Path, bool]:
    """The path to send the editor (the decided one, still free of symlinks now) and whether it
    is a directory; a path changed since the check is refused (:class:`ToolError`)."""

    def walk() -> tuple[Path, bool]:
        target, follow = call_target(cwd, raw, decided)
        with pin(target, follow=follow) as place:
            info = place.lstat()
            if info is not None and stat.S_ISLNK(info.st_mode) and not follow:
                raise PathChanged(f"{place.path} is a symlink now")
            return place.path, info is not None and stat.S_ISDIR(info.st_mode)

    try:
        return await asyncio.to_thread(walk)
    except PathChanged as exc:
        raise ToolError(refusal(display_path(cwd, resolve_path(cwd, raw)), exc)) from None
    except OSError:  # a missing directory: the editor says what it makes of the path
        target, _ = call_target(cwd, raw, decided)
        return target, False
