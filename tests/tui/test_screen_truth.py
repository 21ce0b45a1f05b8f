"""The screen tells the truth: a parallel tool stops spinning when its own result is in and is
timed on its own; the turn title says "running" (not "waiting for the model") once text streams."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_core import AbortSignal, ToolBase, ToolResult
from agent_core.tool import OnToolUpdate
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import (
    SIZE,
    CommandArgs,
    make_app,
    make_shell,
    real_title,
    screen_line,
    type_text,
    wait_until,
)
from tests.tui.screen_text import screen_text


class KeyedGate(ToolBase):
    """A bash-like tool: each command waits for its own ``release[command]``."""

    name = "bash"
    description = "Run a command (test double)."
    parameters = CommandArgs

    def __init__(self, *commands: str) -> None:
        self.started = {command: asyncio.Event() for command in commands}
        self.release = {command: asyncio.Event() for command in commands}

    def title(self, args: Any) -> str:
        """Like the real bash tool."""
        return real_title("bash", args)

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Wait for this command's release."""
        command = args.command
        self.started[command].set()
        await self.release[command].wait()
        return ToolResult.of_text(f"{command} done")


async def test_a_parallel_tool_stops_spinning_when_its_own_result_is_in(tmp_path: Path) -> None:
    now = [0.0]
    gate = KeyedGate("sleep 5", "echo fast")
    stream = ScriptedStream(
        reply(
            tool_call("c1", "bash", {"command": "sleep 5"}),
            tool_call("c2", "bash", {"command": "echo fast"}),
        ),
        reply(text("both done")),
    )
    app = make_app(make_shell(tmp_path, stream, tools=[gate]), clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started["sleep 5"].wait()
        await gate.started["echo fast"].wait()
        now[0] = 0.3
        gate.release["echo fast"].set()  # the second call ends first
        await wait_until(pilot, lambda: "✓ bash $ echo fast" in screen_text(app))
        now[0] = 3.0
        app.tick()
        await pilot.pause()
        fast, slow = screen_line(app, "$ echo fast"), screen_line(app, "$ sleep 5")
        assert "✓ bash $ echo fast · 0.3s" in fast, fast  # its own time, no spinner
        assert "echo fast done" in screen_text(app)  # and its result, under it
        assert "✓" not in slow and "bash $ sleep 5 · 3.0s" in slow, slow  # still running
        now[0] = 4.5
        gate.release["sleep 5"].set()
        await wait_until(pilot, lambda: app.is_settled)
        assert "✓ bash $ sleep 5 · 4.5s" in screen_line(app, "$ sleep 5")
        assert "✓ bash $ echo fast · 0.3s" in screen_line(app, "$ echo fast")


async def test_the_turn_title_stops_waiting_for_the_model_once_text_streams(
    tmp_path: Path,
) -> None:
    now = [0.0]
    stream = ScriptedStream(reply(text("The directory contains", " two files"), hang=True,
                                  hang_after=2))  # fmt: skip
    app = make_app(make_shell(tmp_path, stream, tools=[]), clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await stream.hanging.wait()
        now[0] = 0.7
        app.tick()
        await wait_until(pilot, lambda: "The directory contains" in screen_text(app))
        title = screen_line(app, "Turn 1 ·")
        assert "waiting for the model" not in title, title
        assert "running 0.7s" in title, title
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.is_settled)
