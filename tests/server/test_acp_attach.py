"""``pi --mode acp --attach``: an editor (the ACP TypeScript SDK's client) whose sessions live in
``pi serve``: a session opened by one editor is listed and loaded by another (its history
replayed), prompted, forked, and left running in the server when the editors go."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.modes.acp.test_acp_client import CLIENT, SDK
from tests.server.harness import REPO, child_env

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def env(pi_home: Path) -> Iterator[dict[str, str]]:
    environment = child_env(pi_home)
    yield environment
    subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", "serve", "--stop"],
        env=environment,
        capture_output=True,
        timeout=60,
    )
    info = pi_home / "server" / "server.json"
    end = time.monotonic() + 30
    while info.exists() and time.monotonic() < end:
        time.sleep(0.05)
    if info.exists():
        os.kill(json.loads(info.read_text())["pid"], 9)


def editor(
    provider: FakeProviderServer, cwd: Path, env: dict[str, str], steps: list[dict[str, Any]]
) -> dict[str, Any]:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the ACP client tests need it")
    if not (SDK / "package.json").exists():
        pytest.skip(f"@agentclientprotocol/sdk is not installed in {SDK} (.ci/run installs it)")
    command = [
        sys.executable,
        "-m",
        "pi_cli.cli",
        "--mode",
        "acp",
        "--attach",
        "--model",
        "openai/fake-model",
        "--api-base",
        provider.openai_base_url,
        "--api-key",
        "sk-test",
    ]
    plan = {"command": command, "cwd": str(cwd), "steps": steps}
    out = subprocess.run(
        ["node", str(CLIENT), str(SDK), json.dumps(plan)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "PYTHONPATH": str(REPO)},
        cwd=cwd,
    )
    assert out.returncode == 0, out.stderr
    log = json.loads(out.stdout.strip().splitlines()[-1])
    assert not log["errors"], (log["errors"], out.stderr[-2000:])
    return log


def agent_text(log: dict[str, Any]) -> str:
    return "".join(
        u["content"]["text"] for u in log["updates"] if u["sessionUpdate"] == "agent_message_chunk"
    )


def test_sessions_in_the_server_outlive_the_editor(project: Path, env: dict[str, str]) -> None:
    with FakeProviderServer(
        [Turn(text="first answer"), Turn(text="second answer"), Turn(text="forked answer")]
    ) as provider:
        first = editor(
            provider,
            project,
            env,
            [{"op": "new"}, {"op": "prompt", "text": "hello from editor one"}],
        )
        session = first["responses"][1]["result"]["sessionId"]
        assert first["responses"][2]["result"]["stopReason"] == "end_turn"
        assert agent_text(first) == "first answer"
        second = editor(
            provider,
            project,
            env,
            [
                {"op": "list", "cwd": str(project)},
                {"op": "load", "sessionId": session},
                {"op": "prompt", "text": "editor two here"},
                {"op": "fork"},
                {"op": "prompt", "text": "in the fork"},
                {"op": "close"},
            ],
        )
        listed = second["responses"][1]["result"]["sessions"]
        assert [s["sessionId"] for s in listed] == [session]
        assert listed[0]["title"] == "hello from editor one"
        # load replays the conversation kept in the server, then the new answers stream.
        replayed = [u for u in second["updates"] if u["sessionUpdate"] == "user_message_chunk"]
        assert replayed[0]["content"]["text"] == "hello from editor one"
        assert agent_text(second) == "first answersecond answerforked answer"
        fork = second["responses"][4]["result"]["sessionId"]
        assert fork != session
    done = subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", "ps", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    sessions = {s["id"]: s for s in json.loads(done.stdout)["sessions"]}
    assert set(sessions) == {session, fork}
    assert all(s["live"] and s["clients"] == [] and s["state"] == "idle" for s in sessions.values())
    assert sessions[session]["messages"] == 4 and sessions[fork]["messages"] == 6
