"""The ``bash_kill`` tool: stop a background shell and everything it started."""

from pathlib import Path
from typing import Annotated

from msgspec import Meta

from agent_core import AbortSignal, ToolArguments, ToolResult
from agent_core.tool import OnToolUpdate
from tools.bash._background_tool import BackgroundShellTool, shell_state
from tools.sandbox import Sandbox


class BashKillArgs(ToolArguments):
    """Arguments of the bash_kill tool."""

    id: Annotated[str, Meta(description="The background shell's id")]


class BashKillTool(BackgroundShellTool):
    """SIGTERM a background shell's whole process tree, SIGKILL what is left after a second."""

    name = "bash_kill"
    summary = "Stop a background shell and everything it started"
    guideline = "Use bash_kill to stop background shells you no longer need."
    description = (
        "Stop a background shell (started with bash background: true) and every process it "
        "started: SIGTERM first, SIGKILL for whatever is left a second later."
    )
    parameters = BashKillArgs

    async def execute(
        self,
        tool_call_id: str,
        args: BashKillArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Kill it; raises ToolError for an unknown id."""
        shell = self.find_shell(args.id, cancel)
        was_running = shell.state == "running"
        await shell.kill()
        info = shell.info()
        if was_running:
            text = f"Killed {shell.id} and every process it started."
        else:
            text = (
                f"{shell.id} had already {shell_state(info)}; anything it left running was stopped."
            )
        notes = await self.sandbox.after_command(shell.sandboxed)
        return ToolResult.of_text(
            "\n\n".join([text, *notes]), details={"id": shell.id, "state": info.state}
        )


def create_bash_kill_tool(cwd: str | Path, sandbox: Sandbox | None = None) -> BashKillTool:
    """A bash_kill tool for the background shells of ``sandbox``."""
    return BashKillTool(cwd, sandbox)
