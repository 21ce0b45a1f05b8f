"""The plain REPL: ``# note`` asks on the input line and saves; ``/memory project`` runs the
editor with the prompt suspended; ``/model`` numbers what a custom server lists; the status
line command's output is in the bottom toolbar."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.fakes.model_list_server import ModelListServer, model_list_server
from tests.modes.plain.harness import ENTER, plain_repl

__all__ = ["model_list_server"]  # a fixture


async def test_a_note_is_asked_for_and_saved(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("ok")))
    async with plain_repl(tmp_path, stream, approvals="interactive") as h:
        h.send("# deploy with make ship" + ENTER)
        await h.until(lambda: "Save this note to which memory file?" in h.output, what="question")
        assert "1. Project memory" in h.output and "2. User memory" in h.output
        h.send("1" + ENTER)
        await h.until(lambda: "Saved to project memory" in h.output, what="the saved line")
        assert (h.shell.cwd / "AGENTS.md").read_text() == "- deploy with make ship\n"
        assert stream.calls == 0
        assert await h.quit() == 0


async def test_slash_memory_runs_the_editor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "fake_editor.py"
    script.write_text("import sys\nopen(sys.argv[1], 'a').write('Prefer pathlib.\\n')\n")
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script}")
    async with plain_repl(tmp_path, ScriptedStream()) as h:
        h.send("/memory project" + ENTER)
        await h.until(lambda: (h.shell.cwd / "AGENTS.md").is_file(), what="the edited file")
        await h.until(lambda: "Opening" in h.output, what="the line")
        assert (h.shell.cwd / "AGENTS.md").read_text() == "Prefer pathlib.\n"
        monkeypatch.setenv("VISUAL", "false")
        h.send("/memory user" + ENTER)
        await h.until(lambda: "false exited with code 1" in h.output, what="the failure")
        assert await h.quit() == 0


async def test_slash_model_numbers_served_models(
    tmp_path: Path, pi_home: Path, model_list_server: ModelListServer
) -> None:
    model_list_server.routes["/v1/models"] = (200, b'{"data": [{"id": "qwen3:8b"}]}')
    providers = {"lab": {"baseUrl": model_list_server.base(), "models": []}}
    (pi_home / "models.json").write_text(json.dumps({"providers": providers}))
    async with plain_repl(tmp_path, ScriptedStream()) as h:
        h.send("/model" + ENTER)
        await h.until(lambda: "1. lab/qwen3:8b  (served by http://127.0.0.1" in h.output)
        h.send("/model 1" + ENTER)
        await h.until(lambda: h.shell.model_id == "lab/qwen3:8b", what="the switch")
        assert await h.quit() == 0


async def test_the_status_line_command_is_in_the_toolbar_without_colours(tmp_path: Path) -> None:
    from pi_cli.shell.config.sections import StatusLineSettings
    from pi_cli.shell.config.settings import Settings

    command = "printf '\\033[1;32mon main\\033[0m \\033]0;title\\007ok\\n'"
    settings = Settings(status_line=StatusLineSettings(command=command))
    async with plain_repl(tmp_path, ScriptedStream(), settings=settings) as h:
        await h.until(lambda: "on main ok" in h.repl._toolbar(), what="the status line")
        assert "\x1b" not in h.repl._toolbar()
        assert await h.quit() == 0
