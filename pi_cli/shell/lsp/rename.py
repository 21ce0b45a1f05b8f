"""The ``lsp_rename`` tool: rename a symbol across files through the language server. Off unless
the user turns on ``lsp.rename``; then it joins the tools while a server that renames is ready.

It changes many files, so it goes through the permission engine and the checkpoints like an
edit: the shell's hook plans the rename *before* the permission gate decides (asks the server
for the edit, reads every file it changes: :meth:`LspRenameTool.plan`), the call's file effects
are then every one of those files (the engine decides on each: outside the workspace, protected
paths, plan mode, approvals, with the whole diff as the preview) and the checkpoints snapshot
the workspace before it runs. Running writes exactly the planned change, and only if no file
changed since it was planned (else nothing is written and the model is told to rename again).
"""

import asyncio
import difflib
import json
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from msgspec import Meta

from agent_core import AbortSignal, FileEffect, ToolArguments, ToolBase, ToolError, ToolResult
from agent_core.records import RecordError
from agent_core.tool import OnToolUpdate
from pi_cli.shell.lsp import workspace_edit as wedit
from pi_cli.shell.lsp.manager import LspManager
from pi_cli.shell.lsp.tools import ask, position, served
from tools.safe_files import (
    CheckedPaths,
    NotARegularFile,
    PathChanged,
    call_target,
    pin,
    refusal,
)

MAX_PREVIEW_LINES = 400
MAX_NAME = 200


class RenameArgs(ToolArguments, kw_only=True):
    """Arguments of the lsp_rename tool."""

    path: Annotated[str, Meta(description="The file where the symbol is (relative or absolute)")]
    line: Annotated[int, Meta(ge=1, description="1-based line of the symbol")]
    symbol: Annotated[
        str | None, Meta(description="The identifier on that line to rename (its first occurrence)")
    ] = None
    column: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        Meta(description="1-based column instead of symbol (characters)"),
    ] = None
    new_name: Annotated[str, Meta(min_length=1, max_length=MAX_NAME, description="The new name")]


@dataclass(frozen=True)
class FileChange:
    """One file of a planned rename: its bytes when planned and after."""

    path: Path
    shown: str
    before: bytes
    after: bytes
    edits: int


@dataclass(frozen=True)
class RenamePlan:
    """What a rename call will write (see the module docstring)."""

    old_name: str
    new_name: str
    server: str
    files: tuple[FileChange, ...]

    def diff(self, limit: int = MAX_PREVIEW_LINES) -> str:
        """The unified diff of every file (at most ``limit`` lines)."""
        lines: list[str] = []
        for change in self.files:
            before = change.before.decode("utf-8").splitlines(keepends=True)
            after = change.after.decode("utf-8").splitlines(keepends=True)
            lines += difflib.unified_diff(
                before, after, fromfile=f"a/{change.shown}", tofile=f"b/{change.shown}"
            )
        if len(lines) > limit:
            lines = [*lines[:limit], f"… {len(lines) - limit} more diff lines\n"]
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def plan_key(args: Mapping[str, Any]) -> str | None:
    """What identifies a call's plan: its validated arguments (None: invalid arguments)."""
    try:
        parsed = RenameArgs.model_validate(args)
    except RecordError:
        return None
    return json.dumps(parsed.model_dump(), sort_keys=True)


