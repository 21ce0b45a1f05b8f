"""``pi --mode acp`` driven by the ACP TypeScript SDK's client (a real client nobody on this
project wrote): the seed scenario, a permission request, a cancel mid-tool, a session load,
edits through the client's buffers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import SEED_FINAL_TEXT, ToolCallSpec, Turn, seed_script

REPO = Path(__file__).resolve().parents[3]
CLIENT = Path(__file__).with_name("client.mjs")
NPM = Path(os.environ.get("PI_TEST_NPM_CACHE") or Path.home() / ".cache" / "pi-test" / "npm")
SDK = NPM / "node_modules" / "@agentclientprotocol" / "sdk"


def drive(
    server: FakeProviderServer, cwd: Path, pi_home: Path, steps: list[dict[str, Any]], **plan: Any
) -> dict[str, Any]:
    """Run the client through ``steps`` against a fresh ``pi --mode acp``; its log."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the ACP client tests need it")
    if not (SDK / "package.json").exists():
        pytest.skip(f"@agentclientprotocol/sdk is not installed in {NPM} (.ci/run installs it)")
    command = [
        sys.executable,
        "-m",
        "pi_cli.cli",
        "--mode",
        "acp",
        "--model",
        "openai/fake-model",
        "--api-base",
        server.openai_base_url,
        "--api-key",
        "sk-test",
        *plan.pop("flags", []),
    ]
    env = {**os.environ, "PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"}
    full = {"command": command, "cwd": str(cwd), "steps": steps, **plan}
    out = subprocess.run(
        ["node", str(CLIENT), str(SDK), json.dumps(full)],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
        cwd=cwd,
    )
    assert out.returncode == 0, out.stderr
    log = json.loads(out.stdout.strip().splitlines()[-1])
    assert not log["errors"], (log["errors"], out.stderr)
    return log


def _kinds(log: dict[str, Any]) -> list[str]:
    return [u["sessionUpdate"] for u in log["updates"]]


