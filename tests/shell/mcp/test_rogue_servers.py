"""MCP servers that misbehave: each a clear message and a tool result, never a crash."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

from agent_core import ToolExecutionEnd
from pi_cli.shell.events import McpStatusChanged, Notice, PermissionRequested
from tests.agent_core.scripted_stream import Recorder, ScriptedStream, reply, text, tool_call
from tests.shell.mcp.conftest import mcp_shell, rogue


def _results(recorder: Recorder) -> list[ToolExecutionEnd]:
    return [e for e in recorder.events if isinstance(e, ToolExecutionEnd)]


def _notices(recorder: Recorder) -> list[str]:
    return [e.text for e in recorder.events if isinstance(e, Notice)]


async def test_broken_servers_fail_alone_and_clearly(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(tool_call("c1", "mcp__ok__echo", {"text": "hi", "times": 2})), reply(text("done"))
    )
    servers = {
        "ok": rogue("ok"),
        "hang": rogue("hang"),
        "garbage": rogue("garbage"),
        "exit": rogue("exit"),
        "missing": {"command": str(tmp_path / "no-such-server")},
        "unset": {"command": "x", "args": ["${PI_TEST_SURELY_UNSET_VAR}"]},
    }
    shell = mcp_shell(
        tmp_path,
        stream,
        servers,
        {"startupTimeoutS": 4, "connectTimeoutS": 30},
        skip_permissions=True,
    )
    recorder = Recorder()
    shell.subscribe(recorder)
    started = time.monotonic()
    await shell.mcp.wait_ready()
    waited = time.monotonic() - started
    assert waited < 4.5  # the hanging server costs at most mcp.startupTimeoutS
    states = {s.config.name: (s.state, s.error) for s in shell.mcp.servers.values()}
    assert states["ok"] == ("ready", None)
    assert states["hang"][0] == "starting"
    # A line that is not JSON-RPC is answered and reading goes on: the server that never
    # answers is still starting (its line is quoted once it fails, see the fuzz test).
    assert states["garbage"][0] == "starting"
    assert "exited with code 2" in (states["exit"][1] or "")
    assert "cannot start (missing config)" in (states["exit"][1] or "")  # its stderr
    assert "cannot run" in (states["missing"][1] or "")
    assert states["unset"] == ("failed", "environment variable not set: PI_TEST_SURELY_UNSET_VAR")
    notices = " ".join(_notices(recorder))
    assert "MCP server hang is still starting after 4s" in notices
    assert "MCP server garbage is still starting" in notices
    await shell.submit("go")
    result = _results(recorder)[0]
    assert not result.is_error and result.result.text == "hihi"
    assert any(isinstance(e, McpStatusChanged) for e in recorder.events)
    names = [spec.name for spec in stream.contexts[0].tools]
    assert "mcp__ok__echo" in names and "mcp__ok__peek" in names
    # The tool whose schema is no JSON Schema is left out, with a warning; the others stay.
    assert not any("bad" in name for name in names)
    assert "tool bad schema! left out" in " ".join(_notices(recorder))
    echo = next(s for s in stream.contexts[0].tools if s.name == "mcp__ok__echo")
    assert echo.parameters["properties"]["times"] == {"type": "integer", "minimum": 1}
    status = await shell.submit("/mcp")
    assert status is not None and "hang: starting" in (status.output or "")
    await shell.aclose()


async def test_calls_that_go_wrong_become_tool_results(tmp_path: Path) -> None:
    log = tmp_path / "rogue.log"
    stream = ScriptedStream(
        reply(
            tool_call("c1", "mcp__r__echo", {"text": 5}),
            tool_call("c2", "mcp__r__fail"),
            tool_call("c3", "mcp__r__slow", {"seconds": 20}),
            tool_call("c4", "mcp__r__big"),
        ),
        reply(tool_call("c5", "mcp__r__die")),
        reply(tool_call("c6", "mcp__r__echo", {"text": "again"})),
        reply(text("the session goes on")),
    )
    servers = {"r": rogue("ok", env={"ROGUE_LOG": str(log)})}
    shell = mcp_shell(tmp_path, stream, servers, {"toolTimeoutS": 1}, skip_permissions=True)
    shell.agent.tool_execution = "sequential"
    recorder = Recorder()
    shell.subscribe(recorder)
    await shell.mcp.wait_ready()
    await shell.submit("go")
    results = {e.tool_call_id: e for e in _results(recorder)}
    assert results["c1"].is_error
    assert "text: 5 is not of type 'string'" in results["c1"].result.text
    assert results["c2"].is_error and "it went wrong" in results["c2"].result.text
    assert results["c3"].is_error and "did not answer within 1s" in results["c3"].result.text
    big = results["c4"].result.text
    assert not results["c4"].is_error and "[Output truncated: showing 2000 of 5000 lines" in big
    assert results["c5"].is_error
    assert "exited with code 3" in results["c5"].result.text
    assert "rogue: dying on purpose" in results["c5"].result.text
    assert results["c6"].is_error and "Tool mcp__r__echo not found" in results["c6"].result.text
    assert stream.contexts[-1].messages[-1].role == "toolResult"
    # The dead server's tools left at the next turn boundary; the run went on.
    assert not any(s.name.startswith("mcp__r__") for s in stream.contexts[-1].tools)
    assert "MCP server r is gone" in " ".join(_notices(recorder))
    for _ in range(50):  # the time-out cancelled the request on the server too
        if "cancelled" in log.read_text():
            break
        await asyncio.sleep(0.1)
    assert "cancelled" in log.read_text()
    await shell.aclose()


async def test_abort_cancels_the_mcp_request(tmp_path: Path) -> None:
    log = tmp_path / "rogue.log"
    stream = ScriptedStream(reply(tool_call("c1", "mcp__r__slow", {"seconds": 30})))
    shell = mcp_shell(
        tmp_path, stream, {"r": rogue(env={"ROGUE_LOG": str(log)})}, skip_permissions=True
    )
    await shell.mcp.wait_ready()
    recorder = Recorder()
    shell.subscribe(recorder)
    started = asyncio.get_running_loop().create_future()
    shell.subscribe(
        lambda e: (
            type(e).__name__ == "ToolExecutionStart"
            and not started.done()
            and started.set_result(1)
        )
    )
    run = shell.submit("go")
    await asyncio.wait_for(started, 10)
    await asyncio.sleep(0.3)
    began = time.monotonic()
    shell.abort()
    await asyncio.wait_for(run, 5)
    assert time.monotonic() - began < 2
    for _ in range(50):
        if "cancelled" in log.read_text():
            break
        await asyncio.sleep(0.1)
    assert "cancelled" in log.read_text()
    assert shell.mcp.servers["r"].state == "ready"  # an abort does not break the server
    await shell.aclose()


async def test_permissions_apply_to_mcp_calls(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(tool_call("c1", "mcp__r__peek"), tool_call("c2", "mcp__r__echo", {"text": "x"})),
        reply(text("ok")),
    )
    shell = mcp_shell(tmp_path, stream, {"r": rogue()}, approvals="none")
    recorder = Recorder()
    shell.subscribe(recorder)
    await shell.mcp.wait_ready()
    await shell.submit("go")
    results = {e.tool_call_id: e for e in _results(recorder)}
    assert not results["c1"].is_error and results["c1"].result.text == "peeked"  # readOnlyHint
    assert results["c2"].is_error and "needs the user's approval" in results["c2"].result.text
    asks = [e for e in recorder.events if isinstance(e, PermissionRequested)]
    assert [a.tool_name for a in asks] == ["mcp__r__echo"]
    assert asks[0].rules["user"] == ["mcp__r__echo"]
    await shell.aclose()


async def test_an_allow_rule_lets_an_mcp_tool_run(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(tool_call("c1", "mcp__r__echo", {"text": "x"})), reply(text("ok"))
    )
    shell = mcp_shell(
        tmp_path, stream, {"r": rogue()}, approvals="none", allowed_tools=["mcp__r__echo"]
    )
    recorder = Recorder()
    shell.subscribe(recorder)
    await shell.mcp.wait_ready()
    await shell.submit("go")
    assert _results(recorder)[0].result.text == "x"
    await shell.aclose()


async def test_servers_get_no_provider_keys(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-very-secret-value")
    monkeypatch.setenv("PI_TEST_HARMLESS", "1")
    stream = ScriptedStream(reply(tool_call("c1", "mcp__r__env")), reply(text("ok")))
    env = {"ROGUE_ENV": "ANTHROPIC_API_KEY,PI_TEST_HARMLESS,CONFIGURED"}
    shell = mcp_shell(
        tmp_path,
        stream,
        {"r": rogue(env={**env, "CONFIGURED": "${PI_TEST_HARMLESS}"})},
        skip_permissions=True,
    )
    recorder = Recorder()
    shell.subscribe(recorder)
    await shell.mcp.wait_ready()
    await shell.submit("go")
    result = _results(recorder)[0].result
    assert result.details["structuredContent"] == {
        "ANTHROPIC_API_KEY": False,
        "PI_TEST_HARMLESS": True,
        "CONFIGURED": True,
    }
    await shell.aclose()


async def test_interactive_start_never_waits_and_tools_join_at_a_turn_boundary(
    tmp_path: Path,
) -> None:
    stream = ScriptedStream(reply(text("first")), reply(text("second")))
    began = time.monotonic()
    shell = mcp_shell(
        tmp_path, stream, {"slow": rogue("ok"), "hang": rogue("hang")}, approvals="interactive"
    )
    assert time.monotonic() - began < 0.5  # building the shell waits for no server
    await asyncio.wait_for(shell.submit("one"), 1.0)  # the hanging server delays nothing
    assert stream.calls == 1
    while shell.mcp.servers["slow"].state == "starting":
        await asyncio.sleep(0.05)
    await shell.submit("two")
    second = {t.name for t in stream.contexts[1].tools}
    assert "mcp__slow__echo" in second and not any("hang" in n for n in second)
    await shell.aclose()


async def test_servers_die_with_pi(tmp_path: Path) -> None:
    log = tmp_path / "rogue.log"
    stream = ScriptedStream()
    shell = mcp_shell(tmp_path, stream, {"r": rogue(env={"ROGUE_LOG": str(log)})})
    await shell.mcp.wait_ready()
    pid = int(log.read_text().split()[1])
    assert os.getpgid(pid) == pid  # its own process group
    await shell.aclose()
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the server outlived its shell")


async def test_a_schema_the_provider_rejects_removes_that_servers_tools(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(error="400 tools.2.custom.input_schema: JSON schema is invalid"),
        reply(text("fine without it")),
    )
    shell = mcp_shell(tmp_path, stream, {"r": rogue(), "other": rogue()}, approvals="interactive")
    await shell.mcp.wait_ready()
    recorder = Recorder()
    shell.subscribe(recorder)
    await shell.submit("one")
    sent = [spec.name for spec in stream.contexts[0].tools]
    rejected_server = sent[2].split("__")[1]
    await shell.submit("two")
    names = {spec.name for spec in stream.contexts[1].tools}
    assert not any(n.startswith(f"mcp__{rejected_server}__") for n in names)
    kept = "other" if rejected_server == "r" else "r"
    assert any(n.startswith(f"mcp__{kept}__") for n in names)  # the other server stays
    assert "the provider rejected one of its tool schemas" in " ".join(_notices(recorder))
    assert shell.mcp.servers[rejected_server].state == "failed"
    await shell.aclose()


def test_servers_die_when_pi_is_killed(tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    log = tmp_path / "rogue.log"
    code = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from tests.shell.mcp.conftest import mcp_shell, rogue\n"
        "from tests.agent_core.scripted_stream import ScriptedStream\n"
        "async def main():\n"
        f"    shell = mcp_shell(Path({str(tmp_path)!r}), ScriptedStream(), {{'r': rogue(env={{'ROGUE_LOG': {str(log)!r}}})}})\n"
        "    await shell.mcp.wait_ready()\n"
        "    print('ready', flush=True)\n"
        "    await asyncio.sleep(60)\n"
        "asyncio.run(main())\n"
    )
    repo = Path(__file__).resolve().parents[3]
    pi = subprocess.Popen([sys.executable, "-c", code], cwd=repo, stdout=subprocess.PIPE, text=True)
    try:
        assert pi.stdout is not None and pi.stdout.readline().strip() == "ready"
        server_pid = int(log.read_text().split()[1])
        os.kill(pi.pid, signal.SIGKILL)  # no shutdown code runs: PR_SET_PDEATHSIG does it
        pi.wait()
        for _ in range(100):
            try:
                os.kill(server_pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
        raise AssertionError("the MCP server outlived a killed pi")
    finally:
        pi.kill()


async def test_hooks_see_mcp_calls_by_name(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    hook = f"cat > {seen}; echo 'no MCP echo today' >&2; exit 2"
    stream = ScriptedStream(
        reply(tool_call("c1", "mcp__r__echo", {"text": "x"})), reply(text("ok"))
    )
    work = tmp_path / "project"
    work.mkdir()
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
    from pi_cli.shell.config.settings import Settings

    settings = Settings.model_validate(
        {
            "mcpServers": {"r": rogue()},
            "hooks": {
                "PreToolUse": [
                    {"matcher": "mcp__r__.*", "hooks": [{"type": "command", "command": hook}]}
                ]
            },
        }
    )
    shell = CodingAgent(
        ShellOptions(cwd=work, stream_fn=stream, settings=settings, skip_permissions=True)
    )
    recorder = Recorder()
    shell.subscribe(recorder)
    await shell.mcp.wait_ready()
    await shell.submit("go")
    import json

    payload = json.loads(seen.read_text())
    assert payload["tool_name"] == "mcp__r__echo" and payload["tool_input"] == {"text": "x"}
    result = _results(recorder)[0]
    assert result.is_error and "no MCP echo today" in result.result.text
    await shell.aclose()


async def test_mcp_restart_brings_a_dead_server_back(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(tool_call("c1", "mcp__r__die")),
        reply(text("it died")),
        reply(tool_call("c2", "mcp__r__echo", {"text": "back"})),
        reply(text("done")),
    )
    shell = mcp_shell(tmp_path, stream, {"r": rogue()}, skip_permissions=True)
    recorder = Recorder()
    shell.subscribe(recorder)
    await shell.mcp.wait_ready()
    await shell.submit("die")
    assert shell.mcp.servers["r"].state == "failed"
    restarted = await shell.submit("/mcp restart r")
    assert restarted is not None and "Restarted r: 7 tools" in (restarted.output or "")
    unknown = await shell.submit("/mcp restart nobody")
    assert unknown is not None and unknown.error
    await shell.submit("again")
    assert _results(recorder)[-1].result.text == "back"
    await shell.aclose()


async def test_malformed_frames_get_error_replies_and_the_server_keeps_working(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """A server writing every kind of bad frame before each answer (a banner, batches, bare
    values, an array id, invalid UTF-8, 100,000 nested brackets...) still starts and serves;
    each bad request-like frame got a JSON-RPC error back; a malformed answer to a call fails
    that call at once (not after the tool time-out)."""
    log = tmp_path / "rogue.log"
    monkeypatch.setenv("ROGUE_LOG", str(log))
    stream = ScriptedStream(
        reply(tool_call("c1", "mcp__fuzz__echo", {"text": "a"})),
        reply(tool_call("c2", "mcp__fuzz__echo", {"text": "b", "times": 2})),
        reply(text("done")),
    )
    shell = mcp_shell(
        tmp_path,
        stream,
        {"fuzz": rogue("fuzz")},
        {"startupTimeoutS": 20, "toolTimeoutS": 60},
        skip_permissions=True,
    )
    recorder = Recorder()
    shell.subscribe(recorder)
    await shell.mcp.wait_ready()
    server = shell.mcp.servers["fuzz"]
    assert (server.state, server.error) == ("ready", None)
    await shell.submit("go")
    first, second = _results(recorder)
    # Failed by the malformed answer itself, not by mcp.toolTimeoutS.
    assert first.is_error and "malformed response" in first.result.text
    assert not second.is_error and second.result.text == "bb"
    replies = [line for line in log.read_text().splitlines() if line.startswith("reply ")]
    codes = [json.loads(line[6:]).get("error", {}).get("code") for line in replies]
    assert -32700 in codes and -32600 in codes  # parse errors and invalid requests answered
    assert all(json.loads(line[6:]).get("id") in (None, 7, 8, 9, "s1") for line in replies)
    await shell.aclose()
