"""The ``edit`` tool: exact-text replacements, several per call, applied atomically."""

import asyncio
import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

from msgspec import Meta

from agent_core import AbortSignal, FileEffect, ToolArguments, ToolBase, ToolError, ToolResult
from agent_core.records import Record, RecordError
from agent_core.tool import OnToolUpdate
from tools._match import find_match
from tools._paths import display_path, resolve_path
from tools._present import path_effect, str_arg, with_suffix
from tools.safe_files import (
    CheckedPaths,
    NotARegularFile,
    PathChanged,
    Place,
    call_target,
    pin,
    refusal,
)

_BOM = "\ufeff"


class EditItem(ToolArguments):
    """One replacement."""

    old_text: Annotated[
        str,
        Meta(
            description="Exact text to find; must occur exactly once in the file (include enough context)"
        ),
    ]
    new_text: Annotated[str, Meta(description="Text that replaces old_text")]


class EditArgs(ToolArguments):
    """Arguments of the edit tool."""

    path: Annotated[
        str,
        Meta(
            description="Path to the file to edit (relative to the working directory or absolute)"
        ),
    ]
    edits: Annotated[
        list[EditItem],
        Meta(
            min_length=1,
            description="Replacements, each matched against the original file; they must not overlap. "
            "Use several edits to change several places in one call.",
        ),
    ]


class EditDetails(Record, rename=None):
    """What a successful edit reports to front ends.

    On the wire (``ToolResult.details``, session files) it is the plain dict
    ``{"diff", "first_changed_line", "path"}``; read it back with :meth:`from_details`.
    """

    diff: str
    """Unified diff of the change (``a/<path>`` -> ``b/<path>``, 3 lines of context)."""
    first_changed_line: int
    """1-based line of the first change in the original file."""
    path: str
    """The file as shown to the model (relative to the working directory when inside it)."""

    @classmethod
    def from_details(cls, details: object) -> "EditDetails | None":
        """The details of an edit result, or None when ``details`` is not one (never raises)."""
        try:
            return cls.model_validate(details)
        except RecordError:
            return None


