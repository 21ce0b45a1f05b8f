"""Model resolution, models.json, metadata, history conversion, retry parsing, import budget."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent_core import AssistantMessage, ToolCall, ToolResultMessage, user_message
from agent_core.messages import TextContent
from agent_core.providers import (
    ModelConfigError,
    default_model_spec,
    is_context_overflow,
    list_models,
    resolve_model,
)
from agent_core.providers._convert import NO_RESULT, anthropic_messages, openai_messages
from agent_core.providers.retry import parse_retry_after
from agent_core.stream import LlmContext


def test_native_providers_and_metadata() -> None:
    model = resolve_model(
        "anthropic/claude-sonnet-4-5", env={"ANTHROPIC_API_KEY": "sk-ant-xyz123456"}
    )
    assert model.api == "anthropic-messages" and model.base_url == "https://api.anthropic.com"
    assert model.context_window == 200000 and model.input_cost == pytest.approx(3.0)
    assert model.cache_read_cost == pytest.approx(0.3) and model.supports_reasoning
    assert "sk-ant-xyz123456" not in repr(model) and "api_key" not in model.model_dump()
    ollama = resolve_model("ollama/qwen3", env={})
    assert ollama.api == "openai-completions" and ollama.base_url == "http://127.0.0.1:11434/v1"
    assert ollama.context_window == 128000 and not ollama.known
    openai = resolve_model(
        "openai/gpt-4o", env={"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://x/v1"}
    )
    assert openai.base_url == "http://x/v1"
    assert resolve_model("gemini/gemini-2.5-flash", env={}).api == "litellm"
    assert resolve_model("foo/bar", api_base="http://h:1/v1", env={}).api == "openai-completions"
    assert (
        resolve_model("openai/gpt-4o", env={"OPENAI_API_KEY": "k", "PI_TRANSPORT": "litellm"}).api
        == "litellm"
    )
    assert resolve_model("gpt-4o", env={"OPENAI_API_KEY": "k"}).provider == "openai"


def test_missing_key_and_bad_transport_are_friendly() -> None:
    with pytest.raises(ModelConfigError, match="set ANTHROPIC_API_KEY"):
        resolve_model("anthropic/claude-sonnet-4-5", env={})
    with pytest.raises(ModelConfigError, match="transport"):
        resolve_model("openai/gpt-4o", env={"OPENAI_API_KEY": "k"}, transport="bogus")
    with pytest.raises(ModelConfigError, match="no native transport"):
        resolve_model("gemini/gemini-2.5-flash", env={}, transport="native")


def test_models_json_custom_provider(tmp_path: Path) -> None:
    path = tmp_path / "models.json"
    path.write_text(
        json.dumps(
            {
                "providers": {
                    "myprov": {
                        "baseUrl": "http://127.0.0.1:9/v1",
                        "api": "anthropic-messages",
                        "apiKeyEnv": "MYPROV_KEY",
                        "models": [
                            {
                                "id": "m1",
                                "contextWindow": 1000,
                                "maxTokens": 100,
                                "cost": {
                                    "input": 1,
                                    "output": 2,
                                    "cacheRead": 0.1,
                                    "cacheWrite": 1.25,
                                },
                            }
                        ],
                    }
                }
            }
        )
    )
    model = resolve_model("myprov/m1", models_file=path, env={"MYPROV_KEY": "secret-value"})
    assert (model.api, model.context_window, model.max_output_tokens, model.output_cost) == (
        "anthropic-messages",
        1000,
        100,
        2.0,
    )
    assert model.api_key == "secret-value" and model.api_key_env == "MYPROV_KEY"
    assert [r.id for r in list_models("myprov", models_file=path, env={})] == ["myprov/m1"]
    path.write_text('{"providers": {"x": {"api": "openai-completions"}}}')
    with pytest.raises(ModelConfigError, match=r"models\.json.*baseUrl"):
        resolve_model("x/m", models_file=path, env={})
    path.write_text("{oops")
    with pytest.raises(ModelConfigError, match="invalid JSON"):
        resolve_model("openai/gpt-4o", models_file=path, env={"OPENAI_API_KEY": "k"})


def test_default_model_and_list() -> None:
    assert default_model_spec({}) is None
    assert default_model_spec({"OPENAI_API_KEY": "k"}) == "openai/gpt-5"
    assert default_model_spec({"OPENAI_API_KEY": "k"}, settings_model="x/y") == "x/y"
    assert default_model_spec({"PI_MODEL": "a/b"}, settings_model="x/y") == "a/b"
    rows = list_models("claude-sonnet-4-5", env={})
    assert any(
        r.id == "anthropic/claude-sonnet-4-5" and r.api == "anthropic-messages" for r in rows
    )


def test_orphan_tool_calls_and_failed_messages() -> None:
    calls = [
        ToolCall(id="c1", name="bash", arguments={"command": "ls"}),
        ToolCall(id="c2", name="read"),
    ]
    history = [
        user_message("hi"),
        AssistantMessage(content=[TextContent(text="run"), *calls], stop_reason="toolUse"),
        ToolResultMessage(tool_call_id="c1", tool_name="bash", content="ok"),
        user_message("stop"),  # c2 never got a result
        AssistantMessage(content=[ToolCall(id="c3", name="bash")], stop_reason="aborted"),
        ToolResultMessage(tool_call_id="zzz", tool_name="bash", content="stray"),
        user_message("again"),
    ]
    context = LlmContext(system_prompt="sys", messages=history)
    wire = openai_messages(context)
    tool_msgs = [(m["tool_call_id"], m["content"]) for m in wire if m["role"] == "tool"]
    assert tool_msgs == [("c1", "ok"), ("c2", NO_RESULT)]
    assert all("c3" not in json.dumps(m) for m in wire)
    system, messages = anthropic_messages(context)
    assert system[-1]["cache_control"] == {"type": "ephemeral"}
    assert messages[-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]


def test_helpers() -> None:
    assert parse_retry_after({"Retry-After": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({}) is None
    msg = AssistantMessage(stop_reason="error", error_message="Context overflow: too long")
    assert is_context_overflow(msg) and not is_context_overflow(AssistantMessage())


def test_native_import_budget() -> None:
    """The native transports load no heavy SDK (the time itself is bench/bench_providers.py's)."""
    code = (
        "import sys; import agent_core.providers.openai_compat, agent_core.providers.anthropic; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'litellm', 'openai', 'rich', "
        "'anthropic', 'textual', 'typer', 'h2'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split("\n")
    assert out[0] == "[]"


def test_a_bare_unknown_model_name_gets_concrete_suggestions(tmp_path) -> None:
    with pytest.raises(ModelConfigError) as info:
        resolve_model("bogus", models_file=tmp_path / "none.json", env={})
    message = str(info.value)
    assert "anthropic/bogus" in message and "openai/bogus" in message and "{" not in message
