"""Every picker is tested by what is drawn: its rows are on the screen, not only in an attribute.

The /model picker once showed only a loading animation for as long as it was open while its list
was full (its ``loading`` flag was Textual's ``Widget.loading``): typing filtered an invisible list.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.tui.prompt_history import append_history
from pi_cli.tui.screens.picker import PickerScreen
from pi_cli.tui.screens.resume import ResumeScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.fakes.model_list_server import ModelListServer, model_list_server
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text

__all__ = ["model_list_server"]  # a fixture


def drawn(app: object, *needles: str) -> bool:
    shown = screen_text(app)  # type: ignore[arg-type]
    return all(needle in shown for needle in needles)


async def test_the_model_picker_draws_its_rows_and_filters_what_is_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/model")
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: drawn(app, "Model (type to filter", "✓ test/scripted", "anthropic/claude-"),
            timeout=20,
        )
        assert "loading" not in screen_text(app).lower()
        await type_text(pilot, "claude sonnet")
        await wait_until(pilot, lambda: "✓ test/scripted" not in screen_text(app))
        rows = [line for line in screen_text(app).splitlines() if "anthropic/claude" in line]
        assert rows and all("sonnet" in row for row in rows)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, PickerScreen))
        assert "Model (type to filter" not in screen_text(app)


async def test_the_theme_and_history_pickers_draw_their_rows(tmp_path: Path, pi_home: Path) -> None:
    append_history(pi_home / "history", "deploy the staging app")
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/theme")
        await pilot.press("enter")
        await wait_until(pilot, lambda: drawn(app, "Theme (↑↓ preview", "✓ dark", "light"))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, PickerScreen))
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: drawn(app, "Prompt history", "deploy the staging app"))
        await pilot.press("escape")


async def test_the_tree_and_resume_pickers_draw_their_rows(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    earlier = CodingAgent(
        ShellOptions(cwd=project, stream_fn=ScriptedStream(reply(text("fixed it"))))
    )
    await earlier.submit("fix the login bug")
    await earlier.aclose()
    stream = ScriptedStream(reply(text("the notes")))
    app = make_app(CodingAgent(ShellOptions(cwd=project, stream_fn=stream)))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "write the release notes")
        await pilot.press("enter")
        await wait_until(pilot, lambda: drawn(app, "the notes"))
        await app.shell.wait_idle()
        await type_text(pilot, "/tree")
        await pilot.press("enter")
        await wait_until(pilot, lambda: drawn(app, "Session tree", "write the release notes"))
        assert "● " in screen_text(app)  # the leaf is marked
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, PickerScreen))
        await type_text(pilot, "/resume")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ResumeScreen))
        await wait_until(pilot, lambda: drawn(app, "fix the login bug", "write the release notes"))
        await pilot.press("escape")


async def test_the_tree_names_entries_readably(tmp_path: Path) -> None:
    """``!cmd``, tool calls and compactions read as what they are, not as entry types or JSON."""
    from tests.tui.helpers import seed_tools

    project = tmp_path / "project"
    project.mkdir()
    stream = ScriptedStream(
        reply(text("Let me look."), tool_call("c1", "bash", {"command": "ls -la"})),
        reply(text("Two files.")),
    )
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=stream, tool_objects=seed_tools()))
    shell.session.append(
        "compaction",
        summary="## Benchmark results\n\n| Agent | Time |\n|---|---|\n\nThe user wants speed.",
        firstKeptEntryId=None,
        tokensBefore=48211,
    )
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "!echo hi")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled and "hi" in screen_text(app))
        await type_text(pilot, "what is here")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled and drawn(app, "Two files."))
        await type_text(pilot, "/tree")
        await pilot.press("enter")
        await wait_until(pilot, lambda: drawn(app, "Session tree"))
        shown = screen_text(app)
        assert "you ran: $ echo hi" in shown, shown
        assert "assistant: Let me look. → bash ls -la" in shown, shown
        assert "[compaction of 48.2k tokens] Benchmark results Agent Time The user" in shown
        assert "bashExecution" not in shown and "##" not in shown and "{" not in shown
        await pilot.press("escape")


async def test_the_model_picker_draws_what_a_custom_server_lists(
    tmp_path: Path, pi_home: Path, model_list_server: ModelListServer
) -> None:
    """A models.json provider's ``/models`` rows are drawn beside the catalogue; a provider
    whose server is down is said in a line of its own."""
    lists = Path(__file__).parents[1] / "fixtures" / "model_lists"
    model_list_server.routes["/v1/models"] = (200, (lists / "vllm.json").read_bytes())
    providers = {
        "lab": {"baseUrl": model_list_server.base(), "models": []},
        "gone": {"baseUrl": model_list_server.base("/x/v1"), "models": []},
    }
    (pi_home / "models.json").write_text(json.dumps({"providers": providers}))
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/model")
        await pilot.press("enter")
        served = "lab/Qwen/Qwen2.5-Coder-7B-Instruct  served by"
        await wait_until(pilot, lambda: drawn(app, served), timeout=20)
        assert drawn(app, "⚠ gone: cannot list the models of", "HTTP 404")
        await type_text(pilot, "qwen2.5-coder")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, PickerScreen))
        await wait_until(pilot, lambda: app.shell.model_id == "lab/Qwen/Qwen2.5-Coder-7B-Instruct")
