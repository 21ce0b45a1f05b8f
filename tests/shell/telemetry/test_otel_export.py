"""Telemetry against a local OTLP/HTTP receiver: a real run through the shell, decoded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from pi_cli.shell.events import PermissionRequested
from tests.fakes.otlp import OtlpReceiver
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn, UsageSpec
from tests.shell.agent_tools.conftest import make_shell

SECRET_PROMPT = "summarise the file named hush-hush.txt"


async def _run(
    project: Path, server: FakeProviderServer, pi_home: Path, url: str, **extra: Any
) -> None:
    settings = {
        "telemetry": {"enabled": True, "endpoint": url, "headers": {"x-tenant": "t1"}, **extra},
        # Allowed by address, so the call is asked (a loopback address web_fetch refuses is
        # refused before any question) and then fails to connect.
        "webFetch": {"allowPrivateHosts": ["127.0.0.1:9"]},
    }
    (pi_home / "settings.json").write_text(json.dumps(settings))
    server.add(
        Turn(
            text="Writing it.",
            tool_calls=[
                ToolCallSpec("web_fetch", {"url": "http://127.0.0.1:9/TOOL-SECRET"}, id="w1")
            ],
            usage=UsageSpec(input=120, output=30, cache_read=40),
        ),
        Turn(text="Done: the answer is SECRET-ANSWER.", usage=UsageSpec(input=200, output=12)),
    )
    shell = make_shell(project, server, approvals="interactive")

    def approve(event: Any) -> None:
        if isinstance(event, PermissionRequested):
            shell.answer(event.id, "allow_once")

    shell.subscribe(approve)
    await shell.submit(SECRET_PROMPT)
    await shell.wait_idle()
    await shell.aclose()


async def test_a_run_exports_spans_and_metrics_without_content(
    project: Path, server: FakeProviderServer, pi_home: Path
) -> None:
    with OtlpReceiver() as otlp:
        await _run(project, server, pi_home, otlp.url)
    spans = otlp.spans()
    by_name = {s["name"]: s for s in spans}
    run = by_name["invoke_agent pi"]
    turns = [s for s in spans if s["name"] == "turn"]
    chats = [s for s in spans if s["name"] == "chat fake-model"]
    tool = by_name["execute_tool web_fetch"]
    assert len(turns) == 2 and len(chats) == 2
    assert {s["trace"] for s in spans} == {run["trace"]}
    assert all(t["parent"] == run["id"] for t in turns)
    assert chats[0]["parent"] == turns[0]["id"] and tool["parent"] == turns[0]["id"]
    first = chats[0]["attributes"]
    assert first["gen_ai.operation.name"] == "chat"
    assert first["gen_ai.provider.name"] == "openai"
    assert first["gen_ai.request.model"] == "fake-model"
    assert first["gen_ai.usage.input_tokens"] == 160 and first["gen_ai.usage.output_tokens"] == 30
    assert first["gen_ai.usage.cache_read.input_tokens"] == 40
    assert first["gen_ai.response.finish_reasons"] == ["toolUse"]
    assert "pi.cost.usd" in first
    assert tool["attributes"]["gen_ai.tool.name"] == "web_fetch"
    assert tool["attributes"]["error.type"] == "tool_error"  # a loopback URL is refused
    assert tool["attributes"]["gen_ai.tool.call.id"] == "w1"
    assert tool["duration_ns"] > 0
    events = [(name, attrs) for s in spans for name, attrs in s["events"]]
    names = [name for name, _ in events]
    assert "pi.permission.requested" in names and "pi.permission.resolved" in names
    resolved = next(attrs for name, attrs in events if name == "pi.permission.resolved")
    assert resolved["pi.permission.outcome"] == "allowed" and resolved["pi.permission.by"] == "user"
    assert run["resource"]["service.name"] == "pi"
    everything = b"".join(body for _, _, body in otlp.received)
    for secret in (b"hush-hush", b"TOOL-SECRET", b"SECRET-ANSWER"):
        assert secret not in everything
    assert all(h.get("x-tenant") == "t1" for _, h, _ in otlp.received)
    assert {"gen_ai.client.token.usage", "gen_ai.client.operation.duration", "pi.tool.calls"} <= (
        otlp.metric_names()
    )
    assert "pi.permission.decisions" in otlp.metric_names()


async def test_prompts_and_outputs_only_when_opted_in(
    project: Path, server: FakeProviderServer, pi_home: Path
) -> None:
    with OtlpReceiver() as otlp:
        await _run(project, server, pi_home, otlp.url, logPrompts=True)
    spans = otlp.spans()
    run = next(s for s in spans if s["name"] == "invoke_agent pi")
    tool = next(s for s in spans if s["name"] == "execute_tool web_fetch")
    chat = [s for s in spans if s["name"].startswith("chat")][-1]
    assert "hush-hush" in run["attributes"]["gen_ai.input.messages"]
    assert "TOOL-SECRET" in tool["attributes"]["gen_ai.tool.call.arguments"]
    assert "SECRET-ANSWER" in chat["attributes"]["gen_ai.output.messages"]


def test_sdk_not_imported_unless_enabled(tmp_path: Path) -> None:
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from pi_cli.shell.coding_agent import CodingAgent, ShellOptions\n"
        "from tests.agent_core.scripted_stream import ScriptedStream\n"
        f"shell = CodingAgent(ShellOptions(cwd=Path({str(tmp_path)!r}), stream_fn=ScriptedStream()))\n"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))\n"
    )
    env = {"PI_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, env=env, check=True
    )
    assert out.stdout.strip() == "[]", out.stdout
