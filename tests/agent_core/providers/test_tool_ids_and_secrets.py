"""Tool-call ids (unique in, each provider's form out) and secrets in error text.

The fake servers run ``strict``: a request the real API would reject (unpaired or repeated
tool-call ids, an id in a form the API refuses) gets the API's HTTP 400, so "sendable" below
means what it means against the real service.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from agent_core import (
    Agent,
    AssistantMessage,
    TextContent,
    ToolCall,
    ToolResultMessage,
    user_message,
)
from agent_core.providers import RetryConfig, make_stream_fn, resolve_model
from agent_core.providers._tool_ids import OutgoingIds, id_style
from tests.agent_core.providers.conformance import PROTOCOLS, SPECS, Harness
from tests.agent_core.sample_tools import EchoTool
from tests.fakes import FakeProviderServer, ToolCallSpec, Turn

BOTH = pytest.mark.parametrize("protocol", PROTOCOLS)
UNPREFIXED = "a3f9c2d1e8b74a6f9c0d2e1f3a4b5c6d"  # Azure/Mistral/Together-style: no "sk-"


def _model(server: FakeProviderServer, protocol: str, spec: str | None = None, **kw: Any) -> Any:
    base = server.openai_base_url if protocol == "openai" else server.anthropic_base_url
    return resolve_model(
        spec or SPECS[protocol], api_base=base, api_key=kw.pop("key", "sk-t"), env={}, **kw
    )


def _agent(model: Any, tools: list[Any] | None = None, **kw: Any) -> Agent:
    fn = make_stream_fn(model, retry=RetryConfig(max_retries=0), timeout_s=10)
    return Agent(fn, model=model.id, tools=tools or [EchoTool()], **kw)


def _call_ids(body: dict[str, Any], protocol: str) -> tuple[list[str], list[str]]:
    """(ids of the tool calls, ids the results answer) in one request body."""
    calls: list[str] = []
    answers: list[str] = []
    for message in body["messages"]:
        if protocol == "openai":
            calls += [c["id"] for c in message.get("tool_calls") or []]
            if message["role"] == "tool":
                answers.append(message["tool_call_id"])
        elif isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_use":
                    calls.append(block["id"])
                elif block.get("type") == "tool_result":
                    answers.append(block["tool_use_id"])
    return calls, answers


@BOTH
async def test_the_same_id_twice_in_one_response(protocol: str) -> None:
    calls = [
        ToolCallSpec("echo", {"text": "one"}, id="dup"),
        ToolCallSpec("echo", {"text": "two"}, id="dup"),
    ]
    with FakeProviderServer(
        [Turn(tool_calls=calls), Turn(text="both seen")], strict=True
    ) as server:
        agent = _agent(_model(server, protocol))
        await agent.prompt("go")
        assert agent.state.messages[-1].text == "both seen", agent.state.messages[-1].error_message
        answer = agent.state.messages[1]
        assert isinstance(answer, AssistantMessage)
        assert [(c.id, c.original_id) for c in answer.tool_calls] == [
            ("dup", None),
            ("dup_2", "dup"),
        ]
        results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
        assert [(r.tool_call_id, r.text) for r in results] == [("dup", "one"), ("dup_2", "two")]
        sent_calls, sent_answers = _call_ids(server.requests[1], protocol)
        assert sent_calls == sent_answers and len(set(sent_calls)) == 2
        assert not server.rejected


@BOTH
async def test_calls_without_ids(protocol: str) -> None:
    calls = [ToolCallSpec("echo", {"text": "a"}, id=""), ToolCallSpec("echo", {"text": "b"}, id="")]
    with FakeProviderServer([Turn(tool_calls=calls), Turn(text="fine")], strict=True) as server:
        agent = _agent(_model(server, protocol))
        await agent.prompt("go")
        assert agent.state.messages[-1].text == "fine"
        ids = [c.id for c in agent.state.messages[1].tool_calls]  # type: ignore[union-attr]
        assert len(set(ids)) == 2 and all(ids)
        assert not server.rejected


@BOTH
async def test_a_hundred_calls_unknown_names_and_bad_json(protocol: str) -> None:
    calls = [ToolCallSpec("echo", {"text": f"n{i}"}) for i in range(98)]
    calls += [ToolCallSpec("no_such_tool", {}), ToolCallSpec("echo", '{"text": "unclosed')]
    with FakeProviderServer(
        [Turn(tool_calls=calls, chunk_size=0), Turn(text="done")], strict=True
    ) as server:
        echo = EchoTool()
        agent = _agent(_model(server, protocol), [echo])
        await agent.prompt("go")
        assert agent.state.messages[-1].text == "done"
        results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
        assert len(results) == 100 and len(echo.calls) == 98
        assert results[98].is_error and "not found. Available tools: echo" in results[98].text
        assert results[99].is_error and "Invalid JSON in arguments" in results[99].text
        sent_calls, sent_answers = _call_ids(server.requests[1], protocol)
        assert len(sent_calls) == 100 and sent_calls == sent_answers


def _broken_history() -> list[Any]:
    """A session saved before ids were unique: one id twice, both results stored."""
    calls = [
        ToolCall(id="call_1", name="echo", arguments={"text": "a"}),
        ToolCall(id="call_1", name="echo", arguments={"text": "b"}),
    ]
    return [
        user_message("first"),
        AssistantMessage(
            content=calls, stop_reason="toolUse", provider="openai", api="openai-completions"
        ),
        ToolResultMessage(tool_call_id="call_1", tool_name="echo", content=[TextContent(text="a")]),
        ToolResultMessage(tool_call_id="call_1", tool_name="echo", content=[TextContent(text="b")]),
        AssistantMessage(content=[TextContent(text="ok")], provider="openai"),
        user_message("again"),
    ]


def _foreign_history() -> list[Any]:
    """Ids as other providers make them: Anthropic's, Kimi's, an over-long one, a weird one."""
    ids = ["toolu_01NRLabsLyVHZPKxbKvkfSMn", "functions.read:0", "x" * 70, "call/é 1"]
    calls = [ToolCall(id=i, name="echo", arguments={"text": i}) for i in ids]
    results = [
        ToolResultMessage(tool_call_id=i, tool_name="echo", content=[TextContent(text=i)])
        for i in ids
    ]
    return [
        user_message("first"),
        AssistantMessage(content=calls, stop_reason="toolUse", provider="other"),
        *results,
        user_message("now you"),
    ]


@pytest.mark.parametrize("history", [_broken_history, _foreign_history])
@pytest.mark.parametrize(
    ("protocol", "spec", "mistral"),
    [
        ("openai", "openai/gpt-4o", False),
        ("anthropic", "anthropic/claude-sonnet-4-5", False),
        ("openai", "mistral/mistral-large-latest", True),
        ("openai", "vllm/mistralai/Devstral-Small-2507", True),
    ],
)
async def test_any_history_is_sendable_to_any_provider(
    history: Any, protocol: str, spec: str, mistral: bool
) -> None:
    h = Harness(protocol, "native")
    async with h.serve(Turn(text="accepted")):
        assert h.server is not None
        h.server.strict, h.server.mistral_ids = True, mistral
        model = _model(h.server, protocol, spec)
        run = await h.run(model=model, messages=history())
        assert run.final.text == "accepted", run.final.error_message
        calls, answers = _call_ids(h.server.requests[0], protocol)
    assert calls == answers and len(set(calls)) == len(calls) >= 2
    if mistral:
        assert all(re.fullmatch(r"[A-Za-z0-9]{9}", i) for i in calls)


def test_outgoing_ids_are_stable_and_collision_free() -> None:
    ids = OutgoingIds("anthropic")
    assert ids("a.b") == ids("a.b") != ids("a_b") == "a_b"
    assert ids("toolu_ok") == "toolu_ok"
    mistral = OutgoingIds("mistral")
    assert mistral("abcDEF123") == "abcDEF123" and len(mistral("call_123")) == 9
    many = {mistral(f"call_{i}") for i in range(5000)}
    assert len(many) == 5000
    assert len(OutgoingIds("openai")("y" * 90)) <= 40
    assert id_style(resolve_model("ollama/mistral-nemo", env={})) == "mistral"
    assert (
        id_style(resolve_model("anthropic/claude-x", env={"ANTHROPIC_API_KEY": "k"})) == "anthropic"
    )


async def test_mistral_thinking_signature_never_reaches_anthropic() -> None:
    from agent_core.messages import ThinkingContent

    history = [
        user_message("q"),
        AssistantMessage(
            content=[ThinkingContent(thinking="mull", signature="mistral"), TextContent(text="a")],
            provider="mistral",
            api="litellm",
            model="magistral-medium-latest",
        ),
        user_message("next"),
    ]
    h = Harness("anthropic", "native")
    async with h.serve(Turn(text="ok")):
        await h.run(messages=history)
        sent = h.server.requests[0]["messages"][1]["content"]  # type: ignore[union-attr]
    assert [b["type"] for b in sent] == ["text", "text"]


# ---------------------------------------------------------------------------- secrets


@BOTH
async def test_a_key_without_a_known_prefix_is_redacted(protocol: str) -> None:
    with FakeProviderServer([Turn(status=401)]) as server:
        model = _model(server, protocol, key=UNPREFIXED)
        agent = _agent(model)
        await agent.prompt("hi")
    message = agent.state.messages[-1].error_message or ""
    assert "Authentication failed" in message and UNPREFIXED not in message
    assert "***" in message


@BOTH
async def test_key_echoed_inside_a_stream_error_is_redacted(protocol: str) -> None:
    error = {"type": "invalid_request_error", "message": f"upstream refused key {UNPREFIXED}"}
    with FakeProviderServer([Turn(text="x", stream_error=error)]) as server:
        agent = _agent(_model(server, protocol, key=UNPREFIXED))
        await agent.prompt("hi")
    message = agent.state.messages[-1].error_message or ""
    assert "upstream refused key ***" in message and UNPREFIXED not in message


@BOTH
async def test_key_in_a_redirect_target_is_redacted(protocol: str) -> None:
    with FakeProviderServer(
        [Turn(redirect_to=f"https://gw.example/login?key={UNPREFIXED}")]
    ) as server:
        agent = _agent(_model(server, protocol, key=UNPREFIXED))
        await agent.prompt("hi")
    message = agent.state.messages[-1].error_message or ""
    assert "HTTP 302" in message and UNPREFIXED not in message


async def test_gateway_auth_header_value_is_redacted() -> None:
    secret = "gw-7f3e9a1c5b2d8e4f"
    with FakeProviderServer(
        [Turn(status=403, error_message=f"header api-key={secret} denied")]
    ) as server:
        model = _model(server, "openai").model_copy(
            update={"headers": {"api-key": f"Token {secret}"}}
        )
        agent = _agent(model)
        await agent.prompt("hi")
    message = agent.state.messages[-1].error_message or ""
    assert secret not in message and "denied" in message


async def test_a_key_read_from_a_file_with_its_newline_works() -> None:
    with FakeProviderServer([Turn(text="authorised")]) as server:
        agent = _agent(_model(server, "openai", key=f"{UNPREFIXED}\n"))
        await agent.prompt("hi")
        assert server.request_headers[0]["Authorization"] == f"Bearer {UNPREFIXED}"
    assert agent.state.messages[-1].text == "authorised"


@pytest.mark.parametrize(("bad", "what"), [("ab\ncd", "a line break"), ("abé€d", "a non-ASCII")])
@BOTH
async def test_a_key_no_header_can_carry_is_named_not_leaked(
    protocol: str, bad: str, what: str
) -> None:
    key = UNPREFIXED[:8] + bad + UNPREFIXED[8:]
    with FakeProviderServer([Turn(text="never")]) as server:
        agent = _agent(_model(server, protocol, key=key))
        await agent.prompt("hi")
        assert server.requests == []  # refused before sending
    message = agent.state.messages[-1].error_message or ""
    assert f"The API key for {protocol} contains {what}" in message and "--api-key" in message
    assert UNPREFIXED[:8] not in message and "dropped" not in message


def test_redact_finds_every_form_of_a_secret() -> None:
    from agent_core.providers.errors import redact

    key = "k3y!with/odd+chars\n"
    text = " ".join([key.strip(), json.dumps(key), repr(key.encode()), "k3y%21with%2Fodd%2Bchars"])
    cleaned = redact(text, (key,))
    assert "k3y" not in cleaned, cleaned
    assert redact("short ab", "ab") == "short ab"  # too short to scrub safely
