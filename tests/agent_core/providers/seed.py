"""The SPEC §1 seed scenario end to end: Agent + real transport + fake server + stub tools."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agent_core import AbortSignal, Agent, ToolBase, ToolResult
from agent_core.providers import RetryConfig, make_stream_fn, resolve_model
from tests.fakes import SEED_FINAL_TEXT, FakeProviderServer, seed_script

FILES = {
    "package.json": '{"name": "hello", "main": "hello.mjs"}',
    "hello.mjs": 'console.log("hello")',
}


class BashArgs(BaseModel):
    command: str


class ReadArgs(BaseModel):
    path: str


class StubBash(ToolBase):
    name = "bash"
    description = "Run a shell command"
    parameters = BashArgs

    async def execute(
        self, tool_call_id: str, args: Any, cancel: AbortSignal, on_update: Any = None
    ) -> ToolResult:
        return ToolResult.of_text("package.json\nhello.mjs")


class StubRead(ToolBase):
    name = "read"
    description = "Read a file"
    parameters = ReadArgs

    async def execute(
        self, tool_call_id: str, args: Any, cancel: AbortSignal, on_update: Any = None
    ) -> ToolResult:
        return ToolResult.of_text(FILES[args.path])


def _tool_results_in(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(call id, content text) of every tool result in a request body, either protocol."""
    out = []
    for item in body.get("input") or []:  # the Responses API
        if item.get("type") == "function_call_output":
            out.append((item["call_id"], item["output"]))
    for msg in body.get("messages") or []:
        if msg["role"] == "tool":
            out.append((msg["tool_call_id"], msg["content"]))
        elif msg["role"] == "user" and isinstance(msg["content"], list):
            for block in msg["content"]:
                if block.get("type") == "tool_result":
                    content = block["content"]  # litellm sends a string, we send blocks
                    out.append(
                        (
                            block["tool_use_id"],
                            content if isinstance(content, str) else content[0]["text"],
                        )
                    )
    return out


async def run_seed(protocol: str, transport: str) -> None:
    """Run the seed prompt and check events, answer and what the server was sent."""
    with FakeProviderServer(seed_script()) as server:
        base = server.anthropic_base_url if protocol == "anthropic" else server.openai_base_url
        spec = "anthropic/claude-sonnet-4-5" if protocol == "anthropic" else "openai/gpt-4o"
        api = "responses" if protocol == "responses" else "auto"
        model = resolve_model(
            spec, api_base=base, api_key="sk-test", transport=transport, openai_api=api
        )
        agent = Agent(
            make_stream_fn(model, retry=RetryConfig(base_delay_s=0.01)),
            model=model.id,
            system_prompt="You are pi.",
            tools=[StubBash(), StubRead()],
        )
        events: list[Any] = []
        agent.subscribe(events.append)
        try:
            await agent.prompt(
                "List files in the current directory, then tell me what this project is."
            )
        finally:
            await agent.stream_fn.aclose()  # type: ignore[attr-defined]
        requests = server.requests
    types = [e.type for e in events]
    assert types.count("turn_start") == 4 and types.count("turn_end") == 4
    assert [len(e.tool_results) for e in events if e.type == "turn_end"] == [1, 1, 1, 0]
    assert types[0] == "agent_start" and types[-1] == "agent_end"
    final = agent.state.messages[-1]
    assert (
        final.role == "assistant" and final.text == SEED_FINAL_TEXT and final.stop_reason == "stop"
    )
    assert len(requests) == 4
    assert _tool_results_in(requests[3]) == [
        ("call_1", "package.json\nhello.mjs"),
        ("call_2", FILES["package.json"]),
        ("call_3", FILES["hello.mjs"]),
    ]
    assert sum(m.usage.cost.total for m in agent.state.messages if m.role == "assistant") > 0
