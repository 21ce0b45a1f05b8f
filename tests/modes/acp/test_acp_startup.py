"""ACP start-up (issue 25): ``initialize`` is answered with the SDK (and agent_core, imported
before it: see ``pi_cli.modes.acp.sdk``); pi's session machinery (the shell, the tools, the
updates) is imported once that answer is out, and collection, which pi's start-up turns off,
is on again after it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

_PROBE = """
import asyncio, gc, json, sys
from pi_cli.args import parse_fast
gc.disable()  # as pi_cli.cli does for start-up
from pi_cli.modes.acp.mode import PiAgent
HEAVY = ("tools", "pi_cli.shell.coding_agent", "pi_cli.modes.acp.updates")
seen = {"imported": [m for m in HEAVY if m in sys.modules]}

async def main():
    agent = PiAgent(parse_fast(["--mode", "acp"]))
    answer = await agent.initialize(1)
    seen["answer"] = answer.model_dump(mode="json", by_alias=True, exclude_none=True)
    seen["answered"] = [m for m in HEAVY if m in sys.modules]
    seen["gc_at_answer"] = gc.isenabled()
    await asyncio.sleep(0)  # the loop's next turn: after the answer was written
    seen["after"] = [m for m in HEAVY if m in sys.modules]
    seen["gc_after"] = gc.isenabled()
    from acp import schema  # the updates inside SessionNotification were built on their own
    seen["built"] = [m.__name__ for m in (schema.SessionNotification, schema.AgentMessageChunk,
        schema.ToolCallStart, schema.ToolCallProgress, schema.PromptRequest)
        if m.__pydantic_complete__]
    await agent.initialize(1)  # a second initialize warms nothing again
    await asyncio.sleep(0)

asyncio.run(main())
print(json.dumps(seen))
"""


def test_initialize_is_answered_before_the_session_machinery_is_imported() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen["imported"] == []
    assert seen["answered"] == []
    assert seen["gc_at_answer"] is False
    assert seen["after"] == [
        "tools",
        "pi_cli.shell.coding_agent",
        "pi_cli.modes.acp.updates",
    ]
    assert seen["gc_after"] is True
    assert seen["built"] == [
        "SessionNotification",
        "AgentMessageChunk",
        "ToolCallStart",
        "ToolCallProgress",
        "PromptRequest",
    ]
    capabilities = seen["answer"]["agentCapabilities"]
    assert capabilities["loadSession"] is True
    assert capabilities["promptCapabilities"] == {
        "image": True,
        "embeddedContext": True,
        "audio": False,
    }
    assert seen["answer"]["agentInfo"]["name"] == "pi"
