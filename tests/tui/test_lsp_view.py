"""Language servers in the TUI, as drawn: an edit that introduces errors shows, under its diff,
per file the counts and the first problems (all of them with Ctrl+O), and the footer shows the
servers. Against the fake language server of the shell's tests, through the real shell."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.shell.lsp.conftest import fake
from tests.tui.helpers import make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text

SOURCE = "".join(f"line{i} = {i}\n" for i in range(1, 6))


def _edit(call_id: str, old: str, new: str) -> object:
    args = {"path": "a.fk", "edits": [{"old_text": old, "new_text": new}]}
    return tool_call(call_id, "edit", args)


async def _send(pilot: Any, prompt: str) -> None:
    await type_text(pilot, prompt)
    await pilot.press("enter")


async def test_diagnostics_under_the_diff_and_servers_in_the_footer(tmp_path: Path) -> None:
    (tmp_path / "a.fk").write_text(SOURCE)
    stream = ScriptedStream(
        reply(tool_call("r1", "read", {"path": "a.fk"})),
        reply(text("read it")),
        reply(_edit("e1", "line2 = 2\nline3 = 3", "line2 = BAD two MEH\nline3 = BAD three")),
        reply(
            _edit("e2", "line4 = 4", "line4 = BAD four\nline4b = BAD 5\nline4c = BAD 6\nl = BAD 7")
        ),
        reply(text("done")),
    )
    settings = Settings.model_validate(
        {"lsp": {"servers": {"fake": fake()}}, "permissions": {"defaultMode": "auto"}}
    )
    shell = make_shell(tmp_path, stream, settings=settings, approvals="interactive")
    app = make_app(shell)
    async with app.run_test(size=(100, 60)) as pilot:
        await _send(pilot, "read")
        await wait_until(pilot, lambda: app.is_settled, timeout=30)
        manager = shell.lsp.started
        assert manager is not None
        await manager.idle()
        await wait_until(pilot, lambda: "LSP fake✓" in app.footer.text, timeout=30)
        await _send(pilot, "break it")
        await wait_until(pilot, lambda: app.is_settled, timeout=30)
        await pilot.pause()
        rows = _rows(app)
        first = rows.index("fake: 2 new errors, 1 new warning in a.fk")
        # Under the edit's diff (its last line is context): the counts, then the problems.
        assert rows[first - 3 : first] == ["+line3 = BAD three", " line4 = 4", " line5 = 5"]
        assert rows[first + 1 : first + 5] == [
            "  2:9 bad thing two",
            "  3:9 bad thing three",
            "  2:17 meh thing",
            "",
        ]
        second = rows.index("fake: 4 new errors in a.fk")
        assert rows[second - 1] == " line5 = 5"
        assert rows[second + 1 : second + 5] == [
            "  4:9 bad thing four",
            "  5:10 bad thing 5",
            "  6:10 bad thing 6",
            "  … 1 more",
        ]
        await pilot.press("ctrl+o")  # expanded: every problem
        await pilot.pause()
        rows = _rows(app)
        second = rows.index("fake: 4 new errors in a.fk")
        assert rows[second + 3 : second + 5] == ["  6:10 bad thing 6", "  7:5 bad thing 7"]
        assert "LSP fake✓" in app.footer.text
    await shell.aclose()


def _rows(app: Any) -> list[str]:
    """The screen's rows, inside a tool block without its border (``▎ ▌ ``)."""
    rows = screen_text(app).splitlines()
    return [row.split("▌ ", 1)[1] if "▌ " in row else row.strip() for row in rows]
