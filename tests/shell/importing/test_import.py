"""``pi import`` of real transcripts (../shared/fixtures/i25/transcripts, Apache-2.0, from
codemie-ai/codemie-code: a Claude Code transcript and a Codex CLI rollout), a TypeScript pi
session in its documented form, and hostile files; the written session read back by pi."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage
from pi_cli.shell.importing import (
    TranscriptImportError,
    import_words,
    read_transcript,
    write_session,
)
from pi_cli.shell.session.store import SessionStore
from tests.shared_fixtures import shared

TRANSCRIPTS = shared("i25/transcripts")
CLAUDE = TRANSCRIPTS / "claude-code" / "-tmp-private" / "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl"
CODEX = next(iter(sorted((TRANSCRIPTS / "codex").rglob("rollout-*.jsonl"))), TRANSCRIPTS / "none")
needs = pytest.mark.skipif(not CLAUDE.is_file(), reason="../shared/fixtures/i25 is not available")


def calls(messages: list) -> list[ToolCall]:  # type: ignore[type-arg]
    return [
        b
        for m in messages
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, ToolCall)
    ]


def paired(messages: list) -> bool:  # type: ignore[type-arg]
    """Every call is answered right after its assistant message, in order."""
    for index, message in enumerate(messages):
        if isinstance(message, AssistantMessage):
            ids = [b.id for b in message.content if isinstance(b, ToolCall)]
            following = messages[index + 1 : index + 1 + len(ids)]
            if [getattr(m, "tool_call_id", None) for m in following] != ids:
                return False
    return True


@needs
def test_claude_code_transcript(tmp_path: Path) -> None:
    imported = read_transcript(CLAUDE)
    assert imported.format == "Claude Code transcript" and imported.cwd == "/tmp/private"
    messages = imported.messages
    assert len(messages) == 16 and paired(messages)
    made = calls(messages)
    assert [c.name for c in made] == ["write", "write", "write", "read", "edit", "bash"]
    assert made[0].arguments["path"] == "/tmp/private/hello.py" and "content" in made[0].arguments
    assert made[4].arguments["edits"][0]["old_text"].startswith("#!/usr/bin/env python3")
    first = next(m for m in messages if isinstance(m, AssistantMessage) and len(m.content) == 4)
    assert [b.type for b in first.content] == ["text", "toolCall", "toolCall", "toolCall"]
    assert first.model.startswith("claude") and first.stop_reason == "toolUse"
    assert imported.skipped == {"file-history-snapshot": 6} and not imported.kept_as_text
    written = write_session(imported, tmp_path)
    back = SessionStore.open(written).build_context()
    assert [m.role for m in back] == [m.role for m in messages] and calls(back) == made


@needs
def test_codex_rollout(tmp_path: Path) -> None:
    imported = read_transcript(CODEX)
    assert imported.format == "Codex rollout" and imported.cwd.endswith("codemie-code")
    messages = imported.messages
    assert paired(messages)
    assert [c.arguments["command"] for c in calls(messages)] == [
        "ls",
        "rg --files -g 'AGENTS.md'",
        "sed -n '1,160p' README.md",
    ]
    texts = [m.text for m in messages if m.role == "user"]
    assert texts[0].startswith("# AGENTS.md instructions") and "<environment_context>" in texts[1]
    assert texts[2].startswith("what is current repository about?")
    thinking = [
        b
        for m in messages
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, ThinkingContent)
    ]
    assert thinking and all(b.signature is None for b in thinking)
    assert isinstance(messages[-1], ToolResultMessage)  # it ends mid-turn, as recorded
    assert "README" in messages[-1].text or "CodeMie" in messages[-1].text
    assert imported.skipped["event_msg token_count"] == 6


def test_typescript_pi_session(tmp_path: Path) -> None:
    source = tmp_path / "pi-ts.jsonl"
    entries = [
        {
            "type": "session",
            "version": 3,
            "id": "f3b1c2d4-0000-4000-8000-000000000001",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "cwd": "/work/x",
        },
        {
            "type": "model_change",
            "id": "a1b2c3d4",
            "parentId": None,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "provider": "anthropic",
            "modelId": "claude-sonnet-4",
        },
        {
            "type": "message",
            "id": "b1b2c3d4",
            "parentId": "a1b2c3d4",
            "timestamp": "2026-01-01T00:00:02.000Z",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": "list files"}],
                "timestamp": 1,
            },
        },
        {
            "type": "message",
            "id": "c1b2c3d4",
            "parentId": "b1b2c3d4",
            "timestamp": "2026-01-01T00:00:03.000Z",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "toolCall",
                        "id": "toolu_1",
                        "name": "bash",
                        "arguments": {"command": "ls"},
                    }
                ],
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4",
                "usage": {
                    "input": 1,
                    "output": 2,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 3,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
                "stopReason": "toolUse",
                "timestamp": 2,
            },
        },
        {
            "type": "message",
            "id": "d1b2c3d4",
            "parentId": "c1b2c3d4",
            "timestamp": "2026-01-01T00:00:04.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "toolu_1",
                "toolName": "bash",
                "content": [{"type": "text", "text": "a.py\n"}],
                "isError": False,
                "timestamp": 3,
            },
        },
        {
            "type": "message",
            "id": "e1b2c3d4",
            "parentId": "d1b2c3d4",
            "timestamp": "2026-01-01T00:00:05.000Z",
            "message": {
                "role": "bashExecution",
                "command": "git status",
                "output": "clean",
                "exitCode": 0,
                "cancelled": False,
                "truncated": False,
                "timestamp": 4,
            },
        },
    ]
    source.write_text("".join(json.dumps(e) + "\n" for e in entries))
    imported = read_transcript(source)
    assert imported.format == "TypeScript pi session" and imported.cwd == "/work/x"
    assert [m.role for m in imported.messages] == ["user", "assistant", "toolResult", "user"]
    assert paired(imported.messages) and "git status" in imported.messages[-1].text


def test_hostile_and_broken_transcripts(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"type":"user","message":{"role":"user","content":"hi \\u001b]52;c;AAAA\\u0007"}}\n'
        "not json at all\n"
        '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"nope","content":"orphan"}]}}\n'
        '{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"rm -rf /","description":"x"}},{"type":"server_tool_use","id":"s1","name":"web_search","input":{}}]}}\n'
    )
    imported = read_transcript(bad)
    assert imported.damaged == 1
    assert imported.kept_as_text["tool result without its call"] == 1
    assert imported.kept_as_text["assistant server_tool_use block"] == 1
    assert paired(imported.messages)
    last = imported.messages[-1]  # never answered: a result says so, the session can go on
    assert isinstance(last, ToolResultMessage) and last.is_error
    assert last.text == "[no result in the imported transcript]"
    assert calls(imported.messages)[0].arguments == {"command": "rm -rf /"}  # imported, not run
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"type":"file-history-snapshot"}\n')
    with pytest.raises(TranscriptImportError, match="neither a Claude Code transcript"):
        read_transcript(empty)
    with pytest.raises(TranscriptImportError, match="cannot read"):
        read_transcript(tmp_path / "missing.jsonl")
    lines = import_words([str(bad)], tmp_path)
    assert lines[0].startswith("Imported 4 messages (1 tool calls, 1 results) from the Claude")
    assert isinstance(imported.messages[0].content[0], TextContent)
