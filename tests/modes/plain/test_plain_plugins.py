"""``/plugin`` in the plain REPL: a real marketplace (wshobson/agents' claude-code-workflows,
MIT) from a local git repository; the list as printed, an install and its state."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.plugins.commands import plugin_words
from tests.agent_core.scripted_stream import ScriptedStream
from tests.modes.plain.harness import ENTER, plain_repl
from tests.shell.plugins.conftest import market_repo  # noqa: F401 - a fixture

MARKET = "claude-code-workflows"


async def test_plugin_lists_installs_and_shows_state(tmp_path: Path, market_repo: Path) -> None:  # noqa: F811
    plugin_words(["marketplace", "add", f"file://{market_repo}"], tmp_path)
    stream = ScriptedStream()
    async with plain_repl(tmp_path, stream) as h:
        h.send("/plugin" + ENTER)
        await h.until(lambda: f"before-you-build@{MARKET}" in h.output)
        assert f"debugging-toolkit@{MARKET}  Interactive debugging" in h.output
        h.send(f"/plugin install debugging-toolkit@{MARKET}" + ENTER)
        await h.until(lambda: f"Installed debugging-toolkit@{MARKET}" in h.output)
        h.send("/plugin list" + ENTER)
        await h.until(lambda: f"debugging-toolkit@{MARKET}  enabled  1.2.1 @ " in h.output)
        h.send("/plugin install nope@nowhere" + ENTER)
        await h.until(lambda: "no marketplace 'nowhere'" in h.output)
        assert stream.calls == 0
        h.send("/quit" + ENTER)
        assert await h.task == 0
