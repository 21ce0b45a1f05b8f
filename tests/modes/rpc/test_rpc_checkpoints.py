"""RPC ``rewind`` / ``restore`` (ours), ``export_html`` and ``set_session_name`` (pi's shapes)
against a real ``pi --mode rpc`` child whose scripted model runs real bash commands."""

from __future__ import annotations

import asyncio
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.modes.rpc.test_rpc import RpcClient, is_event
from tests.modes.rpc.test_rpc import scripted_client as scripted_client  # fixture
from tests.shell.helpers import make_shell

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def bash(command: str) -> dict:
    return {"tool_calls": [{"id": "b", "name": "bash", "arguments": {"command": command}}]}


def test_rpc_rewind_restore_undo_export_and_name(
    scripted_client: Callable[[list[dict]], RpcClient], project: Path
) -> None:
    client = scripted_client(
        [bash("echo one > one.txt"), {"text": "made one"}, bash("echo two > two.txt; rm one.txt")]
        + [{"text": "made two"}]
    )
    for index, message in enumerate(["make one", "make two"]):
        client.request({"type": "prompt", "id": f"p{index}", "message": message})
        client.wait_for(is_event("agent_end"))
    listed = client.request({"type": "rewind", "id": "l"})
    assert listed["success"], listed
    points = listed["data"]["points"]
    assert [p["text"] for p in points] == ["make one", "make two"]
    assert points[1]["files"] == [
        {"path": "one.txt", "added": 0, "removed": 1},
        {"path": "two.txt", "added": 1, "removed": 0},
    ]

    dry = client.request(
        {"type": "rewind", "id": "d", "entryId": points[1]["entryId"], "dryRun": True}
    )
    assert dry["data"]["plan"]["changes"] == [
        {"status": "A", "path": "one.txt"},
        {"status": "D", "path": "two.txt"},
    ]
    assert (project / "two.txt").exists()

    restored = client.request({"type": "restore", "id": "r", "entryId": points[1]["entryId"]})
    assert restored["success"], restored
    assert restored["data"]["restored"]["deleted"] == ["two.txt"] and not restored["data"]["moved"]
    assert (project / "one.txt").read_text() == "one\n" and not (project / "two.txt").exists()
    messages = client.request({"type": "get_messages", "id": "m"})["data"]["messages"]
    assert len([m for m in messages if m["role"] == "user"]) == 2  # conversation untouched

    (project / "one.txt").write_text("edited by hand\n")
    refused = client.request({"type": "restore", "id": "u1", "undo": True})
    assert not refused["success"] and "one.txt" in refused["error"]
    undone = client.request({"type": "restore", "id": "u2", "undo": True, "overwrite": True})
    assert undone["success"], undone
    assert (project / "two.txt").read_text() == "two\n" and not (project / "one.txt").exists()

    both = client.request({"type": "rewind", "id": "b", "entryId": points[0]["entryId"]})
    assert both["success"] and both["data"]["text"] == "make one" and both["data"]["moved"]
    assert not (project / "two.txt").exists() and not (project / "one.txt").exists()
    state = client.request({"type": "get_state", "id": "s"})["data"]
    assert state["messageCount"] == 0

    bad = client.request({"type": "rewind", "id": "x", "entryId": "nope"})
    assert not bad["success"] and "No entry nope" in bad["error"]
    assert not client.request({"type": "rewind", "id": "y", "entryId": "a", "mode": "all"})[
        "success"
    ]
    assert not client.request({"type": "restore", "id": "z"})["success"]

    assert not client.request({"type": "set_session_name", "id": "n0", "name": "  "})["success"]
    named = client.request({"type": "set_session_name", "id": "n1", "name": " my work "})
    assert named["success"] and "data" not in named
    assert client.request({"type": "get_state", "id": "s2"})["data"]["sessionName"] == "my work"

    exported = client.request({"type": "export_html", "id": "e", "outputPath": "page.html"})
    assert exported["success"] and exported["data"]["path"] == str(project / "page.html")
    page = (project / "page.html").read_text()
    assert "<title>my work</title>" in page and "Content-Security-Policy" in page
    default = client.request({"type": "export_html", "id": "e2"})
    assert Path(default["data"]["path"]).name.startswith("pi-session-")
    assert client.close() == 0


def test_a_queue_survives_kill_9_and_comes_back_on_the_next_start(
    scripted_client: Callable[[list[dict]], RpcClient], project: Path
) -> None:
    client = scripted_client([bash("touch running; sleep 30"), {"text": "never"}])
    client.request({"type": "prompt", "id": "p", "message": "wait a long time"})
    client.wait_for(is_event("tool_execution_start"))
    deadline = time.monotonic() + 30
    while not (project / "running").exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # steered while the command runs, not while the call is prepared
    assert client.request({"type": "steer", "id": "s", "message": "then do this instead"})[
        "success"
    ]
    client.wait_for(is_event("queue_update"))
    client.process.send_signal(signal.SIGKILL)
    client.process.wait()

    async def restart() -> list[str]:
        shell, _, recorder = make_shell(project, continue_session=True, offer_stored_queue=True)
        returned = [e for e in recorder.of_type("queue_returned") if e.reason == "restored"]
        await shell.aclose()
        return [item.text for event in returned for item in event.items]

    assert asyncio.run(restart()) == ["then do this instead"]
