"""Compaction: threshold, overflow with exactly one retry, /compact, tool-call/result integrity."""

from __future__ import annotations

import json
from pathlib import Path

from agent_core import AssistantMessage, ToolCall, ToolResultMessage, UserMessage, user_message
from pi_cli.shell.compaction import SUMMARY_SYSTEM, find_cut_point
from pi_cli.shell.config.settings import CompactionSettings, Settings
from pi_cli.shell.models.usage import message_tokens
from pi_cli.shell.session.store import SessionStore
from tests.agent_core.scripted_stream import reply, text, tool_call
from tests.shell.helpers import make_shell, notices, usage

SUMMARY = "## Goal\nShip it.\n\n## Next Steps\n1. Continue."


def settings(**compaction: object) -> Settings:
    values = {
        "context_budget": 5000,
        "reserve_tokens": 1000,
        "keep_recent_tokens": 60,
        **compaction,
    }
    return Settings(compaction=CompactionSettings(**values))


def file_entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


async def test_threshold_compaction_keeps_recent_and_full_history(project: Path) -> None:
    shell, stream, recorder = make_shell(
        project,
        reply(tool_call("c1", "read", {"path": "notes.txt"}), usage=usage(1000)),
        reply(text("first answer"), usage=usage(1200)),
        reply(text("second answer"), usage=usage(4500)),  # > 5000 - 1000: compaction after this run
        reply(text(SUMMARY)),  # the summary request
        reply(text("after compaction")),
        settings=settings(),
    )
    (project / "notes.txt").write_text("remember the milk")
    await shell.submit("read notes.txt")
    assert recorder.of_type("compaction_start") == []
    await shell.submit("second question")
    starts, ends = recorder.of_type("compaction_start"), recorder.of_type("compaction_end")
    assert [e.reason for e in starts] == ["threshold"] and ends[0].error_message is None
    assert ends[0].tokens_before == 4510 and ends[0].summary.startswith(SUMMARY)
    # The summary request: the model itself, with the serialized conversation and the format.
    request = stream.contexts[3]
    assert request.system_prompt == SUMMARY_SYSTEM and request.tools == []
    prompt = request.messages[0].content[0].text
    assert (
        "[User]: read notes.txt" in prompt
        and '[Assistant tool calls]: read({"path": "notes.txt"})' in prompt
    )
    assert "## Constraints & Preferences" in prompt and "## Key Decisions" in prompt
    assert "<read-files>\nnotes.txt\n</read-files>" in ends[0].summary

    messages = shell.agent.state.messages
    assert isinstance(messages[0], UserMessage) and SUMMARY in messages[0].text
    assert [m.role for m in messages[1:]] == ["user", "assistant"]  # the latest exchange, verbatim
    assert messages[1].text == "second question"

    entries = file_entries(shell.session.path)
    compaction = [e for e in entries if e["type"] == "compaction"]
    assert len(compaction) == 1 and compaction[0]["tokensBefore"] == 4510
    kept = next(e for e in entries if e["id"] == compaction[0]["firstKeptEntryId"])
    assert kept["message"]["content"][0]["text"] == "second question"
    assert sum(e["type"] == "message" for e in entries) == 6  # nothing deleted from the file

    await shell.submit("third")
    assert stream.roles(4) == ["user", "user", "assistant", "user"]
    resumed = SessionStore.open(shell.session.path).build_context()
    assert [m.role for m in resumed] == ["user", "user", "assistant", "user", "assistant"]


async def test_overflow_compacts_and_retries_exactly_once(project: Path) -> None:
    shell, stream, recorder = make_shell(
        project,
        reply(text("one"), usage=usage(100)),
        reply(text("two"), usage=usage(200)),
        reply(error="Context overflow: prompt is too long (210000 tokens > 200000)"),
        reply(text(SUMMARY)),
        reply(text("recovered")),
        settings=settings(context_budget=None),
    )
    await shell.submit("first")
    await shell.submit("second")
    await shell.submit("third, too long")
    assert stream.calls == 5 and not stream.exhausted
    assert [e.reason for e in recorder.of_type("compaction_start")] == ["overflow"]
    assert recorder.of_type("compaction_end")[0].will_retry is True
    retry = stream.contexts[4].messages
    assert retry[0].text.startswith("The conversation history before this point was compacted")
    assert retry[-1].text == "third, too long"
    assert not any(isinstance(m, AssistantMessage) and m.stop_reason == "error" for m in retry)
    assert shell.agent.state.messages[-1].text == "recovered"
    entries = file_entries(shell.session.path)
    errors = [
        e for e in entries if e["type"] == "message" and e["message"].get("stopReason") == "error"
    ]
    assert len(errors) == 1  # the failed response stays in the file, off the active path
    assert errors[0]["id"] not in {r.id for r in shell.session.path_to()}


