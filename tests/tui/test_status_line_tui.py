"""The status line command in the TUI, by what is drawn: its first line is a footer line of its
own, its SGR colours kept as colours; the footer shrinks back when it prints nothing."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.config.sections import StatusLineSettings
from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text


async def test_the_command_line_is_drawn_in_the_footer_with_its_colours(tmp_path: Path) -> None:
    flag = tmp_path / "quiet"
    command = (
        f"test -e {flag} && exit 0; "
        'printf \'\\033[32m%s\\033[0m ctx %s%%\\n\' "$(basename "$PWD")" '
        "\"$(sed 's/.*used_percentage.: *\\([0-9.]*\\).*/\\1/')\""
    )
    settings = Settings(status_line=StatusLineSettings(command=command, padding=1))
    stream = ScriptedStream(reply(text("done")))
    app = make_app(make_shell(tmp_path, stream, tools=[], settings=settings))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: f" {tmp_path.name} ctx 0" in screen_text(app))
        rows = screen_text(app).splitlines()
        footer_top = next(i for i, row in enumerate(rows) if f"{tmp_path.name} ctx" in row)
        assert "~/project" in rows[footer_top + 2]  # above the built-in lines
        line = app.footer.command_line
        assert line is not None and line.plain.startswith(f" {tmp_path.name}")
        assert any("green" in str(span.style) for span in line.spans)  # a colour, not text
        assert "\x1b" not in screen_text(app) and "[32m" not in screen_text(app)
        flag.touch()  # the command prints nothing now: the line goes away after a change
        await type_text(pilot, "hello")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.footer.command_line is None)
        assert f"{tmp_path.name} ctx" not in screen_text(app)
