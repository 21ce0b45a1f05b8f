"""Real MCP servers nobody on this project wrote (installed by .ci/run, no network at test time):
mcp-server-time and mcp-server-git (PyPI) over stdio, @modelcontextprotocol/server-everything
(npm) over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
from pathlib import Path

from agent_core import ImageContent, ToolExecutionEnd
from tests.agent_core.scripted_stream import Recorder, ScriptedStream, reply, text, tool_call
from tests.shell.mcp.conftest import everything, free_port, mcp_shell, python_server


def _results(recorder: Recorder) -> dict[str, ToolExecutionEnd]:
    return {e.tool_call_id: e for e in recorder.events if isinstance(e, ToolExecutionEnd)}


async def test_time_and_git_servers_over_stdio(tmp_path: Path) -> None:
    repo = tmp_path / "project"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "new.txt").write_text("hello\n")
    stream = ScriptedStream(
        reply(
            tool_call("t1", "mcp__time__get_current_time", {"timezone": "Europe/Paris"}),
            tool_call("t2", "mcp__time__convert_time", {"source_timezone": "UTC"}),
            tool_call("g1", "mcp__git__git_status", {"repo_path": str(repo)}),
        ),
        reply(text("done")),
    )
    servers = {
        "time": {"command": python_server("mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "git": {"command": python_server("mcp-server-git"), "args": ["-r", str(repo)]},
    }
    shell = mcp_shell(tmp_path, stream, servers, {"startupTimeoutS": 30}, approvals="none")
    recorder = Recorder()
    shell.subscribe(recorder)
    await shell.mcp.wait_ready()
    assert {s.state for s in shell.mcp.servers.values()} == {"ready"}
    await shell.submit("what time is it")
    results = _results(recorder)
    assert not results["t1"].is_error, results["t1"].result.text
    assert json.loads(results["t1"].result.text)["timezone"] == "Europe/Paris"
    # Missing required arguments: the validator answers before the server is asked.
    assert results["t2"].is_error and "'time' is a required property" in results["t2"].result.text
    assert not results["g1"].is_error and "new.txt" in results["g1"].result.text  # read-only
    specs = {spec.name: spec for spec in stream.contexts[0].tools}
    assert specs["mcp__git__git_commit"].parameters["required"] == ["repo_path", "message"]
    await shell.aclose()


async def test_everything_over_stdio(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(
            tool_call("e1", "mcp__everything__echo", {"message": "hi there"}),
            tool_call("e2", "mcp__everything__get-tiny-image"),
            tool_call("e3", "mcp__everything__get-structured-content", {"location": "New York"}),
            tool_call("e4", "mcp__everything__get-sum", {"a": "one", "b": 2}),
        ),
        reply(text("done")),
        reply(text("prompted")),
        reply(text("read it")),
    )
    servers = {"everything": {"command": everything()[0], "args": everything()[1:]}}
    shell = mcp_shell(tmp_path, stream, servers, {"startupTimeoutS": 30}, approvals="none")
    recorder = Recorder()
    shell.subscribe(recorder)
    await shell.mcp.wait_ready()
    await shell.submit("try everything")
    results = _results(recorder)
    assert results["e1"].result.text == "Echo: hi there"
    images = [b for b in results["e2"].result.content if isinstance(b, ImageContent)]
    assert images and images[0].mime_type == "image/png"
    assert not results["e3"].is_error and "structuredContent" in results["e3"].result.details
    assert (
        results["e4"].is_error and "a: 'one' is not of type 'number'" in results["e4"].result.text
    )
    # A prompt as a command, a resource as a mention.
    await shell.submit("/mcp__everything__args-prompt Paris")
    assert "Paris" in stream.user_texts(2)[-1]
    uri = "demo://resource/static/document/architecture.md"
    await shell.submit(f"summarise @everything:{uri}.")
    sent = stream.user_texts(3)[-1]
    assert f'<mcp-resource server="everything" uri="{uri}">' in sent and len(sent) > 200
    await shell.aclose()


async def test_everything_over_streamable_http_and_killed_mid_call(tmp_path: Path) -> None:
    port = free_port()
    command = everything()
    server = subprocess.Popen(
        [*command, "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert server.stderr is not None
        deadline = time.monotonic() + 20
        while b"listening" not in server.stderr.readline():
            assert time.monotonic() < deadline and server.poll() is None
        stream = ScriptedStream(
            reply(tool_call("h1", "mcp__web__echo", {"message": "over http"})),
            reply(tool_call("h2", "mcp__web__trigger-long-running-operation", {"duration": 20})),
            reply(text("done")),
        )
        url = f"http://127.0.0.1:{port}/mcp"
        servers = {"web": {"type": "http", "url": url, "headers": {"X-Test": "${PI_TEST_HDR:-ok}"}}}
        shell = mcp_shell(
            tmp_path, stream, servers, {"startupTimeoutS": 30, "toolTimeoutS": 30}, approvals="none"
        )
        recorder = Recorder()
        shell.subscribe(recorder)
        await shell.mcp.wait_ready()
        assert shell.mcp.servers["web"].state == "ready", shell.mcp.servers["web"].error
        started = asyncio.get_running_loop().create_future()

        def on_event(event: object) -> None:
            if getattr(event, "tool_call_id", "") == "h2" and not started.done():
                started.set_result(None)

        shell.subscribe(on_event)
        run = shell.submit("go")
        await asyncio.wait_for(started, 20)
        await asyncio.sleep(0.5)
        os.killpg(server.pid, signal.SIGKILL)  # the server dies mid-call
        began = time.monotonic()
        await asyncio.wait_for(run, 40)
        results = _results(recorder)
        assert results["h1"].result.text == "Echo: over http"
        assert results["h2"].is_error and results["h2"].result.text
        assert time.monotonic() - began < 30
        await shell.aclose()
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
        server.wait()


async def test_streamable_http_goes_through_the_configured_proxy(tmp_path: Path) -> None:
    """network.proxy carries MCP-over-HTTP traffic (a name only the proxy can resolve)."""
    from tests.fakes.proxy import FakeProxy
    from tests.fakes.tls import TEST_HOST

    port = free_port()
    server = subprocess.Popen(
        [*everything(), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert server.stderr is not None
        deadline = time.monotonic() + 20
        while b"listening" not in server.stderr.readline():
            assert time.monotonic() < deadline and server.poll() is None
        with FakeProxy(hosts={TEST_HOST: "127.0.0.1"}) as proxy:
            stream = ScriptedStream(
                reply(tool_call("p1", "mcp__web__echo", {"message": "proxied"})), reply(text("ok"))
            )
            servers = {"web": {"type": "http", "url": f"http://{TEST_HOST}:{port}/mcp"}}
            shell = mcp_shell(
                tmp_path,
                stream,
                servers,
                {"startupTimeoutS": 30},
                {"proxy": proxy.url},
                approvals="none",
            )
            recorder = Recorder()
            shell.subscribe(recorder)
            await shell.mcp.wait_ready()
            assert shell.mcp.servers["web"].state == "ready", shell.mcp.servers["web"].error
            await shell.submit("go")
            assert _results(recorder)["p1"].result.text == "Echo: proxied"
            await shell.aclose()
        assert any(
            line.startswith(f"POST http://{TEST_HOST}:{port}/mcp") for line in proxy.requests
        )
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
        server.wait()