async def test_second_overflow_is_not_retried_again(project: Path) -> None:
    overflow = "Context overflow: too many tokens"
    shell, stream, recorder = make_shell(
        project,
        reply(text("one"), usage=usage(100)),
        reply(error=overflow),
        reply(text(SUMMARY)),
        reply(error=overflow),
        settings=settings(context_budget=None),
    )
    await shell.submit("first")
    await shell.submit("second")
    assert stream.calls == 4 and not stream.exhausted
    assert len(recorder.of_type("compaction_start")) == 1
    assert any("not retrying again" in n for n in notices(recorder, "error"))


async def test_manual_compact_with_instructions_and_disabled_auto(project: Path) -> None:
    shell, stream, recorder = make_shell(
        project,
        reply(text("one"), usage=usage(4900)),
        reply(text("two"), usage=usage(4950)),
        reply(text(SUMMARY)),
        settings=settings(enabled=False),
    )
    await shell.submit("first")
    await shell.submit("second")
    assert recorder.of_type("compaction_start") == []  # disabled: no automatic compaction
    result = await shell.submit("/compact focus on the database schema")
    assert result.output.startswith("Compacted: 4960 →")
    assert (
        "Additional focus from the user: focus on the database schema"
        in stream.contexts[2].messages[0].content[0].text
    )
    assert [e.reason for e in recorder.of_type("compaction_start")] == ["manual"]


async def test_compaction_failure_keeps_the_conversation(project: Path) -> None:
    shell, _, recorder = make_shell(
        project,
        reply(text("one")),
        reply(text("two")),
        reply(error="server exploded"),
        settings=settings(),
    )
    await shell.submit("first")
    await shell.submit("second")
    before = list(shell.agent.state.messages)
    result = await shell.submit("/compact")
    assert result.error and "server exploded" in result.output
    assert shell.agent.state.messages == before
    assert recorder.of_type("compaction_end")[0].error_message == "server exploded"


def test_cut_point_never_separates_a_tool_call_from_its_result() -> None:
    call = AssistantMessage(
        content=[ToolCall(id="t1", name="read", arguments={"path": "x"})], stop_reason="toolUse"
    )
    result = ToolResultMessage(tool_call_id="t1", tool_name="read", content="y" * 400)
    final = AssistantMessage(content=[])
    messages = [
        user_message("start"),
        AssistantMessage(content=[]),
        user_message("go"),
        call,
        result,
        final,
    ]
    # Covered inside the tool result: the cut moves back past the call to the turn's user message.
    assert find_cut_point(messages, message_tokens(final) + 1) == 2
    # One long turn from the first message: the cut stays at the call, never on the result.
    single = [user_message("go"), call, result, final]
    assert single[find_cut_point(single, message_tokens(final) + 1)] is call
    assert find_cut_point(messages, 10**9) == 0


async def test_auto_compaction_never_starts_the_kept_part_with_a_tool_result(project: Path) -> None:
    big = "z" * 2000
    shell, _, _ = make_shell(
        project,
        reply(tool_call("c1", "bash", {"command": f"echo {big}"}), usage=usage(1000)),
        reply(text("done"), usage=usage(4800)),
        reply(text(SUMMARY)),
        settings=settings(keep_recent_tokens=100),
        tools=["bash"],
    )
    await shell.submit("print a lot")
    messages = shell.agent.state.messages
    assert "compacted" in messages[0].text
    assert not isinstance(messages[1], ToolResultMessage)
    calls = {c.id for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls}
    results = {m.tool_call_id for m in messages if isinstance(m, ToolResultMessage)}
    assert calls == results