class EditTool(ToolBase):
    """Replace exact snippets of a file; each must match once and edits must not overlap."""

    name = "edit"
    summary = "Edit a file by replacing exact text snippets"
    guideline = (
        "Use edit for precise changes: old_text must match the file exactly (include enough "
        "context to be unique)."
    )
    description = (
        "Edit a file by replacing exact text. Each old_text must match exactly one place in the "
        "original file (whitespace must match; if no exact match exists, a match tolerant of "
        "trailing whitespace, smart quotes and unicode dashes is tried). Edits must not overlap. "
        "Read the file first, and include enough surrounding lines to make each old_text unique."
    )
    parameters = EditArgs

    def __init__(self, cwd: str | Path) -> None:
        self.cwd = Path(cwd)
        self.checked_paths = CheckedPaths()
        """The paths the permission check decided on, per call (see :mod:`tools.safe_files`)."""

    def title(self, args: Mapping[str, Any]) -> str:
        """``path``, plus `` (N edits)`` when the call makes several."""
        path = str_arg(args, "path")
        if path is None:
            return ""
        edits = args.get("edits")
        count = len(edits) if isinstance(edits, list) else 0
        return with_suffix(path, f" ({count} edits)" if count > 1 else "")

    def file_effects(self, args: Mapping[str, Any]) -> list[FileEffect]:
        """Writes ``path``."""
        return path_effect(args, "write")

    async def execute(
        self,
        tool_call_id: str,
        args: EditArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Apply ``args.edits``; on any failure nothing is written."""
        if cancel.aborted:
            raise ToolError("Aborted")
        decided = self.checked_paths.take(tool_call_id)
        return await asyncio.to_thread(self._edit, args, decided)

    def _edit(self, args: EditArgs, decided: dict[str, Path] | None = None) -> ToolResult:
        shown = display_path(self.cwd, resolve_path(self.cwd, args.path))
        try:
            target, follow = call_target(self.cwd, args.path, decided)
            with pin(target, follow=follow) as place:
                original = _read_text(place, shown)
                output, details = edit_text(original, args.edits, shown)
                place.write_atomic(output.encode("utf-8"))
        except PathChanged as exc:
            raise ToolError(refusal(shown, exc)) from None
        except FileNotFoundError:
            raise ToolError(f"File not found: {shown}") from None
        except IsADirectoryError:
            raise ToolError(f"{shown} is a directory, not a file.") from None
        except NotARegularFile:
            # Reading a FIFO or a tty would block forever in the worker thread (and at exit).
            raise ToolError(
                f"{shown} is not a regular file (device, FIFO or socket); use bash to inspect it."
            ) from None
        except OSError as exc:
            raise ToolError(f"Cannot write {shown}: {exc.strerror or exc}") from None
        return edit_result(len(args.edits), details)


def _read_text(place: Place, shown: str) -> str:
    try:
        return place.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{shown} is not valid UTF-8 text; edit only changes text files.") from None
    except (PathChanged, FileNotFoundError, IsADirectoryError, NotARegularFile):
        raise
    except OSError as exc:
        raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}") from None


def edit_text(original: str, edits: list[EditItem], shown: str) -> tuple[str, EditDetails]:
    """The file text after ``edits`` (its BOM and CRLF line ends kept) and the edit's details.

    Raises:
        ToolError: no change, or an edit that fails (see :func:`apply_edits`).
    """
    bom = original.startswith(_BOM)
    text = original[1:] if bom else original
    # Only a file whose every line ends in CRLF is normalized; mixed files are matched as
    # they are (the tolerant pass treats a stray "\r" as trailing whitespace).
    crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
    if crlf:
        text = text.replace("\r\n", "\n")
    new_text, first_start = apply_edits(text, edits, multiple=len(edits) > 1)
    if new_text == text:
        raise ToolError(f"No changes made to {shown}: the replacements produce identical content.")
    diff = "".join(
        difflib.unified_diff(
            text.splitlines(keepends=True),
            new_text.splitlines(keepends=True),
            fromfile=f"a/{shown}",
            tofile=f"b/{shown}",
            n=3,
        )
    )
    output = new_text.replace("\n", "\r\n") if crlf else new_text
    first_line = text.count("\n", 0, first_start) + 1
    return (_BOM + output if bom else output), EditDetails(
        diff=diff, first_changed_line=first_line, path=shown
    )


def edit_result(count: int, details: EditDetails) -> ToolResult:
    """What the model reads after ``count`` edits applied."""
    noun = "edit" if count == 1 else "edits"
    return ToolResult.of_text(
        f"Successfully applied {count} {noun} to {details.path}.",
        # A plain dict on the wire: front ends read details["diff"] and sessions store JSON.
        details=details.model_dump(),
    )


def apply_edits(text: str, edits: list[EditItem], multiple: bool = True) -> tuple[str, int]:
    """Apply ``edits`` to ``text`` (all matched against the original).

    Returns the new text and the offset of the first change.

    Raises:
        ToolError: naming the failing edit and why (empty, not found, ambiguous, no change,
            overlapping).
    """
    spans: list[tuple[int, int, str, int]] = []
    for number, item in enumerate(edits, 1):
        label = f"Edit {number}" if multiple else "Edit"
        old = item.old_text.replace("\r\n", "\n")
        new = item.new_text.replace("\r\n", "\n")
        if not old:
            raise ToolError(f"{label}: old_text is empty; give the exact text to replace.")
        if old == new:
            raise ToolError(f"{label}: old_text and new_text are identical (no change).")
        match = find_match(text, old)
        if match.count == 0:
            raise ToolError(
                f"{label}: old_text not found in the file. It must match exactly, including "
                "whitespace and indentation; read the file again and copy the text."
            )
        if match.count > 1:
            times = f"{match.count}+" if match.count >= 100 else str(match.count)
            raise ToolError(
                f"{label}: old_text found {times} times; it must be unique. Include more "
                "surrounding lines to pick one occurrence."
            )
        spans.append((match.start, match.end, new, number))

    spans.sort()
    for before, after in zip(spans, spans[1:], strict=False):
        if after[0] < before[1]:
            raise ToolError(
                f"Edits {before[3]} and {after[3]} overlap; merge them into one edit or make "
                "them target separate parts of the file."
            )
    parts: list[str] = []
    cursor = 0
    for start, end, new, _number in spans:
        parts.append(text[cursor:start])
        parts.append(new)
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts), spans[0][0]


def create_edit_tool(cwd: str | Path) -> EditTool:
    """An edit tool resolving relative paths against ``cwd``."""
    return EditTool(cwd)
