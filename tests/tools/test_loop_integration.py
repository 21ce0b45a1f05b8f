"""The tools driven by the real agent loop: abort kills bash's process tree, errors are flagged."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_core import Agent, ToolResultMessage
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tools.bash.test_bash import _alive, _wait_for_pid_file
from tools import DEFAULT_TOOL_NAMES, create_tools


async def test_agent_abort_kills_bash_tree(tmp_path: Path) -> None:
    pid_file = tmp_path / "bg.pid"
    command = f"sleep 100 & echo $! > {pid_file}; echo working; sleep 100"
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": command})), reply(text("unused"))
    )
    agent = Agent(stream, tools=create_tools(DEFAULT_TOOL_NAMES, tmp_path))
    task = asyncio.create_task(agent.prompt("go"))
    pid = await _wait_for_pid_file(pid_file)
    await asyncio.sleep(0.1)
    agent.abort()
    await asyncio.wait_for(task, 5)
    result = next(m for m in agent.state.messages if isinstance(m, ToolResultMessage))
    assert result.is_error
    assert "working" in result.text and "Command aborted" in result.text
    assert not _alive(pid)


async def test_agent_reports_failures_as_error_results(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(
            tool_call("c1", "bash", {"command": "echo oops; exit 2"}),
            tool_call("c2", "read", {"path": "missing.txt"}),
            tool_call("c3", "write", {"path": "out/new.txt", "content": "hi"}),
        ),
        reply(text("done")),
    )
    agent = Agent(stream, tools=create_tools(DEFAULT_TOOL_NAMES, tmp_path))
    await agent.prompt("go")
    results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert [r.is_error for r in results] == [True, True, False]
    assert results[0].text == "oops\n\nCommand exited with code 2"
    assert results[1].text == "File not found: missing.txt"
    assert (tmp_path / "out" / "new.txt").read_text() == "hi"
