"""The ``bash_output`` tool: what a background shell printed since the last look, and its state."""

from pathlib import Path
from typing import Annotated

from msgspec import Meta

from agent_core import AbortSignal, ToolArguments, ToolResult
from agent_core.tool import OnToolUpdate
from tools._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_tail
from tools.bash._background_tool import BackgroundShellTool, shell_state
from tools.bash._result import clean_output
from tools.sandbox import Sandbox


class BashOutputArgs(ToolArguments):
    """Arguments of the bash_output tool."""

    id: Annotated[
        str, Meta(description="The background shell's id (from bash with background: true)")
    ]


class BashOutputTool(BackgroundShellTool):
    """New output of a background shell (a rolling tail when there is a lot) and its state."""

    name = "bash_output"
    summary = "Read new output and the state of a background shell"
    guideline = "Use bash_output to check on a background shell instead of sleeping in bash."
    description = (
        "Return the output a background shell (started with bash background: true) printed "
        "since the last bash_output call for it, and whether it is still running or its exit "
        f"code. Long output is cut to its last {DEFAULT_MAX_LINES} lines or "
        f"{DEFAULT_MAX_BYTES // 1024}KB."
    )
    parameters = BashOutputArgs

    async def execute(
        self,
        tool_call_id: str,
        args: BashOutputArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Read what is new; raises ToolError for an unknown id."""
        shell = self.find_shell(args.id, cancel)
        data, skipped = shell.read_new()
        if skipped:  # the held bytes may begin mid-line: start at the next line
            cut_at = data.find(b"\n")
            data = data[cut_at + 1 :] if 0 <= cut_at < len(data) - 1 else data
        cut = truncate_tail(
            clean_output(data.decode("utf-8", "replace")), DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES
        )
        info = shell.info()
        parts = [cut.content] if cut.content else ["(no new output)"]
        if skipped or cut.truncated:
            earlier = skipped + (cut.total_bytes - cut.output_bytes)
            where = shell.buffer.full_output_path
            saved = f" Full output: {where}" if where else ""
            parts.append(f"[{format_size(earlier)} of earlier new output not shown.{saved}]")
        parts.append(f"[{shell.id}: {shell_state(info)}]")
        parts += await self.sandbox.after_command(shell.sandboxed)
        details = {
            "id": shell.id,
            "state": info.state,
            "exit_code": info.exit_code,
            "pid": info.pid,
            "full_output_path": shell.buffer.full_output_path,
        }
        return ToolResult.of_text("\n\n".join(parts), details=details)


def create_bash_output_tool(cwd: str | Path, sandbox: Sandbox | None = None) -> BashOutputTool:
    """A bash_output tool for the background shells of ``sandbox``."""
    return BashOutputTool(cwd, sandbox)