def test_seed_scenario(server: FakeProviderServer, project: Path, pi_home: Path) -> None:
    server.add(*seed_script())
    log = drive(
        server, project, pi_home, [{"op": "new"}, {"op": "prompt", "text": "explain this project"}]
    )
    init = log["responses"][0]["result"]
    assert init["agentCapabilities"]["loadSession"] is True
    assert init["agentCapabilities"]["promptCapabilities"]["image"] is True
    new = log["responses"][1]["result"]
    assert new["modes"]["currentModeId"] == "auto"
    assert {m["id"] for m in new["modes"]["availableModes"]} >= {"default", "plan", "acceptEdits"}
    assert new["configOptions"][0]["category"] == "model"
    assert log["responses"][2]["result"]["stopReason"] == "end_turn"
    text = "".join(
        u["content"]["text"] for u in log["updates"] if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert text == SEED_FINAL_TEXT
    starts = [u for u in log["updates"] if u["sessionUpdate"] == "tool_call"]
    assert [s["kind"] for s in starts] == ["execute", "read", "read"]
    assert starts[1]["locations"][0]["path"] == str(project / "package.json")
    ends = [
        u
        for u in log["updates"]
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"
    ]
    assert len(ends) == 3 and '"name": "hello"' in ends[1]["content"][0]["content"]["text"]
    commands = next(u for u in log["updates"] if u["sessionUpdate"] == "available_commands_update")
    assert {"model", "compact", "mcp", "permissions"} <= {
        c["name"] for c in commands["availableCommands"]
    }
    assert not log["permissions"]  # the seed scenario asks nothing
    models = next(u for u in log["updates"] if u["sessionUpdate"] == "config_option_update")
    values = [o["value"] for o in models["configOptions"][0]["options"]]
    assert values[0] == "openai/fake-model"


def test_the_todo_list_is_an_acp_plan(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    todos = [
        {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
        {"content": "Fix </b> bug", "status": "in_progress", "activeForm": "Fixing the bug"},
        {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
    ]
    server.add(
        Turn(tool_calls=[ToolCallSpec("todo_write", {"todos": todos}, id="t1")]),
        Turn(text="planned"),
    )
    log = drive(server, project, pi_home, [{"op": "new"}, {"op": "prompt", "text": "plan it"}])
    plans = [u for u in log["updates"] if u["sessionUpdate"] == "plan"]
    assert plans, _kinds(log)
    assert [(e["content"], e["status"]) for e in plans[-1]["entries"]] == [
        ("Read the code", "completed"),
        ("Fix </b> bug", "in_progress"),
        ("Run the tests", "pending"),
    ]
    assert {e["priority"] for e in plans[-1]["entries"]} == {"medium"}
    assert log["responses"][2]["result"]["stopReason"] == "end_turn"


def test_prompt_blocks_become_pi_input(tmp_path: Path) -> None:
    from acp import schema

    from pi_cli.modes.acp.content import prompt_input

    blocks = [
        schema.TextContentBlock(type="text", text="look at"),
        schema.ResourceContentBlock(
            type="resource_link", uri=f"file://{tmp_path}/a.py", name="a.py"
        ),
        schema.ImageContentBlock(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
        schema.EmbeddedResourceContentBlock(
            type="resource",
            resource=schema.TextResourceContents(uri="file:///x/notes.md", text="remember this"),
        ),
    ]
    text, images = prompt_input(blocks, tmp_path)
    assert text.startswith(f"look at @{tmp_path}/a.py")
    assert '<context uri="file:///x/notes.md">\nremember this\n</context>' in text
    assert [i.mime_type for i in images] == ["image/png"]


def test_permission_request_and_edit_through_the_client(
    server: FakeProviderServer,
    project: Path,
    pi_home: Path,
) -> None:
    server.add(
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "touch made"}, id="b1")]),
        Turn(
            tool_calls=[
                ToolCallSpec(
                    "edit",
                    {"path": "hello.mjs", "edits": [{"old_text": "Hello", "new_text": "Howdy"}]},
                    id="e1",
                )
            ]
        ),
        Turn(text="done"),
    )
    log = drive(
        server,
        project,
        pi_home,
        [{"op": "new"}, {"op": "mode", "modeId": "default"}, {"op": "prompt", "text": "go"}],
        fs=True,
        permission="allow_once",
    )
    asked = [p["toolCall"]["toolCallId"] for p in log["permissions"]]
    assert asked == ["b1", "e1"]  # default mode: bash and the edit both ask
    options = [o["optionId"] for o in log["permissions"][0]["options"]]
    assert "allow_once" in options and "deny" in options
    assert (project / "made").exists()
    assert (project / "hello.mjs").read_text() == 'console.log("Howdy, world!");\n'
    assert [f["op"] for f in log["fs"]] == ["read", "write"]  # through the editor's buffers
    diff = next(
        c
        for u in log["updates"]
        if u["sessionUpdate"] == "tool_call_update"
        for c in u.get("content") or []
        if c.get("type") == "diff"
    )
    assert diff["oldText"].startswith('console.log("Hello') and "Howdy" in diff["newText"]
    assert any(u["sessionUpdate"] == "current_mode_update" for u in log["updates"])


def test_denied_permission(server: FakeProviderServer, project: Path, pi_home: Path) -> None:
    server.add(
        Turn(
            thinking="Should I?",
            tool_calls=[ToolCallSpec("bash", {"command": "touch made"}, id="b1")],
        ),
        Turn(text="ok"),
    )
    log = drive(
        server,
        project,
        pi_home,
        [{"op": "new"}, {"op": "mode", "modeId": "default"}, {"op": "prompt", "text": "go"}],
        permission="deny",
    )
    assert not (project / "made").exists()
    failed = [u for u in log["updates"] if u.get("status") == "failed"]
    assert failed and "denied by the user" in json.dumps(failed[0])
    thought = [
        u["content"]["text"] for u in log["updates"] if u["sessionUpdate"] == "agent_thought_chunk"
    ]
    assert "".join(thought) == "Should I?"


def test_cancel_mid_tool_and_mid_question(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    server.add(Turn(tool_calls=[ToolCallSpec("bash", {"command": "sleep 30"}, id="s1")]))
    log = drive(
        server,
        project,
        pi_home,
        [
            {"op": "new"},
            {"op": "prompt", "text": "wait", "cancelOn": {"update": "tool_call", "delayMs": 1500}},
        ],
        flags=["--permission-mode", "bypassPermissions"],
    )
    response = log["responses"][-1]
    assert response["result"]["stopReason"] == "cancelled" and response["ms"] < 10_000
    server.add(Turn(tool_calls=[ToolCallSpec("bash", {"command": "touch made"}, id="b1")]))
    log = drive(
        server,
        project,
        pi_home,
        [{"op": "new"}, {"op": "mode", "modeId": "default"}, {"op": "prompt", "text": "go"}],
        permission="cancel-instead",
    )
    assert log["responses"][-1]["result"]["stopReason"] == "cancelled"
    assert not (project / "made").exists()


def test_session_load_replays_a_pi_session(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    server.add(*seed_script())
    first = drive(
        server, project, pi_home, [{"op": "new"}, {"op": "prompt", "text": "explain this project"}]
    )
    session_id = first["responses"][1]["result"]["sessionId"]
    server.add(Turn(text="still here"))
    second = drive(
        server,
        project,
        pi_home,
        [{"op": "load", "sessionId": session_id}, {"op": "prompt", "text": "again"}],
    )
    kinds = _kinds(second)
    assert (
        kinds[0] == "user_message_chunk"
        and second["updates"][0]["content"]["text"] == "explain this project"
    )
    replayed = "".join(
        u["content"]["text"]
        for u in second["updates"]
        if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert replayed == SEED_FINAL_TEXT + "still here"
    assert kinds.count("tool_call") == 3
    request = server.requests[-1]["messages"]
    assert any(
        "explain this project" in json.dumps(m) for m in request
    )  # the model saw the history


def test_mcp_servers_from_the_client(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    rogue = str(REPO / "tests" / "shell" / "mcp" / "rogue_server.py")
    server.add(
        Turn(text="hello"),
        Turn(tool_calls=[ToolCallSpec("mcp__r__peek", {}, id="m1")]),
        Turn(text="ok"),
    )
    log = drive(
        server,
        project,
        pi_home,
        [
            {"op": "new"},
            {"op": "prompt", "text": "hi"},
            {"op": "sleep", "ms": 4000},
            {"op": "prompt", "text": "peek"},
        ],
        mcpServers=[
            {
                "name": "r",
                "command": sys.executable,
                "args": [rogue],
                "env": [{"name": "X", "value": "1"}],
            }
        ],
    )
    assert log["responses"][0]["result"]["agentCapabilities"]["mcpCapabilities"]["http"] is True
    done = [
        u for u in log["updates"] if u.get("toolCallId") == "m1" and u.get("status") == "completed"
    ]
    assert done and done[0]["content"][0]["content"]["text"] == "peeked"
    starts = [
        u for u in log["updates"] if u["sessionUpdate"] == "tool_call" and u["toolCallId"] == "m1"
    ]
    assert starts[0]["kind"] == "other" and starts[0]["title"].startswith("r: peek")


def test_an_extensions_dialogs_through_the_client(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    """A confirmation goes out as session/request_permission (Yes / No); free text, which ACP
    cannot carry, is cancelled at once with a note in the thoughts (the asker never hangs)."""
    examples = REPO / "examples" / "extensions"
    (pi_home / "settings.json").write_text(
        json.dumps({"extensions": [str(examples / "permission_gate.py")]})
    )
    (pi_home / "extensions").mkdir()
    (pi_home / "extensions" / "namer.py").write_text(
        "from pi_cli.shell.extensions import Block\n\n"
        "def register(pi):\n"
        "    @pi.on('before_tool_call')\n"
        "    async def name(event, ctx):\n"
        "        if event.args.get('command') == 'touch named':\n"
        "            if await ctx.ui.input('Name the file?') is None:\n"
        "                return Block('no name given')\n"
    )
    server.add(
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "sudo rm -rf /tmp/nothing"}, id="b1")]),
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "touch named"}, id="b2")]),
        Turn(text="ok"),
    )
    log = drive(
        server,
        project,
        pi_home,
        [{"op": "new"}, {"op": "prompt", "text": "go"}],
        permission="no",
        flags=["--permission-mode", "bypassPermissions"],
    )
    (asked,) = log["permissions"]
    assert [(o["optionId"], o["name"], o["kind"]) for o in asked["options"]] == [
        ("yes", "Yes", "allow_once"),
        ("no", "No", "reject_once"),
    ]
    assert "Dangerous command" in asked["toolCall"]["title"]
    assert "sudo rm -rf /tmp/nothing" in asked["toolCall"]["title"]
    results = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in results] == ["Blocked by user", "no name given"]
    thoughts = "".join(
        u["content"]["text"] for u in log["updates"] if u["sessionUpdate"] == "agent_thought_chunk"
    )
    assert "Name the file?: ACP cannot carry this question; it was cancelled" in thoughts
    assert not (project / "named").exists()


def test_ask_user_through_the_clients_permission_request(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    """ACP can carry a question as a permission request with one option per choice: a
    multiple choice is answered with one option; an own answer cannot be typed there."""
    questions = [
        {
            "question": "Which features?",
            "header": "Features",
            "options": [{"label": "Login"}, {"label": "Search"}],
            "multiSelect": True,
        }
    ]
    server.add(
        Turn(tool_calls=[ToolCallSpec("ask_user", {"questions": questions}, id="q1")]),
        Turn(text="ok"),
    )
    log = drive(
        server, project, pi_home, [{"op": "new"}, {"op": "prompt", "text": "go"}], permission="1"
    )
    (asked,) = log["permissions"]
    assert [(o["optionId"], o["name"]) for o in asked["options"]] == [
        ("0", "Login"),
        ("1", "Search"),
    ]
    assert asked["toolCall"]["title"].startswith("Features: Which features?")
    results = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"]
    assert results[-1]["content"].startswith('The user answered: "Which features?"="Search".')
