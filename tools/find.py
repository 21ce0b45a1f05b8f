"""The ``find`` tool: list files matching a glob with ripgrep (respects .gitignore)."""

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
from tools._present import path_effect, search_title, str_arg
from tools._rg import run_rg
from tools._truncate import DEFAULT_MAX_BYTES, format_size, truncate_head

DEFAULT_LIMIT = 1000


class FindArgs(ToolArguments):
    """Arguments of the find tool."""

    pattern: Annotated[
        str,
        Meta(
            description="Glob pattern to match files, e.g. '*.py', '**/*.json' or 'src/**/test_*.py'"
        ),
    ]
    path: Annotated[
        str | None, Meta(description="Directory to search in (default: working directory)")
    ] = None
    limit: Annotated[
        int, Meta(ge=1, description=f"Maximum number of results (default {DEFAULT_LIMIT})")
    ] = DEFAULT_LIMIT


class FindTool(ToolBase):
    """Find files by glob; paths are relative to the working directory when inside it."""

    name = "find"
    summary = "Find files by glob pattern (respects .gitignore)"
    guideline = "Use find to locate files by glob pattern instead of find in bash."
    description = (
        "Search for files by glob pattern. A pattern without '/' matches file names at any depth "
        "('*.py'); one with '/' matches paths relative to the search directory. Respects "
        f".gitignore. Returns at most {DEFAULT_LIMIT} paths by default, sorted."
    )
    parameters = FindArgs

    def __init__(self, cwd: str | Path) -> None:
        self.cwd = Path(cwd)

    def title(self, args: Mapping[str, Any]) -> str:
        """``pattern in path`` (path default ``.``)."""
        pattern = str_arg(args, "pattern")
        return search_title(first_line(pattern, 120) if pattern else "", args)

    def file_effects(self, args: Mapping[str, Any]) -> list[FileEffect]:
        """Reads ``path`` (the working directory when absent)."""
        return path_effect(args, "read", default=".")

    async def execute(
        self,
        tool_call_id: str,
        args: FindArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """List matching files."""
        if cancel.aborted:
            raise ToolError("Aborted")
        target, shown = search_target(self.cwd, args.path, directory=True)
        rg_args = [
            "--files",
            "--hidden",
            "--no-require-git",
            "--glob=!.git",
            "--no-messages",
            f"--glob={args.pattern}",
        ]
        # rg matches globs relative to the directory it searches, so run it there and prefix.
        out = await run_rg(rg_args, target, args.limit)
        if out.returncode == 2 and not out.lines:
            raise ToolError(f"find failed: {out.stderr or 'ripgrep exited with an error'}")
        prefix = "" if target == self.cwd else shown.rstrip("/") + "/"
        paths = sorted(prefix + raw.decode("utf-8", "replace") for raw in out.lines if raw)
        if not paths:
            return ToolResult.of_text("No files found matching pattern", details={"count": 0})
        cut = truncate_head("\n".join(paths), max_lines=10**9, max_bytes=DEFAULT_MAX_BYTES)
        notes = []
        details: dict[str, object] = {"count": len(paths)}
        if out.stopped_early:
            notes.append(
                f"{args.limit} results limit reached. Use limit={args.limit * 2} for more, or refine the pattern"
            )
            details["result_limit_reached"] = args.limit
        if cut.truncated:
            notes.append(f"{format_size(DEFAULT_MAX_BYTES)} output limit reached")
            details["truncation"] = cut.to_details()
        text = cut.content + ("\n\n[" + ". ".join(notes) + "]" if notes else "")
        return ToolResult.of_text(text, details=details)


def create_find_tool(cwd: str | Path) -> FindTool:
    """A find tool searching relative to ``cwd``."""
    return FindTool(cwd)
