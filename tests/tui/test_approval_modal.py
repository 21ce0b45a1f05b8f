"""The TUI approval modal (own keys, diff preview) and Shift+Tab cycling the permission mode."""

from __future__ import annotations

from pathlib import Path

from agent_core import ToolResultMessage
from pi_cli.tui.screens.approval import ApprovalScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until


def results(shell) -> list[str]:
    return [m.text for m in shell.messages if isinstance(m, ToolResultMessage)]


async def test_modal_answers_once_deny_with_message_and_escape(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "touch a"})),
        reply(
            tool_call(
                "c2",
                "edit",
                {"path": "app.py", "edits": [{"old_text": "x = 1", "new_text": "x = 2"}]},
            )
        ),
        reply(tool_call("c3", "bash", {"command": "touch c"})),
        reply(text("done")),
    )
    shell = make_shell(
        tmp_path, stream, tools=None, approvals="interactive", permission_mode="default"
    )
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert "touch a" in app.screen.approval.title
        await pilot.press("y")
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, ApprovalScreen) and app.screen.approval.tool_name == "edit"
            ),
        )
        assert "-x = 1" in app.screen.approval.preview and "+x = 2" in app.screen.approval.preview
        await pilot.press("m")
        await type_text(pilot, "keep it")  # letters go into the message box, not to bindings
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, ApprovalScreen) and "touch c" in app.screen.approval.title
            ),
        )
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.is_settled)
        assert (tmp_path / "a").exists() and not (tmp_path / "c").exists()
        assert (tmp_path / "app.py").read_text() == "x = 1\n"
        assert results(shell)[1:] == ["denied by the user: keep it", "denied by the user"]
        assert app.editor.text == ""  # nothing typed into the modal leaked into the editor


async def test_shift_tab_cycles_the_mode_and_the_footer_shows_it(tmp_path: Path) -> None:
    shell = make_shell(tmp_path, ScriptedStream(), tools=[])
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:

        def mode() -> str:  # the footer's second line says "mode <name>"
            return app.footer.text.splitlines()[1].split("mode ", 1)[1].split()[0]

        assert mode() == "auto"
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: mode() == "default")
        assert shell.permissions.mode == "default"
        await pilot.press("shift+tab", "shift+tab")
        await wait_until(pilot, lambda: mode() == "plan")
        await type_text(pilot, "still typing")
        assert app.editor.text == "still typing"  # focus stayed in the editor


async def test_a_web_fetch_approval_shows_the_request_as_text(tmp_path: Path) -> None:
    from tests.tui.screen_text import screen_text

    url = "https://docs.example.com/guide"
    stream = ScriptedStream(reply(tool_call("w1", "web_fetch", {"url": url})), reply(text("ok")))
    shell = make_shell(
        tmp_path, stream, tools=None, approvals="interactive", permission_mode="default"
    )
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "read it")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause()
        drawn = screen_text(app)
        assert f"GET {url}" in drawn and "host: docs.example.com" in drawn
        assert '"url"' not in drawn
        await pilot.press("n")
        await wait_until(pilot, lambda: app.is_settled)
