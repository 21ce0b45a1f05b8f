"""Conformance cases shared by the native and the litellm test modules.

Every case runs against the fake server in both wire protocols and asserts the same normalized
event trace and final message, so both transports are proven to behave alike.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from agent_core import (
    AbortSignal,
    AssistantMessage,
    LlmContext,
    Message,
    StreamOptions,
    user_message,
)
from agent_core.providers import (
    ResolvedModel,
    RetryConfig,
    is_context_overflow,
    make_stream_fn,
    resolve_model,
)
from agent_core.providers.models import compute_cost
from agent_core.stream import RetryNotice, ToolSpec
from tests.fakes import FakeProviderServer, ToolCallSpec, Turn, UsageSpec

SECRET = "sk-test-SECRET-0123456789abcdef"
PROTOCOLS = ("openai", "anthropic")
NATIVE_PROTOCOLS = (*PROTOCOLS, "responses")
"""The native transports also speak OpenAI's Responses API (litellm is not tested on it)."""
SPECS = {
    "openai": "openai/gpt-4o",
    "anthropic": "anthropic/claude-sonnet-4-5",
    "responses": "openai/gpt-4o",
}
KEY_ENVS = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "responses": "OPENAI_API_KEY",
}
PROVIDERS = {"openai": "openai", "anthropic": "anthropic", "responses": "openai"}
TOOLS = [
    ToolSpec(
        "bash", "Run a command", {"type": "object", "properties": {"command": {"type": "string"}}}
    ),
    ToolSpec("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}),
]


@dataclass
class Run:
    """What one stream call produced."""

    events: list[Any]
    final: AssistantMessage
    notices: list[RetryNotice] = field(default_factory=list)
    retry_ends: list[tuple[bool, int, str | None]] = field(default_factory=list)
    elapsed: float = 0.0

    @property
    def trace(self) -> list[str]:
        """Event types with consecutive duplicates collapsed (chunking-independent)."""
        out: list[str] = []
        for event in self.events:
            if not out or out[-1] != event.type:
                out.append(event.type)
        return out


@dataclass
class Harness:
    """Runs a script through one protocol and one transport."""

    protocol: str
    transport: str
    server: FakeProviderServer | None = None

    def model(self, **overrides: Any) -> ResolvedModel:
        assert self.server is not None
        base = (
            self.server.anthropic_base_url
            if self.protocol == "anthropic"
            else self.server.openai_base_url
        )
        env = {KEY_ENVS[self.protocol]: SECRET}
        if self.protocol == "responses":
            overrides.setdefault("openai_api", "responses")
        return resolve_model(
            SPECS[self.protocol], api_base=base, env=env, transport=self.transport, **overrides
        )

    @asynccontextmanager
    async def serve(self, *turns: Turn) -> AsyncIterator[Harness]:
        with FakeProviderServer(list(turns)) as server:
            self.server = server
            yield self

    async def run(
        self,
        *,
        timeout_s: float | None = 10.0,
        abort_when: Callable[[Any], bool] | None = None,
        thinking: str = "off",
        messages: list[Message] | None = None,
        model: ResolvedModel | None = None,
        **stream_options: Any,
    ) -> Run:
        """One call; ``stream_options`` go to ``make_stream_fn`` (idle_timeout_s...)."""
        model = model or self.model()
        fn = make_stream_fn(
            model,
            retry=RetryConfig(max_retries=3, base_delay_s=0.01),
            timeout_s=timeout_s,
            **stream_options,
        )
        signal = AbortSignal()
        run = Run(events=[], final=AssistantMessage())
        options = StreamOptions(
            model=model.id,
            cancel=signal,
            thinking=thinking,
            on_retry=run.notices.append,
            on_retry_end=lambda ok, n, err: run.retry_ends.append((ok, n, err)),
        )
        context = LlmContext(
            system_prompt="You are a test.",
            messages=messages or [user_message("hi")],
            tools=TOOLS,
        )
        start = time.perf_counter()
        try:
            async for item in fn(context, options):
                if isinstance(item, AssistantMessage):
                    run.final = item
                    break
                run.events.append(item)
                if abort_when is not None and abort_when(item) and not signal.aborted:
                    start = time.perf_counter()
                    signal.abort()
            run.elapsed = time.perf_counter() - start
        finally:
            await fn.aclose()  # type: ignore[attr-defined]  # no sockets left to the next test
        expected_api = "litellm" if self.transport == "litellm" else model.api
        assert (
            run.final.api == expected_api and model.api == expected_api
        )  # the path under test ran
        return run


Case = Callable[[Harness], Awaitable[None]]


async def case_text_streaming(h: Harness) -> None:
    text = "Hello, world! Streaming works fine."
    async with h.serve(Turn(text=text, chunk_size=5)):
        run = await h.run()
    assert run.final.stop_reason == "stop", run.final.error_message
    assert run.final.text == text
    assert run.trace == ["text_start", "text_delta", "text_end"]
    assert sum(1 for e in run.events if e.type == "text_delta") >= 5
    assert run.final.provider == PROVIDERS[h.protocol] and run.final.model


async def case_split_tool_args(h: Harness) -> None:
    calls = [
        ToolCallSpec("bash", {"command": "ls -la"}, id="call_a"),
        ToolCallSpec("read", {"path": "a.txt"}, id="call_b"),
    ]
    async with h.serve(Turn(text="Let me look.", tool_calls=calls, chunk_size=3)):
        run = await h.run()
    assert run.final.stop_reason == "toolUse"
    assert [(c.id, c.name, c.arguments) for c in run.final.tool_calls] == [
        ("call_a", "bash", {"command": "ls -la"}),
        ("call_b", "read", {"path": "a.txt"}),
    ]
    assert run.final.text == "Let me look."
    assert sum(1 for e in run.events if e.type == "toolcall_delta") > 4
    assert (
        run.trace
        == ["text_start", "text_delta", "text_end"]
        + ["toolcall_start", "toolcall_delta", "toolcall_end"] * 2
    )


async def case_unicode_line_separators_are_not_sse_line_breaks(h: Harness) -> None:
    # U+2028/U+2029/U+0085 are legal unescaped inside JSON strings; the fake sends raw UTF-8.
    text = "line one\u2028line two\u2029para\u0085next \u00e9\U0001f600"
    args = {"command": "printf 'a\u2028b\u0085c'"}
    calls = [ToolCallSpec("bash", args, id="call_u")]
    async with h.serve(Turn(text=text, tool_calls=calls, chunk_size=4)):
        run = await h.run()
    assert run.final.stop_reason == "toolUse", run.final.error_message
    assert run.final.text == text
    assert [c.arguments for c in run.final.tool_calls] == [args]


async def case_invalid_tool_json_kept(h: Harness) -> None:
    async with h.serve(Turn(tool_calls=[ToolCallSpec("bash", '{"command": "ls', id="call_x")])):
        run = await h.run()
    (call,) = run.final.tool_calls
    assert call.arguments == {} and call.raw_arguments == '{"command": "ls'


async def case_thinking(h: Harness) -> None:
    async with h.serve(
        Turn(thinking="Let me think about this carefully.", text="Answer.", chunk_size=6)
    ):
        run = await h.run()
    assert run.final.stop_reason == "stop"
    thinking, text = run.final.content
    assert thinking.type == "thinking" and thinking.thinking == "Let me think about this carefully."
    assert text.type == "text" and text.text == "Answer."
    assert run.trace == [
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
    ]
    if h.protocol == "anthropic":
        assert thinking.signature == "sig-fake"


async def case_usage_and_cost(h: Harness) -> None:
    write = 300 if h.protocol == "anthropic" else 0
    async with h.serve(
        Turn(text="ok", usage=UsageSpec(input=1000, output=500, cache_read=200, cache_write=write))
    ):
        run = await h.run()
    usage = run.final.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (
        1000,
        500,
        200,
        write,
    )
    assert usage.total_tokens == 1700 + write
    expected = compute_cost(h.model(), usage)
    assert usage.cost.total > 0 and abs(usage.cost.total - expected.total) < 1e-12


async def case_500_then_success(h: Harness) -> None:
    async with h.serve(Turn(status=500), Turn(text="recovered")):
        run = await h.run()
        assert len(h.server.requests) == 2  # type: ignore[union-attr]
    assert run.final.stop_reason == "stop" and run.final.text == "recovered"
    assert [n.attempt for n in run.notices] == [1] and run.notices[0].max_attempts == 3
    assert run.retry_ends == [(True, 1, None)]


async def case_retries_exhausted(h: Harness) -> None:
    async with h.serve(*[Turn(status=503)] * 4):
        run = await h.run()
    assert run.final.stop_reason == "error"
    assert "503" in (run.final.error_message or "") and "after 3 retries" in (
        run.final.error_message or ""
    )
    assert len(run.notices) == 3 and run.retry_ends[-1][0] is False


async def case_429_retry_after(h: Harness) -> None:
    async with h.serve(Turn(status=429, retry_after=0.4), Turn(text="ok")):
        run = await h.run()
    assert run.final.text == "ok"
    assert run.notices[0].delay_s == 0.4
    assert run.elapsed >= 0.4


async def case_401_names_key(h: Harness) -> None:
    async with h.serve(Turn(status=401)):
        run = await h.run()
        assert len(h.server.requests) == 1  # type: ignore[union-attr]  # never retried
    message = run.final.error_message or ""
    assert run.final.stop_reason == "error"
    assert KEY_ENVS[h.protocol] in message and "401" in message
    assert SECRET not in message and "\n" not in message
    assert SECRET not in repr(h.model()) and SECRET not in h.model().model_dump_json()


async def case_malformed_sse(h: Harness) -> None:
    async with h.serve(Turn(text="hello there", malformed_sse_line="data: {not json at all")):
        run = await h.run()
    assert run.final.stop_reason == "error"
    message = run.final.error_message or ""
    assert message and "\n" not in message
    if h.transport == "native":
        assert "Malformed SSE" in message


async def case_disconnect_keeps_partial(h: Harness) -> None:
    text = "partial text that goes on and on"
    async with h.serve(Turn(text=text, chunk_size=4, disconnect_after_chunks=5)):
        run = await h.run()
    assert run.final.stop_reason == "error"
    assert run.final.error_message
    assert run.final.text and text.startswith(run.final.text) and run.final.text != text


GOOGLE_KEY = "AIzaSyA-fake-google-key-0123456789abcdef"


async def case_stream_error_is_one_line_and_key_free(h: Harness) -> None:
    error = {
        "type": "invalid_request_error",
        "message": f"bad request\nfrom key {SECRET}\nand {GOOGLE_KEY}",
    }
    async with h.serve(Turn(text="unused", stream_error=error)):
        run = await h.run()
        assert len(h.server.requests) == 1  # type: ignore[union-attr]  # not retryable
    message = run.final.error_message or ""
    assert run.final.stop_reason == "error" and "bad request" in message
    assert "\n" not in message and SECRET not in message and GOOGLE_KEY not in message
    assert not run.retry_ends


async def case_stream_error_context_overflow(h: Harness) -> None:
    error = {
        "type": "invalid_request_error",
        "message": "prompt is too long: 250000 tokens > 200000 maximum",
    }
    async with h.serve(Turn(text="unused", stream_error=error)):
        run = await h.run()
    assert run.final.stop_reason == "error"
    assert is_context_overflow(run.final), run.final.error_message


async def case_stream_overloaded_before_content_is_retried(h: Harness) -> None:
    error = {"type": "overloaded_error", "message": "Overloaded"}
    async with h.serve(Turn(text="unused", stream_error=error), Turn(text="recovered")):
        run = await h.run()
        assert len(h.server.requests) == 2  # type: ignore[union-attr]
    assert run.final.stop_reason == "stop" and run.final.text == "recovered"
    assert run.trace == ["text_start", "text_delta", "text_end"]  # nothing from the failed attempt
    assert [n.attempt for n in run.notices] == [1] and run.retry_ends == [(True, 1, None)]


async def case_stream_overloaded_after_content_is_not_retried(h: Harness) -> None:
    error = {"type": "overloaded_error", "message": "Overloaded"}
    async with h.serve(
        Turn(text="partial", chunk_size=2, stream_error=error, stream_error_after_chunks=4),
        Turn(text="not used"),
    ):
        run = await h.run()
        assert len(h.server.requests) == 1  # type: ignore[union-attr]
    assert run.final.stop_reason == "error" and "Overloaded" in (run.final.error_message or "")
    assert run.final.text and "partial".startswith(run.final.text)
    assert not run.notices


async def case_abort_slow_stream(h: Harness) -> None:
    async with h.serve(Turn(text="x" * 200, chunk_size=1, chunk_delay_s=0.05)):
        run = await h.run(abort_when=lambda e: e.type == "text_delta")
    assert run.final.stop_reason == "aborted"
    assert run.elapsed < 3  # the stream would take 10 s: the abort did not wait for it
    assert run.final.text.startswith("x")


async def case_timeout(h: Harness) -> None:
    # A server that never answers: each attempt times out, and is retried like a 5xx.
    async with h.serve(*[Turn(hang=True) for _ in range(4)]):
        start = time.perf_counter()
        run = await h.run(timeout_s=0.5)
        elapsed = time.perf_counter() - start
        assert len(h.server.requests) == 4  # type: ignore[union-attr]
    assert run.final.stop_reason == "error"
    assert "timed out" in (run.final.error_message or "").lower()
    assert "gave up after 3 retries" in (run.final.error_message or "")
    assert [n.attempt for n in run.notices] == [1, 2, 3]
    assert elapsed < 8


async def case_script_exhausted_is_loud(h: Harness) -> None:
    async with h.serve():
        run = await h.run()
    assert run.final.stop_reason == "error" and "script exhausted" in (
        run.final.error_message or ""
    )


CASES: dict[str, Case] = {
    name.removeprefix("case_"): fn
    for name, fn in dict(globals()).items()
    if name.startswith("case_")
}


def run_case(name: str, protocol: str, transport: str) -> Awaitable[None]:
    """The coroutine for one (case, protocol, transport) combination."""
    return CASES[name](Harness(protocol, transport))


__all__ = ["CASES", "NATIVE_PROTOCOLS", "PROTOCOLS", "SECRET", "Harness", "run_case", "asyncio"]