class LspRenameTool(ToolBase):
    """Rename a symbol across the project through the running language servers."""

    name = "lsp_rename"
    parameters = RenameArgs
    summary = "Rename a symbol across files through the language server"
    guideline = (
        "Use lsp_rename to rename a function, class, variable or field everywhere it is used "
        "(the language server finds every reference) instead of editing each file."
    )

    def __init__(self, manager: LspManager, cwd: Path) -> None:
        self.manager = manager
        self.cwd = cwd
        self.plans: dict[str, RenamePlan] = {}
        """Planned renames by :func:`plan_key`, until they run or are refused."""
        self.checked_paths = CheckedPaths()
        """The real paths the permission check decided on, per call (the gate records them)."""
        self.servers = [
            s.spec.name for s in manager.ready() if s.capabilities.get("renameProvider")
        ]
        self.description = (
            "Rename a symbol everywhere through the project's language server: path, line and "
            "symbol (the identifier on that line) or column, and new_name. It changes every file "
            "that uses the symbol (the user approves it like an edit). Servers that rename: "
            + ", ".join(self.servers)
        )

    def title(self, args: Mapping[str, Any]) -> str:
        """``main.py:5 area -> surface``."""
        where = f"{args.get('path', '')}:{args.get('line', '')}"
        old = args.get("symbol") or (f"col {args['column']}" if args.get("column") else "")
        return f"{where} {old} -> {args.get('new_name', '')}".replace("  ", " ")[:200]

    def file_effects(self, args: Mapping[str, Any]) -> list[FileEffect]:
        """The symbol's file, and once planned every file the rename changes."""
        path = args.get("path") if isinstance(args, Mapping) else None
        effects = [FileEffect(path, "write")] if isinstance(path, str) and path else []
        key = plan_key(args) if effects else None
        planned = self.plans.get(key) if key is not None else None
        if planned is not None:
            effects += [FileEffect(str(change.path), "write") for change in planned.files]
        return effects

    def approval_preview(self, args: Mapping[str, Any]) -> str | None:
        """The planned diff over every file (None before it is planned)."""
        key = plan_key(args)
        planned = self.plans.get(key) if key is not None else None
        if planned is None:
            return None
        head = (
            f"rename {planned.old_name} -> {planned.new_name} ({planned.server}): "
            f"{len(planned.files)} file{'s' * (len(planned.files) != 1)}\n"
        )
        return head + planned.diff()

    # ------------------------------------------------------------------ planning

    async def plan(self, args: Mapping[str, Any]) -> str | None:
        """Ask the server for the rename and read its files; the plan is kept for the call.

        Returns why it cannot be done (None: planned)."""
        key = plan_key(args)
        if key is None:
            return None  # the arguments fail validation: the loop reports that
        parsed = RenameArgs.model_validate(args)
        if "\n" in parsed.new_name or parsed.new_name != parsed.new_name.strip():
            return "new_name must be one identifier (no spaces around it, no line breaks)"
        try:
            self.plans[key] = await self._plan(parsed)
        except ToolError as exc:
            return str(exc)
        return None

    def drop(self, args: Mapping[str, Any]) -> None:
        """Forget the plan of a call that will not run."""
        key = plan_key(args)
        if key is not None:
            self.plans.pop(key, None)

    async def _plan(self, args: RenameArgs) -> RenamePlan:
        server, path, language = await served(self.manager, self.cwd, args.path)
        capability = server.capabilities.get("renameProvider")
        if not capability:
            raise ToolError(f"the {server.spec.name} language server does not rename")
        for changed in server.changed_on_disk():  # the server sees the files as they are
            server.sync(changed, server.documents[changed].language_id)
        doc = server.sync(path, language)
        if doc is None:
            raise ToolError(f"cannot read {args.path}")
        at = position(doc.text, args.line, args.symbol, args.column, server.encoding)
        where = {"textDocument": {"uri": doc.uri}, "position": at}
        line_text = doc.text.split("\n")[args.line - 1]
        old_name = args.symbol or _word_at(line_text, args.column or 1)
        if isinstance(capability, dict) and capability.get("prepareProvider"):
            ready = await ask(server, "textDocument/prepareRename", where)
            if ready is None:
                raise ToolError(f"{old_name or 'that position'} cannot be renamed")
            if isinstance(ready, dict) and isinstance(ready.get("placeholder"), str):
                old_name = ready["placeholder"]
        found = await ask(server, "textDocument/rename", {**where, "newName": args.new_name})
        if found is None:
            raise ToolError(f"{old_name or 'that position'} cannot be renamed (no edit)")
        try:
            edits = wedit.text_edits(found)
            files = tuple(await asyncio.to_thread(self._changes, edits, server.encoding))
        except wedit.EditRefused as exc:
            raise ToolError(f"the rename was not planned: {exc}") from None
        if not files:
            raise ToolError(f"renaming {old_name} changes nothing")
        return RenamePlan(old_name or "?", args.new_name, server.spec.name, files)

    def _changes(self, edits: dict[Path, list[wedit.TextEdit]], encoding: str) -> list[FileChange]:
        changes = []
        for file, items in sorted(edits.items()):
            before = _read_planned(file)
            bom, text = wedit.decode(before, file)
            after = (bom + wedit.apply(text, items, encoding, file)).encode("utf-8")
            if after != before:
                changes.append(FileChange(file, self._shown(file), before, after, len(items)))
        return changes

    def _shown(self, path: Path) -> str:
        try:
            return path.relative_to(self.cwd).as_posix()
        except ValueError:
            return str(path)

    # ------------------------------------------------------------------ running

    async def execute(
        self,
        tool_call_id: str,
        args: RenameArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Write the planned change (every file, or none if one changed since)."""
        planned = self.plans.pop(json.dumps(args.model_dump(), sort_keys=True), None)
        decided = self.checked_paths.take(tool_call_id)
        if planned is None:
            raise ToolError(
                "this rename was not planned with these arguments (they changed after it was "
                "approved, or no language server answered): call lsp_rename again"
            )
        return await asyncio.to_thread(self._write, planned, decided)

    def _write(self, planned: RenamePlan, decided: dict[str, Path] | None) -> ToolResult:
        """(A worker thread.) Every file at exactly the path the permission check decided on
        (:mod:`tools.safe_files`), checked unchanged first, then written; all or nothing."""
        shown = planned.files[0].shown
        try:
            targets = [call_target(self.cwd, str(c.path), decided) for c in planned.files]
            stale = [
                c.shown for c, at in zip(planned.files, targets, strict=True) if _changed(c, at)
            ]
        except PathChanged as exc:
            raise ToolError(refusal(shown, exc)) from None
        if stale:
            raise ToolError(
                f"nothing was renamed: {', '.join(stale[:5])} changed since the rename was "
                "planned; call lsp_rename again"
            )
        written: list[tuple[FileChange, tuple[Path, bool]]] = []
        try:
            for change, target in zip(planned.files, targets, strict=True):
                shown = change.shown
                with pin(target[0], follow=target[1]) as place:
                    place.write_atomic(change.after)
                written.append((change, target))
        except (OSError, PathChanged) as exc:
            for done, target in written:  # all or nothing, as far as the disk lets us
                with suppress(OSError, PathChanged), pin(target[0], follow=target[1]) as place:
                    place.write_atomic(done.before)
            if isinstance(exc, PathChanged):
                raise ToolError(refusal(shown, exc)) from None
            raise ToolError(f"nothing was renamed: cannot write {shown}: {exc}") from None
        return self._result(planned)

    def _result(self, planned: RenamePlan) -> ToolResult:
        edits = sum(c.edits for c in planned.files)
        lines = [
            f"Renamed {planned.old_name} to {planned.new_name}: {edits} change"
            f"{'s' * (edits != 1)} in {len(planned.files)} file{'s' * (len(planned.files) != 1)}:"
        ]
        lines += [f"  {c.shown} ({c.edits})" for c in planned.files]
        details = {
            "diff": planned.diff(limit=4000),
            "files": [c.shown for c in planned.files],
            "path": planned.files[0].shown,
        }
        return ToolResult.of_text("\n".join(lines), details=details)


def _read_planned(path: Path) -> bytes:
    """A file the server's edit names, read without blocking (a FIFO, a device: refused)."""
    try:
        with pin(path, follow=True) as place:
            info = place.lstat()
            if info is not None and info.st_size > wedit.MAX_FILE_BYTES:
                raise wedit.EditRefused(f"{path} is too large to rename in")
            return place.read_bytes()
    except NotARegularFile:
        raise wedit.EditRefused(f"{path} is not a regular file") from None
    except (OSError, PathChanged) as exc:
        raise wedit.EditRefused(
            f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
        ) from None


def _changed(change: FileChange, target: tuple[Path, bool]) -> bool:
    """Whether the file is not what the rename was planned on (gone, replaced, edited)."""
    try:
        with pin(target[0], follow=target[1]) as place:
            return place.read_bytes() != change.before
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError, NotARegularFile):
        return True


def _word_at(line: str, column: int) -> str:
    index = max(0, min(column - 1, len(line)))
    start = index
    while start > 0 and (line[start - 1].isalnum() or line[start - 1] in "_$"):
        start -= 1
    end = index
    while end < len(line) and (line[end].isalnum() or line[end] in "_$"):
        end += 1
    return line[start:end]
