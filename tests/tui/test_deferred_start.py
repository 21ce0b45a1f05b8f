"""The first frame comes before the shell: it is built in a thread and attached when ready."""

from __future__ import annotations

import threading
from pathlib import Path

from pi_cli.tui.app import PiApp, TuiOptions
from pi_cli.tui.widgets.header import StartupHeader
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import SIZE, make_shell, type_text, wait_until


def _options(cwd: Path) -> TuiOptions:
    return TuiOptions(
        clock=lambda: 0.0,
        cwd_label="~/project",
        session_label="test-session",
        extended_keys=False,
        persist_theme=False,
        cursor_blink=False,
        cwd=cwd,
    )


async def test_input_typed_while_starting_is_sent_when_the_shell_is_ready(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("rules")
    stream = ScriptedStream(reply(text("ready and answering")))
    release = threading.Event()

    def factory():  # runs in the boot thread; waits so the test can type first
        release.wait(10)
        return make_shell(tmp_path, stream)

    app = PiApp(None, _options(tmp_path), shell_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        assert app.shell is None
        header = str(app.query_one(StartupHeader).render())
        assert "loading" in header
        assert app.status().model == "starting…"
        await type_text(pilot, "early question")
        await pilot.press("enter")
        assert app.shell is None and stream.calls == 0
        release.set()
        await wait_until(
            pilot, lambda: app.shell is not None and stream.calls == 1 and app.is_settled
        )
        assert stream.user_texts(0) == ["early question"]
        assert "AGENTS.md" in str(app.query_one(StartupHeader).render())


async def test_a_shell_that_cannot_start_ends_the_app_with_its_reason(tmp_path: Path) -> None:
    app = PiApp(
        None, _options(tmp_path), shell_factory=lambda: "No model configured. Set an API key"
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.startup_error is not None)
    assert app.startup_error == "No model configured. Set an API key"
    assert app.return_code == 2
