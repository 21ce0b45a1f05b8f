"""Extensions in the TUI, tested by what is drawn: a panel above the editor (``todo_panel``), its
command's argument completion, its key binding (remapped), a footer segment (``custom_footer``),
a status line (``status_line``), an extension's dialog (``permission_gate``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.tui.screens.dialog import DialogScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "extensions"


def with_examples(pi_home: Path, *names: str) -> None:
    extensions = [str(EXAMPLES / f"{name}.py") for name in names]
    (pi_home / "settings.json").write_text(json.dumps({"extensions": extensions}))


async def test_a_panel_its_command_completion_and_a_remapped_key(
    tmp_path: Path, pi_home: Path
) -> None:
    with_examples(pi_home, "todo_panel")
    (pi_home / "keybindings.json").write_text(json.dumps({"todo_panel.toggle": "f6"}))
    shell = make_shell(tmp_path, ScriptedStream(), tools=[], approvals="interactive")
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/note a")
        await wait_until(pilot, lambda: app.menu.is_open and "add" in screen_text(app))
        await pilot.press("tab")
        await wait_until(pilot, lambda: app.editor.text == "/note add ")
        await type_text(pilot, "ship the release")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "☐ ship the release" in screen_text(app))
        rows = screen_text(app).splitlines()
        panel = next(i for i, row in enumerate(rows) if "☐ ship the release" in row)
        assert panel < app.editor.region.y  # above the editor
        await pilot.press("f6")  # the user's key for todo_panel.toggle: hides the panel
        await wait_until(pilot, lambda: "☐ ship the release" not in screen_text(app))
        await pilot.press("f6")
        await wait_until(pilot, lambda: "☐ ship the release" in screen_text(app))
        await pilot.press("f1")
        await wait_until(pilot, lambda: "Keys and commands" in screen_text(app))
        scroll = app.screen.query_one("#keys-scroll")
        for _ in range(200):  # the extensions' keys sit between pi's keys and the commands
            if "todo_panel.toggle" in screen_text(app):
                break
            scroll.scroll_relative(y=3, animate=False)
            await pilot.pause()
        assert "todo_panel.toggle" in screen_text(app)
        row = next(r for r in screen_text(app).splitlines() if "todo_panel.toggle" in r)
        assert "F6" in row and "Show or hide the notes panel" in row


async def test_footer_segment_status_line_and_an_extensions_dialog(
    tmp_path: Path, pi_home: Path
) -> None:
    with_examples(pi_home, "custom_footer", "status_line", "permission_gate")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "sudo rm -rf /tmp/x"})),
        reply(text("Not done.")),
    )
    shell = make_shell(tmp_path, stream, tools=None, approvals="interactive")
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "Ready" in screen_text(app))  # status_line's session_start
        await type_text(pilot, "/footer")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "↑0 ↓0 $0.000" in screen_text(app))
        footer_row = next(r for r in screen_text(app).splitlines() if "↑0 ↓0 $0.000" in r)
        assert "(main)" in footer_row
        await type_text(pilot, "clean up")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DialogScreen))
        await wait_until(pilot, lambda: "⚠️ Dangerous command" in screen_text(app))
        assert "sudo rm -rf /tmp/x" in screen_text(app)
        assert "(extension permission_gate)" in screen_text(app)
        await pilot.press("n")
        await wait_until(pilot, lambda: app.is_settled)
        await wait_until(pilot, lambda: "✓ Turn 2 complete" in screen_text(app))
    results = [m.text for m in shell.messages if m.role == "toolResult"]
    assert results == ["Blocked by user"]


EDITOR_AND_TITLE = """
from pi_cli.shell.extensions import ExtensionAPI


def register(pi: ExtensionAPI) -> None:
    @pi.command("prefill")
    def prefill(args, ctx):
        ctx.ui.set_editor_text("draft \\x1b[31mred\\x1b[0m reply")
        ctx.ui.set_title("\\x1b]0;evil\\x07My\\nproject\\x1b[2J title")

    @pi.key("echo", "f7")
    def echo(event, ctx):
        ctx.ui.notify("editor holds: " + ctx.ui.get_editor_text(), "warning")
