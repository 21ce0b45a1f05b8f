"""ACP's session methods (``session/list``, ``resume``, ``close``, ``fork``) driven by the ACP
TypeScript SDK's client against ``pi --mode acp``."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.modes.acp.test_acp_client import drive


def _agent_text(updates: list[dict]) -> str:
    return "".join(
        u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
    )


def test_list_resume_fork_and_close(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    server.add(Turn(text="first answer"), Turn(text="second answer"), Turn(text="forked answer"))
    first = drive(
        server,
        project,
        pi_home,
        [{"op": "new"}, {"op": "prompt", "text": "remember the number 42"}],
    )
    capabilities = first["responses"][0]["result"]["agentCapabilities"]["sessionCapabilities"]
    assert set(capabilities) >= {"list", "resume", "close", "fork"}
    session = first["responses"][1]["result"]["sessionId"]

    log = drive(
        server,
        project,
        pi_home,
        [
            {"op": "list", "cwd": str(project)},
            {"op": "list"},
            {"op": "resume", "sessionId": session},
            {"op": "prompt", "text": "and now?"},
            {"op": "fork"},
            {"op": "prompt", "text": "in the fork"},
            {"op": "list", "cwd": str(project)},
            {"op": "close", "sessionId": session},
            {"op": "close", "sessionId": "never-opened"},
        ],
    )
    listed, everywhere = log["responses"][1]["result"], log["responses"][2]["result"]
    assert [s["sessionId"] for s in listed["sessions"]] == [session]
    only = listed["sessions"][0]
    assert only["cwd"] == str(project) and only["title"] == "remember the number 42"
    assert only["updatedAt"].endswith("Z") and listed.get("nextCursor") is None
    assert [s["sessionId"] for s in everywhere["sessions"]] == [session]
    # Resumed without a replay: the only agent text is the new answer.
    assert log["responses"][3]["result"]["modes"]["currentModeId"] == "auto"
    assert log["responses"][4]["result"]["stopReason"] == "end_turn"
    fork = log["responses"][5]["result"]["sessionId"]
    assert fork != session
    assert log["responses"][6]["result"]["stopReason"] == "end_turn"
    assert _agent_text(log["updates"]) == "second answerforked answer"
    after = log["responses"][7]["result"]["sessions"]
    assert {s["sessionId"] for s in after} == {session, fork}
    # The fork carried the whole conversation to the model: both earlier prompts, then its own.
    texts = [
        m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
        for m in server.requests[2]["messages"]
        if m["role"] == "user"
    ]
    assert texts == ["remember the number 42", "and now?", "in the fork"]


def test_list_pages_and_bad_cursors(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    sessions = pi_home / "sessions" / "--fake--"
    sessions.mkdir(parents=True)
    for n in range(55):
        (sessions / f"2026-01-01T00-00-{n:02d}_{n:04d}.jsonl").write_text(
            f'{{"type":"session","version":1,"id":"s{n:04d}","timestamp":"2026-01-01T00:00:00Z","cwd":"/x{n}"}}\n'
            f'{{"type":"message","id":"m","parentId":null,"message":{{"role":"user","content":"prompt {n}"}}}}\n'
        )
    log = drive(
        server,
        project,
        pi_home,
        [{"op": "list"}, {"op": "list", "cwd": None, "cursor": "50"}],
    )
    first, second = log["responses"][1]["result"], log["responses"][2]["result"]
    assert len(first["sessions"]) == 50 and first["nextCursor"] == "50"
    assert len(second["sessions"]) == 5 and second.get("nextCursor") is None
    ids = {s["sessionId"] for s in first["sessions"] + second["sessions"]}
    assert len(ids) == 55
