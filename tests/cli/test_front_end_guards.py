"""Regression tests for the front-end review findings: RPC input, aborts, print mode outcomes."""

from __future__ import annotations

import asyncio
import builtins
import io
import json
from pathlib import Path
from typing import Any

import pytest

from pi_cli.cli import main
from pi_cli.modes.rpc.mode import RpcServer, serve
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.cli.conftest import RunPi, openai_args
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn


def _shell(cwd: Path, *responses: Any) -> tuple[CodingAgent, ScriptedStream]:
    stream = ScriptedStream(*responses)
    return CodingAgent(ShellOptions(cwd=cwd, stream_fn=stream, no_tools=True)), stream


async def _serve(shell: CodingAgent, *lines: bytes) -> list[dict[str, Any]]:
    out = io.BytesIO()
    await serve(shell, io.BytesIO(b"".join(line + b"\n" for line in lines)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def test_rpc_deep_nesting_and_surrogates(project: Path) -> None:
    shell, stream = _shell(project, reply(text("ok")))
    out = await _serve(
        shell,
        b"[" * 100_000,
        b'{"type":"prompt","message":"\\ud800 hi","id":1}',
        b'{"type":"get_state","id":2}',
    )
    responses = [o for o in out if o["type"] == "response"]
    assert responses[0]["command"] == "parse" and responses[0]["success"] is False
    assert any(o["type"] == "agent_end" for o in out)
    assert stream.user_texts(0) == ["? hi"]
    assert shell.session.path is not None and shell.session.path.is_file()


def test_respond_escapes_lone_surrogates(project: Path) -> None:
    shell, _ = _shell(project)
    out = io.BytesIO()
    RpcServer(shell, out).respond("x", "\ud800", data={"t": "\udc00"})
    line = out.getvalue()
    assert line.endswith(b"\n") and json.loads(line)["success"] is True


async def test_rpc_abort_right_after_prompt(project: Path) -> None:
    shell, stream = _shell(project, reply(text("should not run")))
    out = io.BytesIO()
    server = RpcServer(shell, out)
    shell.subscribe(server.write_event)
    # Both lines in one read: the run task has not started when the abort arrives.
    await server.handle_line(b'{"type":"prompt","message":"hi","id":1}')
    await server.handle_line(b'{"type":"abort","id":2}')
    await server.drain()
    assert stream.calls == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert not any(o["type"] == "agent_start" for o in lines)
    assert any(o["type"] == "notice" and "Aborted" in o["text"] for o in lines)


async def test_rpc_compact_does_not_block_and_can_be_aborted(project: Path) -> None:
    shell, _ = _shell(project, reply(text("one")), reply(text("two")), reply(hang=True))
    await shell.submit("first")
    await shell.submit("second")
    out = io.BytesIO()
    server = RpcServer(shell, out)
    shell.subscribe(server.write_event)
    await server.handle_line(b'{"type":"compact","id":"c"}')
    while not shell.compactor.is_compacting:
        await asyncio.sleep(0.01)
    await server.handle_line(b'{"type":"get_state","id":"s"}')
    await server.handle_line(b'{"type":"abort","id":"a"}')
    await server.drain()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    order = [
        (o["type"], o.get("command")) for o in lines if o["type"] in ("response", "compaction_end")
    ]
    assert order.index(("response", "get_state")) < order.index(("response", "compact"))
    compact = next(o for o in lines if o.get("command") == "compact")
    assert compact["success"] is False and "aborted" in compact["error"]
    assert next(o for o in lines if o["type"] == "compaction_end")["aborted"] is True


async def test_rpc_available_models_reports_bad_models_json(project: Path, pi_home: Path) -> None:
    (pi_home / "models.json").write_text("{bad")
    shell, _ = _shell(project)
    out = await _serve(shell, b'{"type":"get_available_models","id":1}')
    assert out[0]["success"] is False and "models.json" in out[0]["error"]


async def test_rpc_available_models_lists_usable_catalogue_models(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # as pi: only providers with a key
    shell, _ = _shell(project)
    out = await _serve(shell, b'{"type":"get_available_models","id":1,"filter":"gpt-4o-mini"}')
    models = out[0]["data"]["models"]
    assert (
        out[0]["success"]
        and {"provider": "openai", "id": "gpt-4o-mini"}.items()
        <= next(m for m in models if m["id"] == "gpt-4o-mini").items()
    )
    assert all(m["contextWindow"] > 0 and isinstance(m["reasoning"], bool) for m in models)
    everything = await _serve(shell, b'{"type":"get_available_models","id":2}')
    providers = {m["provider"] for m in everything[0]["data"]["models"]}
    assert "anthropic" not in providers and "openai" in providers


def test_json_mode_without_prompt_is_a_usage_error(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    result = run_pi(*openai_args(server), "--mode", "json", input="")
    assert result.returncode == 2 and "no prompt" in result.stderr
    assert server.requests == []


def test_blocked_prompt_does_not_reprint_previous_answer(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path
) -> None:
    server.add(Turn(text="the first answer"))
    assert run_pi(*openai_args(server), "first").returncode == 0
    (pi_home / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"command": "echo nope >&2; exit 2"}]}})
    )
    result = run_pi(*openai_args(server), "-c", "second")
    assert result.returncode == 1
    assert "the first answer" not in result.stdout
    assert "blocked" in result.stderr


def test_json_mode_slash_command_output_is_a_notice(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    result = run_pi(*openai_args(server), "--mode", "json", "/session")
    assert result.returncode == 0, result.stderr
    notices = [json.loads(line) for line in result.stdout.splitlines() if '"notice"' in line]
    assert any("Session:" in n["text"] for n in notices)


def test_ctrl_c_during_startup_imports_exits_130(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def interrupted(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "pi_cli.launch":  # the first import of a one-shot after parsing
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", interrupted)
    assert main(["hello"]) == 130


def test_internal_error_during_startup_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import pi_cli.launch

    def broken(args: Any) -> int:
        raise ValueError("oops")

    monkeypatch.delenv("PI_DEBUG", raising=False)
    monkeypatch.setattr(pi_cli.launch, "launch", broken)
    assert main([]) == 1
    assert "internal error: ValueError: oops" in capsys.readouterr().err
