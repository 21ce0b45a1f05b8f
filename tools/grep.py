"""The ``grep`` tool: search file contents with ripgrep (respects .gitignore)."""

import re
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
from tools._paths import display_path, search_target
from tools._present import path_effect, search_title, str_arg
from tools._rg import run_rg
from tools._truncate import DEFAULT_MAX_BYTES, format_size, truncate_head, truncate_line

DEFAULT_LIMIT = 100
# rg --null prints "path\0" then "NUM:" for a match line or "NUM-" for a context line.
_LINE = re.compile(rb"(\d+)([:-])(.*)", re.DOTALL)


class GrepArgs(ToolArguments):
    """Arguments of the grep tool."""

    pattern: Annotated[
        str, Meta(description="Search pattern (regex, or literal text with literal=true)")
    ]
    path: Annotated[
        str | None, Meta(description="Directory or file to search (default: working directory)")
    ] = None
    glob: Annotated[
        str | None,
        Meta(description="Only search files matching this glob, e.g. '*.py' or '**/*.spec.ts'"),
    ] = None
    ignore_case: Annotated[bool, Meta(description="Case-insensitive search")] = False
    literal: Annotated[bool, Meta(description="Treat pattern as literal text, not a regex")] = False
    context: Annotated[
        int, Meta(ge=0, le=50, description="Lines of context before and after each match")
    ] = 0
    limit: Annotated[
        int, Meta(ge=1, description=f"Maximum number of matches (default {DEFAULT_LIMIT})")
    ] = DEFAULT_LIMIT


def _is_match(line: bytes) -> bool:
    nul = line.find(b"\0")
    if nul < 0:
        return False
    found = _LINE.match(line, nul + 1)
    return found is not None and found.group(2) == b":"


class GrepTool(ToolBase):
    """Search file contents; output lines look like ``path:line: text`` (``-`` for context)."""

    name = "grep"
    summary = "Search file contents for a pattern (ripgrep, respects .gitignore)"
    guideline = "Use grep to search file contents (respects .gitignore) instead of grep/rg in bash."
    description = (
        "Search file contents for a regex or literal pattern with ripgrep. Respects .gitignore. "
        "Returns matching lines as 'path:line: text' (context lines as 'path-line- text'). "
        f"Output is limited to {DEFAULT_LIMIT} matches by default and lines are cut at 500 "
        "characters; use read to see a whole file."
    )
    parameters = GrepArgs

    def __init__(self, cwd: str | Path) -> None:
        self.cwd = Path(cwd)

    def title(self, args: Mapping[str, Any]) -> str:
        """``/pattern/ in path`` (``/pattern/i`` when case-insensitive), `` (glob)`` if given."""
        pattern = str_arg(args, "pattern")
        flags = "i" if isinstance(args, Mapping) and args.get("ignore_case") is True else ""
        return search_title(f"/{first_line(pattern, 120)}/{flags}" if pattern else "", args)

    def file_effects(self, args: Mapping[str, Any]) -> list[FileEffect]:
        """Reads ``path`` (the working directory when absent)."""
        return path_effect(args, "read", default=".")

    async def execute(
        self,
        tool_call_id: str,
        args: GrepArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Run the search and format the matches."""
        if cancel.aborted:
            raise ToolError("Aborted")
        target, _ = search_target(self.cwd, args.path, directory=False)
        rg_args = [
            "--null",
            "--line-number",
            "--with-filename",
            "--no-heading",
            "--color=never",
            "--hidden",
            "--no-require-git",
            "--glob=!.git",
            "--no-messages",
        ]
        if args.ignore_case:
            rg_args.append("--ignore-case")
        if args.literal:
            rg_args.append("--fixed-strings")
        if args.context:
            rg_args.append(f"--context={args.context}")
        if args.glob:
            rg_args.append(f"--glob={args.glob}")
        rg_args += ["--regexp", args.pattern]
        if args.path:
            # Paths relative to cwd when inside it, so the model can pass them straight to read.
            rg_args += ["--", display_path(self.cwd, target)]
        out = await run_rg(rg_args, self.cwd, args.limit, _is_match)
        if out.returncode == 2 and not out.lines:
            raise ToolError(f"grep failed: {out.stderr or 'ripgrep exited with an error'}")
        return _format(out.lines, out.stopped_early, args.limit)


def _format(lines: list[bytes], limit_hit: bool, limit: int) -> ToolResult:
    if not any(_is_match(line) for line in lines):
        return ToolResult.of_text("No matches found", details={"matches": 0})
    # rg searches files in parallel; group by file and sort so output is stable between runs.
    groups: dict[bytes, list[str]] = {}
    matches = 0
    cut_any = False
    for raw in lines:
        nul = raw.find(b"\0")
        found = _LINE.match(raw, nul + 1) if nul >= 0 else None
        if found is None:
            continue  # the "--" separator between context groups
        path = raw[:nul]
        text, was_cut = truncate_line(found.group(3).decode("utf-8", "replace").rstrip("\r"))
        cut_any |= was_cut
        sep = found.group(2).decode()
        matches += sep == ":"
        name = path.decode("utf-8", "replace")
        groups.setdefault(path, []).append(f"{name}{sep}{found.group(1).decode()}{sep} {text}")
    body = "\n".join(line for key in sorted(groups) for line in groups[key])
    cut = truncate_head(body, max_lines=10**9, max_bytes=DEFAULT_MAX_BYTES)
    notes = []
    details: dict[str, Any] = {"matches": matches, "files": len(groups)}
    if limit_hit:
        notes.append(
            f"{limit} matches limit reached. Use limit={limit * 2} for more, or refine the pattern"
        )
        details["match_limit_reached"] = limit
    if cut.truncated:
        notes.append(f"{format_size(DEFAULT_MAX_BYTES)} output limit reached")
        details["truncation"] = cut.to_details()
    if cut_any:
        notes.append("Some lines truncated to 500 chars. Use read to see full lines")
        details["lines_truncated"] = True
    text = cut.content
    if notes:
        text += "\n\n[" + ". ".join(notes) + "]"
    return ToolResult.of_text(text, details=details)


def create_grep_tool(cwd: str | Path) -> GrepTool:
    """A grep tool searching relative to ``cwd``."""
    return GrepTool(cwd)
