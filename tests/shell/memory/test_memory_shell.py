"""Memory in a real shell over a scripted model: ``# note`` through the dialog broker, the
note in the next request, ``/memory``, and path-scoped rules joining tool results once."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

from agent_core import TextContent, ToolResultMessage
from pi_cli.shell.config.settings import Settings
from pi_cli.shell.events.dialogs import DialogRequested
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.shell.helpers import make_shell

FIXTURES = Path(__file__).parents[2] / "fixtures" / "claude_rules"


def _answering(shell: Any, answer: object) -> list[DialogRequested]:
    asked: list[DialogRequested] = []

    def on_event(event: object) -> None:
        if isinstance(event, DialogRequested):
            asked.append(event)
            asyncio.get_running_loop().call_soon(shell.answer, event.id, answer)

    shell.subscribe(on_event)
    shell.dialogs.asking = "interactive"
    return asked


async def test_a_note_is_asked_for_saved_and_in_the_next_request(project: Path) -> None:
    (project / "CLAUDE.md").write_text("# Team notes\nBe kind.")  # no final newline
    shell, stream, _ = make_shell(project, reply(text("ok")), settings=Settings(), tools=[])
    asked = _answering(shell, "Project memory")
    result = await shell.submit("#  always run tests with `uv run pytest` ")
    assert result is not None and not result.error, result
    assert "project memory" in (result.output or "")
    (question,) = asked
    assert [o.label for o in question.options] == ["Project memory", "User memory"]
    assert question.options[0].description == str(project / "CLAUDE.md")  # the existing name
    assert (project / "CLAUDE.md").read_text() == (
        "# Team notes\nBe kind.\n- always run tests with `uv run pytest`\n"
    )
    assert stream.calls == 0  # a note is no prompt
    await shell.submit("hello")
    assert "- always run tests with `uv run pytest`" in stream.contexts[0].system_prompt


async def test_user_memory_is_created_in_pi_home(project: Path, tmp_path: Path) -> None:
    import os

    shell, _, _ = make_shell(project, settings=Settings(), tools=[])
    _answering(shell, "User memory")
    result = await shell.submit("# prefer short answers \x1b[31mred\x1b[0m")
    assert result is not None and not result.error
    memory = Path(os.environ["PI_HOME"]) / "AGENTS.md"
    assert memory.read_text() == "- prefer short answers red\n"
    assert "- prefer short answers red" in shell.agent.system_prompt


async def test_cancel_saves_nothing_and_one_shot_refuses(project: Path) -> None:
    shell, _, _ = make_shell(project, settings=Settings(), tools=[])
    _answering(shell, {"cancelled": True})
    result = await shell.submit("# never mind")
    assert result is not None and "not saved" in (result.output or "")
    assert not (project / "AGENTS.md").exists()
    one_shot, stream, _ = make_shell(project, settings=Settings(), tools=[])
    assert not one_shot.dialogs.can_ask
    refused = await one_shot.submit("# a note")
    assert refused is not None and refused.error and "nobody can answer" in (refused.output or "")
    assert not (project / "AGENTS.md").exists() and stream.calls == 0
    empty = await one_shot.submit("#")
    assert empty is not None and empty.error and "usage" in (empty.output or "")


async def test_pasted_markdown_starting_with_a_heading_is_a_prompt(project: Path) -> None:
    shell, stream, _ = make_shell(project, reply(text("ok")), settings=Settings(), tools=[])
    await shell.submit("# Task\nFix the bug in main.py")
    assert stream.calls == 1 and not (project / "AGENTS.md").exists()


async def test_a_note_while_the_model_runs_is_saved_at_once(project: Path) -> None:
    stream = ScriptedStream(reply(text("slow"), hang=True))
    shell, _, _ = make_shell(project, settings=Settings(), tools=[])
    shell.agent.stream_fn = stream
    _answering(shell, "Project memory")
    run = shell.submit("work")
    await stream.hanging.wait()
    result = await shell.submit("# the db is postgres 16")
    assert result is not None and not result.error
    assert (project / "AGENTS.md").read_text() == "- the db is postgres 16\n"
    assert shell.queued() == []  # not a steer
    shell.abort()
    await run


async def test_memory_edited_elsewhere_is_read_before_the_next_input(project: Path) -> None:
    shell, stream, _ = make_shell(
        project, reply(text("a")), reply(text("b")), settings=Settings(), tools=[]
    )
    await shell.submit("one")
    assert "Use tabs" not in stream.contexts[0].system_prompt
    (project / "AGENTS.md").write_text("Use tabs.\n")
    await shell.submit("two")
    assert "Use tabs." in stream.contexts[1].system_prompt


async def test_slash_memory_lists_and_opens_a_file(project: Path) -> None:
    shutil.copytree(FIXTURES / "growthbook" / ".claude", project / ".claude")
    shell, _, _ = make_shell(project, settings=Settings(), tools=[])
    listing = await shell.submit("/memory list")
    assert listing is not None and "project-overview.md" in (listing.output or "")
    assert "packages/front-end/**/*.{ts,tsx}" in (listing.output or "")
    opened = await shell.submit("/memory project")
    assert opened is not None and opened.edit == project / "AGENTS.md"
    _answering(shell, "User memory")
    asked = await shell.submit("/memory")
    assert asked is not None and asked.edit is not None and asked.edit.name == "AGENTS.md"
    bad = await shell.submit("/memory nonsense")
    assert bad is not None and bad.error
    help_text = await shell.submit("/help")
    assert help_text is not None and "  # note — Save a note to a memory file" in (
        help_text.output or ""
    )


def _results(shell: Any) -> list[str]:
    return [
        "".join(b.text for b in m.content if isinstance(b, TextContent))
        for m in shell.messages
        if isinstance(m, ToolResultMessage)
    ]


async def test_scoped_rules_join_the_first_matching_result_only(project: Path) -> None:
    shutil.copytree(FIXTURES / "growthbook" / ".claude", project / ".claude")
    front = project / "packages" / "front-end" / "components"
    front.mkdir(parents=True)
    (front / "Button.tsx").write_text("export const Button = 1;\n")
    (front / "Link.ts").write_text("export const Link = 2;\n")
    (project / "README.md").write_text("readme\n")
    stream = ScriptedStream(
        reply(tool_call("c1", "read", {"path": "README.md"})),
        reply(tool_call("c2", "read", {"path": "packages/front-end/components/Button.tsx"})),
        reply(tool_call("c3", "read", {"path": str(front / "Link.ts")})),
        reply(tool_call("c4", "grep", {"pattern": "export"})),
        reply(text("done")),
    )
    shell, _, _ = make_shell(project, settings=Settings(), tools=["read", "grep"])
    shell.agent.stream_fn = stream
    await shell.submit("look")
    readme, button, link, grep = _results(shell)
    assert "[pi: rule" not in readme
    marker = f"[pi: rule {project / '.claude/rules/frontend/react-and-data.md'}]"
    assert button.count(marker) == 1 and "# Front-end Patterns" in button
    assert "packages/front-end/components/Button.tsx" in button
    assert "[pi: rule" not in link and "[pi: rule" not in grep  # once per session
    # the always rules are in the system prompt, the scoped ones are not
    system = stream.contexts[0].system_prompt
    assert "# Project Overview" in system and "# Front-end Patterns" not in system
