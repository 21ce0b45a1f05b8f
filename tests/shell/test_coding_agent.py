"""The CodingAgent shell with a scripted model: persistence, commands, queues, resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_core import AgentEnd, MessageEnd
from pi_cli.shell.coding_agent import CodingAgent, ConfigError, ShellOptions
from pi_cli.shell.events import ModelChanged, SessionChanged
from pi_cli.shell.session.store import SessionStore
from tests.agent_core.scripted_stream import ScriptedStream, reply, text


def _shell(tmp_path: Path, stream: ScriptedStream, **kwargs: Any) -> CodingAgent:
    return CodingAgent(ShellOptions(cwd=tmp_path, stream_fn=stream, no_tools=True, **kwargs))


async def test_prompt_persists_every_message(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("Hello ", "world")))
    shell = _shell(tmp_path, stream)
    events: list[Any] = []
    shell.subscribe(events.append)
    await shell.submit("hi")
    assert any(isinstance(e, AgentEnd) for e in events)
    assert sum(isinstance(e, MessageEnd) for e in events) == 2
    assert shell.session.path is not None
    stored = SessionStore.open(shell.session.path).build_context()
    assert [m.role for m in stored] == ["user", "assistant"]
    assert stored[1].text == "Hello world"


async def test_continue_session_restores_messages(tmp_path: Path) -> None:
    first = _shell(tmp_path, ScriptedStream(reply(text("one"))))
    await first.submit("first question")
    stream = ScriptedStream(reply(text("two")))
    second = _shell(tmp_path, stream, continue_session=True)
    assert [m.role for m in second.agent.state.messages] == ["user", "assistant"]
    await second.submit("second question")
    assert stream.user_texts(0) == ["first question", "second question"]
    assert second.session.path == first.session.path


async def test_no_session_writes_nothing(tmp_path: Path, pi_home: Path) -> None:
    shell = _shell(tmp_path, ScriptedStream(reply(text("ok"))), persist_session=False)
    await shell.submit("hi")
    assert not (pi_home / "sessions").exists()


async def test_slash_commands(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("ok")))
    shell = _shell(tmp_path, stream)
    events: list[Any] = []
    shell.subscribe(events.append)
    help_result = await shell.submit("/help")
    assert help_result is not None and "/model" in (help_result.output or "")
    assert stream.calls == 0
    session = await shell.submit("/session")
    assert session is not None and shell.session.session_id in (session.output or "")
    thinking = await shell.submit("/thinking high")
    assert shell.thinking == "high" and shell.agent.thinking == "high"
    assert thinking is not None and not thinking.error
    assert any(isinstance(e, ModelChanged) for e in events)
    old = shell.session.session_id
    await shell.submit("/new")
    assert shell.session.session_id != old
    assert any(isinstance(e, SessionChanged) for e in events)
    quit_result = await shell.submit("/quit")
    assert quit_result is not None and quit_result.quit
    # an unknown command and an absolute path go to the model as text
    await shell.submit("/usr/bin/env is a path")
    assert stream.user_texts(0) == ["/usr/bin/env is a path"]


def test_unknown_tool_name_is_a_config_error(tmp_path: Path) -> None:
    pytest.importorskip("tools")
    with pytest.raises(ConfigError, match="nope"):
        CodingAgent(ShellOptions(cwd=tmp_path, stream_fn=ScriptedStream(), tools=["read", "nope"]))


def test_no_model_configured_is_a_friendly_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        CodingAgent(ShellOptions(cwd=tmp_path, no_tools=True))
    message = str(info.value)
    assert "ANTHROPIC_API_KEY" in message and "--model" in message and "local" in message
