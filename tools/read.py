"""The ``read`` tool: text files (paged and truncated) and images."""

import asyncio
import base64
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, BinaryIO

from msgspec import Meta

from agent_core import (
    AbortSignal,
    FileEffect,
    ImageContent,
    TextContent,
    ToolArguments,
    ToolBase,
    ToolError,
    ToolResult,
)
from agent_core.tool import OnToolUpdate
from tools._lines import Line, read_window
from tools._paths import display_path, resolve_path
from tools._present import int_arg, path_effect, str_arg, with_suffix
from tools._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head
from tools.safe_files import (
    CheckedPaths,
    NotARegularFile,
    PathChanged,
    call_target,
    pin,
    refusal,
)

MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_LINE_BYTES = 48 * 1024
"""A longer line is cut (and marked), so one line always fits the 50 KB output budget."""
_SNIFF_BYTES = 8192


class ReadArgs(ToolArguments):
    """Arguments of the read tool."""

    path: Annotated[
        str,
        Meta(
            description="Path to the file to read (relative to the working directory or absolute)"
        ),
    ]
    offset: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        Meta(description="Line number to start reading from (1-based)"),
    ] = None
    limit: Annotated[
        Annotated[int, Meta(ge=1)] | None, Meta(description="Maximum number of lines to read")
    ] = None


