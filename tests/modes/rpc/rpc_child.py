"""``pi --mode rpc`` over a scripted model, for subprocess RPC tests.

Usage: ``python -m tests.modes.rpc.rpc_child SCRIPT.json`` (cwd = the project). The script is
a JSON list of responses: ``{"text", "tool_calls": [{"id", "name", "arguments"}], "error",
"delay", "input_tokens"}``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from agent_core import Usage
from pi_cli.modes.rpc.mode import serve
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import Response, ScriptedStream, reply, text, tool_call


def response(spec: dict[str, Any]) -> Response:
    """One scripted response from its JSON form."""
    blocks: list[Any] = [text(spec["text"])] if spec.get("text") else []
    blocks += [
        tool_call(c["id"], c["name"], c.get("arguments", {})) for c in spec.get("tool_calls", [])
    ]
    tokens = spec.get("input_tokens")
    return reply(
        *blocks,
        error=spec.get("error"),
        delay=spec.get("delay", 0.0),
        usage=Usage(input=tokens, output=5) if tokens else None,
    )


def main() -> int:
    """Serve RPC on stdin/stdout."""
    script = json.loads(Path(sys.argv[1]).read_text())
    stream = ScriptedStream(*(response(s) for s in script))
    shell = CodingAgent(ShellOptions(cwd=Path.cwd(), stream_fn=stream, tools=["bash", "read"]))
    return asyncio.run(serve(shell, sys.stdin.buffer, sys.stdout.buffer))


if __name__ == "__main__":
    raise SystemExit(main())
