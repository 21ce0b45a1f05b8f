"""The TUI starts at once with MCP servers configured; the footer shows their state."""

from __future__ import annotations

import sys
from pathlib import Path

from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import ScriptedStream
from tests.tui.helpers import make_app, make_shell, wait_until

ROGUE = str(Path(__file__).resolve().parents[1] / "shell" / "mcp" / "rogue_server.py")


async def test_the_footer_shows_mcp_servers_as_they_start_or_fail(tmp_path: Path) -> None:
    servers = {
        "ok": {"command": sys.executable, "args": [ROGUE]},
        "broken": {"command": sys.executable, "args": [ROGUE, "exit"]},
        "hang": {"command": sys.executable, "args": [ROGUE, "hang"]},
    }
    shell = make_shell(
        tmp_path, ScriptedStream(), settings=Settings.model_validate({"mcpServers": servers})
    )
    app = make_app(shell)
    async with app.run_test(size=(120, 30)) as pilot:
        # The first frame is up while a server still hangs in initialize.
        assert "MCP " in app.footer.text and shell.mcp.servers["hang"].state == "starting"
        await wait_until(pilot, lambda: "MCP 1/3 !" in app.footer.text, timeout=30)
    await shell.aclose()