def sniff_image(head: bytes) -> str | None:
    """The MIME type when ``head`` starts like a png/jpeg/gif/webp file, else None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


class ReadTool(ToolBase):
    """Read a text file (truncated, pageable with offset/limit) or an image."""

    name = "read"
    summary = "Read file contents (text or images), paged with offset/limit"
    guideline = (
        "Use read to look at files before you change or explain them; prefer it over cat/sed "
        "in bash."
    )
    description = (
        "Read the contents of a file. Supports text files and images (png, jpg, gif, webp); "
        f"images are returned as attachments. Text output is truncated to {DEFAULT_MAX_LINES} "
        f"lines or {DEFAULT_MAX_BYTES // 1024}KB, whichever comes first; use offset/limit for "
        "large files and keep reading with the offset the note gives until you have what you need."
    )
    parameters = ReadArgs

    def __init__(self, cwd: str | Path) -> None:
        self.cwd = Path(cwd)
        self.checked_paths = CheckedPaths()
        """The paths the permission check decided on, per call (see :mod:`tools.safe_files`)."""

    def title(self, args: Mapping[str, Any]) -> str:
        """``path``, or ``path:offset-end`` for a window (``path:offset`` to the end)."""
        path = str_arg(args, "path")
        if path is None:
            return ""
        offset, limit = int_arg(args, "offset"), int_arg(args, "limit")
        if offset is None and limit is None:
            return with_suffix(path, "")
        start = offset or 1
        span = f"{start}-{start + limit - 1}" if limit else str(start)
        return with_suffix(path, f":{span}")

    def file_effects(self, args: Mapping[str, Any]) -> list[FileEffect]:
        """Reads ``path``."""
        return path_effect(args, "read")

    async def execute(
        self,
        tool_call_id: str,
        args: ReadArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Read ``args.path``; raises ToolError with a clear reason on failure."""
        if cancel.aborted:
            raise ToolError("Aborted")
        decided = self.checked_paths.take(tool_call_id)
        # File I/O off the event loop so a big read never stalls the UI.
        return await asyncio.to_thread(self._read, args, decided)

    def _read(self, args: ReadArgs, decided: dict[str, Path] | None = None) -> ToolResult:
        shown = display_path(self.cwd, resolve_path(self.cwd, args.path))
        try:
            target, follow = call_target(self.cwd, args.path, decided)
            with pin(target, follow=follow) as place:
                handle = place.open_read()
        except PathChanged as exc:
            raise ToolError(refusal(shown, exc)) from None
        except (FileNotFoundError, NotADirectoryError):
            raise ToolError(f"File not found: {shown}") from None
        except IsADirectoryError:
            raise ToolError(f"{shown} is a directory, not a file. Use ls to list it.") from None
        except NotARegularFile:
            # Opening a FIFO or a tty blocks forever in the worker thread (and then at exit).
            raise ToolError(
                f"{shown} is not a regular file (device, FIFO or socket); use bash to inspect it."
            ) from None
        except OSError as exc:
            raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}") from None
        with handle:
            head = handle.read(_SNIFF_BYTES)
            mime = sniff_image(head)
            if mime is not None:
                return self._image(handle, shown, mime)
            if b"\x00" in head:
                raise ToolError(
                    f"{shown} appears to be a binary file; read only supports text and images."
                )
            handle.seek(0)
            return self._text(handle, shown, args)

    def _image(self, handle: BinaryIO, shown: str, mime: str) -> ToolResult:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_IMAGE_BYTES:
            raise ToolError(
                f"Image {shown} is {format_size(size)}, over the {format_size(MAX_IMAGE_BYTES)} limit."
            )
        handle.seek(0)
        data = base64.b64encode(handle.read()).decode("ascii")
        return ToolResult(
            content=[
                TextContent(text=f"Read image file {shown} [{mime}, {format_size(size)}]"),
                ImageContent(data=data, mime_type=mime),
            ],
            details={"path": shown, "mime_type": mime, "bytes": size},
        )

    def _text(self, handle: Any, shown: str, args: ReadArgs) -> ToolResult:
        start = args.offset or 1
        wanted = min(args.limit or DEFAULT_MAX_LINES, DEFAULT_MAX_LINES)
        # Stream the file: only the window is kept, each line cut to MAX_LINE_BYTES.
        lines, total = read_window(handle, start, wanted, DEFAULT_MAX_BYTES, MAX_LINE_BYTES)
        window = [self._decode(line, shown) for line in lines]
        if window and start == 1:
            window[0] = window[0].removeprefix("\ufeff")  # edit keeps a BOM; the model needn't
        if total == 0 and start == 1:
            return ToolResult.of_text("", details={"path": shown, "total_lines": 0})
        if start > total:
            raise ToolError(f"Offset {start} is beyond end of file ({total} lines total)")

        cut = truncate_head("\n".join(window), DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES)
        end = start + cut.output_lines - 1
        details: dict[str, Any] = {"path": shown, "total_lines": total, "start_line": start}
        long_lines = [line.number for line in lines[: cut.output_lines] if line.cut]
        if long_lines:
            details["long_lines"] = long_lines
        text = cut.content
        user_limited = args.limit is not None and cut.output_lines == args.limit
        if cut.truncated or (end < total and not user_limited):
            limit_note = (
                f" ({format_size(DEFAULT_MAX_BYTES)} limit)" if cut.truncated_by == "bytes" else ""
            )
            text += (
                f"\n\n[Showing lines {start}-{end} of {total}{limit_note}. "
                f"Use offset={end + 1} to continue.]"
            )
            by = cut.truncated_by or "lines"
            details["truncation"] = {**cut.to_details(), "truncated": True, "truncated_by": by}
        elif end < total:
            text += f"\n\n[{total - end} more lines in file. Use offset={end + 1} to continue.]"
        details["end_line"] = end
        return ToolResult.of_text(text, details=details)

    @staticmethod
    def _decode(line: Line, shown: str) -> str:
        """The line's text; a cut line ends with a marker giving its full size."""
        head = line.head
        try:
            text = head.decode("utf-8")
        except UnicodeDecodeError as exc:
            # A cut may split the last character; anything else is not UTF-8 text.
            if not (line.cut and exc.start >= len(head) - 3):
                raise ToolError(
                    f"{shown} is not valid UTF-8 text (line {line.number}); it may be binary or "
                    "use another encoding. Use bash (e.g. iconv or xxd) to inspect it."
                ) from None
            text = head[: exc.start].decode("utf-8")
        if not line.cut:
            return text.removesuffix("\r")
        more = line.offset + len(head) + 1
        return (
            f"{text} … [line {line.number} cut: {format_size(len(head))} of "
            f"{format_size(line.length)} shown; read on with bash: "
            f"tail -c +{more} {shown} | head -c 20000]"
        )


def create_read_tool(cwd: str | Path) -> ReadTool:
    """A read tool resolving relative paths against ``cwd``."""
    return ReadTool(cwd)