"""


async def test_editor_text_and_the_title_from_an_extension(
    tmp_path: Path, pi_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pi_cli.tui import terminal

    written: list[str] = []
    monkeypatch.setattr(terminal, "write_raw", lambda app, data: written.append(data) or True)
    (pi_home / "extensions").mkdir()
    (pi_home / "extensions" / "drafts.py").write_text(EDITOR_AND_TITLE)
    shell = make_shell(tmp_path, ScriptedStream(), tools=[], approvals="interactive")
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/prefill")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "draft red reply" in screen_text(app))
        assert app.editor.text == "draft red reply"  # escape sequences cleaned, then drawn
        await wait_until(pilot, lambda: "\x1b]2;My project title\x07" in written)
        assert app.title == "My project title"
        await type_text(pilot, " more")
        await pilot.press("f7")
        await wait_until(pilot, lambda: "editor holds: draft red reply more" in screen_text(app))


async def test_an_extensions_message_is_drawn_by_its_renderer(
    tmp_path: Path, pi_home: Path
) -> None:
    with_examples(pi_home, "message_renderer")
    shell = make_shell(tmp_path, ScriptedStream(), tools=[], approvals="interactive")
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/status error disk full")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "[ERROR] disk full" in screen_text(app))
        row = next(r for r in screen_text(app).splitlines() if "[ERROR] disk full" in r)
        assert row.lstrip().startswith("▎ [ERROR]"), row  # its bar on the left


OVERLAY = """
from pi_cli.shell.extensions import ExtensionAPI, MessageView, ViewSpan

def register(pi: ExtensionAPI) -> None:
    @pi.command("deploy")
    async def deploy(args: str, ctx) -> None:
        lines = [[ViewSpan(text="3 files changed", role="warning")], [ViewSpan(text="api.py")]]
        choice = await ctx.ui.overlay(MessageView(title="Deploy?", lines=lines), ["Ship", "Wait"])
        ctx.ui.notify(f"chose {choice}")
"""


async def test_an_extensions_overlay_is_drawn_and_answered(tmp_path: Path, pi_home: Path) -> None:
    from pi_cli.tui.screens.overlay import OverlayScreen

    (pi_home / "extensions").mkdir()
    (pi_home / "extensions" / "deployer.py").write_text(OVERLAY)
    shell = make_shell(tmp_path, ScriptedStream(), tools=[], approvals="interactive")
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        for expected, keys in (("chose Wait", ["down", "enter"]), ("chose None", ["escape"])):
            await type_text(pilot, "/deploy")
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, OverlayScreen))
            await wait_until(pilot, lambda: "api.py" in screen_text(app))
            drawn = screen_text(app)
            assert "Deploy?" in drawn and "3 files changed" in drawn
            assert "Ship" in drawn and "Wait" in drawn and "Esc" in drawn
            for key in keys:
                await pilot.press(key)
            await wait_until(pilot, lambda e=expected: e in screen_text(app))  # type: ignore[misc]
            assert not isinstance(app.screen, OverlayScreen)


UNFOLDING = """
from pi_cli.shell.extensions import ExtensionAPI

def register(pi: ExtensionAPI) -> None:
    pi.register_message_renderer(
        "report", lambda m, expanded: m.content + ("\\\\nthe whole report" if expanded else "")
    )

    @pi.command("report")
    def report(args: str, ctx) -> None:
        ctx.send_message("report", "3 failures")
"""


async def test_a_custom_message_unfolds_to_its_expanded_view(tmp_path: Path, pi_home: Path) -> None:
    (pi_home / "extensions").mkdir()
    (pi_home / "extensions" / "reporter.py").write_text(UNFOLDING)
    shell = make_shell(tmp_path, ScriptedStream(), tools=[], approvals="interactive")
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/report")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "3 failures" in screen_text(app))
        assert "the whole report" not in screen_text(app)
        await pilot.press("ctrl+up")  # the cursor onto the block, then Ctrl+O unfolds it
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: "the whole report" in screen_text(app))
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: "the whole report" not in screen_text(app))
