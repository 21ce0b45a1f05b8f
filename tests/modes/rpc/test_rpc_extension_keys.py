"""``get_front_state``'s ``extensionKeys`` and ``run_extension_key``: what an attached front end
binds, and pressing one runs its handler in the shell's process (its notice comes back)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from pi_cli.modes.rpc.connection import RpcConnection
from pi_cli.modes.rpc.output import RpcOutput
from pi_cli.shell import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream

EXTENSION = """
from pi_cli.shell.extensions import ExtensionAPI


def register(pi: ExtensionAPI) -> None:
    @pi.key("ping", "f6", description="Say ping")
    def ping(event, ctx) -> None:
        ctx.ui.notify("ping from the key")
"""


async def _response(lines: list[dict[str, Any]], wanted: str) -> dict[str, Any]:
    for _ in range(500):
        found = [x for x in lines if x.get("type") == "response" and x.get("id") == wanted]
        if found:
            return found[0]
        await asyncio.sleep(0.01)
    raise AssertionError(f"no response {wanted}: {lines}")


async def test_keys_are_listed_and_run_and_an_unknown_key_is_refused(
    tmp_path: Path, pi_home: Path, project: Path
) -> None:
    extension = tmp_path / "ping_key.py"
    extension.write_text(EXTENSION)
    (pi_home / "settings.json").write_text(json.dumps({"extensions": [str(extension)]}))
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=ScriptedStream()))
    lines: list[dict[str, Any]] = []
    output = RpcOutput(shell, lines.append)
    shell.subscribe(output)
    connection = RpcConnection(shell, lines.append, output)
    try:
        await connection.handle_line(json.dumps({"type": "get_front_state", "id": "f"}))
        keys = (await _response(lines, "f"))["data"]["extensionKeys"]
        assert keys == [
            {
                "id": "ping_key.ping",
                "keys": "f6",
                "description": "Say ping",
                "extension": "ping_key",
            }
        ]
        await connection.handle_line(
            json.dumps({"type": "run_extension_key", "id": "k", "keyId": "ping_key.ping"})
        )
        assert (await _response(lines, "k"))["success"] is True
        for _ in range(500):
            if any("ping from the key" in json.dumps(x) for x in lines):
                break
            await asyncio.sleep(0.01)
        assert any("ping from the key" in json.dumps(x) for x in lines)
        await connection.handle_line(
            json.dumps({"type": "run_extension_key", "id": "u", "keyId": "ping_key.nope"})
        )
        refused = await _response(lines, "u")
        assert (
            refused["success"] is False and "no extension key 'ping_key.nope'" in refused["error"]
        )
    finally:
        await shell.aclose()
