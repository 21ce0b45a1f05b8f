"""What a provider may send besides a clean stream, over real HTTP: each a clear outcome.

Refusals, cut answers, content parts, ``<think>`` tags, stalls (before the first byte and
between bytes, with and without ``: ping``), resets, redirects, JSON or HTML instead of a
stream, odd usage placement.
"""

from __future__ import annotations

import time

import pytest

from agent_core import ThinkingContent
from tests.agent_core.providers.conformance import PROTOCOLS, Harness
from tests.fakes import Turn, UsageSpec

BOTH = pytest.mark.parametrize("protocol", PROTOCOLS)


def thinking_of(message: object) -> str:
    content = getattr(message, "content", [])
    return "".join(b.thinking for b in content if isinstance(b, ThinkingContent))


@BOTH
async def test_refusal_is_a_refusal(protocol: str) -> None:
    h = Harness(protocol, "native")
    turn = Turn(
        refusal="I can't help with that." if protocol == "openai" else None,
        refusal_category="cyber",
        refusal_explanation="Refused under the cyber policy." if protocol == "anthropic" else None,
        chunk_size=4,
    )
    async with h.serve(turn):
        run = await h.run()
    assert run.final.stop_reason == "refusal"
    expected = (
        "I can't help with that." if protocol == "openai" else "Refused under the cyber policy."
    )
    assert run.final.refusal == expected


async def test_anthropic_refusal_without_explanation_names_the_category() -> None:
    h = Harness("anthropic", "native")
    async with h.serve(Turn(text="Partial answ", refusal_category="bio")):
        run = await h.run()
    assert run.final.stop_reason == "refusal" and run.final.refusal == "policy category: bio"
    assert run.final.text == "Partial answ"  # what had streamed is kept


async def test_content_filter_is_a_refusal_naming_the_categories() -> None:
    chunk = (
        'data: {"choices":[{"index":0,"delta":{},"finish_reason":"content_filter",'
        '"content_filter_results":{"hate":{"filtered":false},"violence":{"filtered":true,'
        '"severity":"high"}}}]}\n\ndata: [DONE]\n\n'
    )
    h = Harness("openai", "native")
    async with h.serve(Turn(raw=[chunk])):
        run = await h.run()
    assert run.final.stop_reason == "refusal" and run.final.refusal == "content filter: violence"


@BOTH
async def test_cut_at_the_token_limit(protocol: str) -> None:
    h = Harness(protocol, "native")
    async with h.serve(Turn(text="The answer is long and", stop_reason="length")):
        run = await h.run()
    assert run.final.stop_reason == "length"
    assert run.final.text == "The answer is long and"


@pytest.mark.parametrize("chunk_size", [1, 3, 0])
async def test_mistral_content_parts(chunk_size: int) -> None:
    h = Harness("openai", "native")
    turn = Turn(thinking="Let me think.", text="Four.", content_parts=True, chunk_size=chunk_size)
    async with h.serve(turn):
        run = await h.run()
    assert thinking_of(run.final) == "Let me think." and run.final.text == "Four."
    assert [b.type for b in run.final.content] == ["thinking", "text"]


@pytest.mark.parametrize("chunk_size", [1, 2, 5, 0])
async def test_think_tags_become_thinking(chunk_size: int) -> None:
    h = Harness("openai", "native")
    async with h.serve(
        Turn(thinking="step one", text="Done.", think_tags=True, chunk_size=chunk_size)
    ):
        run = await h.run()
    assert thinking_of(run.final) == "\nstep one\n"
    assert run.final.text == "Done."


async def test_text_that_only_looks_like_a_tag_is_kept() -> None:
    h = Harness("openai", "native")
    async with h.serve(Turn(text="<thin ice> is fine", chunk_size=1)):
        run = await h.run()
    assert run.final.text == "<thin ice> is fine" and not thinking_of(run.final)


async def test_unclosed_think_block_cut_at_the_limit_stays_thinking() -> None:
    raw = [
        'data: {"choices":[{"index":0,"delta":{"content":"<think>never"}}]}\n\n',
        'data: {"choices":[{"index":0,"delta":{"content":" ends </th"},"finish_reason":"length"}]}\n\n',
        "data: [DONE]\n\n",
    ]
    h = Harness("openai", "native")
    async with h.serve(Turn(raw=raw)):
        run = await h.run()
    assert run.final.stop_reason == "length"
    assert thinking_of(run.final) == "never ends </th" and run.final.text == ""


@pytest.mark.parametrize("mode", ["separate", "finish", "every", "none"])
async def test_usage_wherever_it_comes(mode: str) -> None:
    h = Harness("openai", "native")
    async with h.serve(Turn(text="ok", usage=UsageSpec(input=30, output=7), usage_mode=mode)):
        run = await h.run()
    assert run.final.stop_reason == "stop"
    expected = (0, 0) if mode == "none" else (30, 7)
    assert (run.final.usage.input, run.final.usage.output) == expected


# ---------------------------------------------------------------------------- stalls


@BOTH
async def test_stall_before_any_content_is_retried(protocol: str) -> None:
    h = Harness(protocol, "native")
    async with h.serve(Turn(text="never", stall_after_chunks=1), Turn(text="second try")):
        run = await h.run(timeout_s=None, idle_timeout_s=0.4)
    assert run.final.stop_reason == "stop" and run.final.text == "second try"
    assert len(run.notices) == 1 and "stalled" in run.notices[0].error_message
    assert "idle timeout" in run.notices[0].error_message


@BOTH
async def test_stall_mid_answer_ends_it_with_the_text_kept(protocol: str) -> None:
    h = Harness(protocol, "native")
    stall_at = 3 if protocol == "openai" else 4
    async with h.serve(Turn(text="abcdefgh", chunk_size=2, stall_after_chunks=stall_at)):
        start = time.monotonic()
        run = await h.run(timeout_s=None, idle_timeout_s=0.4)
    assert run.final.stop_reason == "error"
    assert "stalled: no data for 0.4s" in (run.final.error_message or "")
    assert run.final.text and "abcdefgh".startswith(run.final.text)
    assert time.monotonic() - start < 5


@BOTH
async def test_pings_keep_a_slow_stream_alive(protocol: str) -> None:
    h = Harness(protocol, "native")
    # A stall well past the idle limit, pings ten times as often as the limit (a loaded machine
    # may delay one ping by a few hundred milliseconds, never most of a second).
    turn = Turn(text="abcdef", chunk_size=2, stall_after_chunks=2, stall_s=2.5, ping_interval_s=0.1)
    async with h.serve(turn):
        run = await h.run(timeout_s=None, idle_timeout_s=1.0)
    assert run.final.stop_reason == "stop" and run.final.text == "abcdef"
    assert not run.notices


async def test_first_byte_timeout_applies_to_remote_servers_only() -> None:
    h = Harness("openai", "native")
    slow = Turn(text="slow", first_byte_delay_s=1.5)
    async with h.serve(slow, slow, Turn(text="quick")):
        # A loopback server is local: no first-byte limit, and the idle limit does not count
        # before the first byte (a CPU model may think for minutes).
        local = await h.run(timeout_s=None, idle_timeout_s=0.3)
        assert local.final.text == "slow" and not local.notices
        # Asked for one (as any remote server gets by default), it applies and is retried.
        strict = await h.run(timeout_s=None, first_byte_timeout_s=0.5)
    assert strict.final.stop_reason == "stop" and strict.final.text == "quick"
    assert len(strict.notices) == 1 and "first-byte timeout" in strict.notices[0].error_message


def test_remote_default_first_byte_timeout() -> None:
    from agent_core.providers import make_stream_fn, resolve_model

    remote = resolve_model("openai/gpt-4o", env={"OPENAI_API_KEY": "sk-x"})
    local = resolve_model("ollama/qwen3", env={})
    assert make_stream_fn(remote).config.timeouts.first_byte_s == 600.0  # type: ignore[attr-defined]
    assert make_stream_fn(local).config.timeouts.first_byte_s is None  # type: ignore[attr-defined]
    assert make_stream_fn(local).config.timeouts.idle_s == 120.0  # type: ignore[attr-defined]
    fn = make_stream_fn(local, first_byte_timeout_s=30, idle_timeout_s=0)
    assert fn.config.timeouts.first_byte_s == 30 and fn.config.timeouts.idle_s is None  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------- not a stream


@BOTH
async def test_reset_before_answering_is_retried(protocol: str) -> None:
    h = Harness(protocol, "native")
    async with h.serve(Turn(text="x", reset_after_chunks=0), Turn(text="fine")):
        run = await h.run()
    assert run.final.text == "fine"
    assert "closed the connection before answering" in run.notices[0].error_message


@BOTH
async def test_reset_mid_stream_says_dropped(protocol: str) -> None:
    h = Harness(protocol, "native")
    async with h.serve(Turn(text="abcdefgh", chunk_size=1, reset_after_chunks=4)):
        run = await h.run()
    assert run.final.stop_reason == "error"
    assert "dropped mid-stream" in (run.final.error_message or "")


@BOTH
async def test_redirect_is_reported_with_its_target(protocol: str) -> None:
    h = Harness(protocol, "native")
    async with h.serve(Turn(redirect_to="https://login.example.com/sso?next=/v1")):
        run = await h.run()
    message = run.final.error_message or ""
    assert run.final.stop_reason == "error" and "HTTP 302" in message
    assert "https://login.example.com/sso" in message and "check the base URL" in message
    assert "closed before" not in message and not run.notices


@BOTH
async def test_html_page_instead_of_a_stream(protocol: str) -> None:
    h = Harness(protocol, "native")
    page = "<html><head><title>Sign in</title></head><body>Corporate proxy</body></html>"
    async with h.serve(Turn(raw=[page], content_type="text/html; charset=utf-8")):
        run = await h.run()
    message = run.final.error_message or ""
    assert "answered HTTP 200 text/html instead of an event stream" in message
    assert "Corporate proxy" in message


@BOTH
async def test_json_error_with_status_200(protocol: str) -> None:
    h = Harness(protocol, "native")
    body = {"error": {"message": "model not loaded", "type": "invalid_request_error"}}
    async with h.serve(Turn(json_body=body)):
        run = await h.run()
    assert run.final.stop_reason == "error" and "model not loaded" in (
        run.final.error_message or ""
    )


@BOTH
async def test_json_that_is_no_answer_is_reported(protocol: str) -> None:
    h = Harness(protocol, "native")
    async with h.serve(Turn(json_body={"status": "ok", "version": "1.2"})):
        run = await h.run()
    message = run.final.error_message or ""
    assert "answered HTTP 200 application/json instead of an event stream" in message
    assert '"version": "1.2"' in message


async def test_whole_chat_completion_is_used_as_the_answer() -> None:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Hello whole",
                    "reasoning_content": "hm",
                    "tool_calls": [
                        {
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "bash", "arguments": '{"command": "ls"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3},
    }
    h = Harness("openai", "native")
    async with h.serve(Turn(json_body=body)):
        run = await h.run()
    assert run.final.stop_reason == "toolUse" and run.final.text == "Hello whole"
    assert thinking_of(run.final) == "hm"
    assert run.final.tool_calls[0].arguments == {"command": "ls"}
    assert run.final.usage.input == 12


async def test_whole_anthropic_message_is_used_as_the_answer() -> None:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "plan", "signature": "sig"},
            {"type": "text", "text": "Whole answer"},
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 5, "output_tokens": 9},
    }
    h = Harness("anthropic", "native")
    async with h.serve(Turn(json_body=body)):
        run = await h.run()
    assert run.final.stop_reason == "toolUse" and run.final.text == "Whole answer"
    assert run.final.content[0].signature == "sig"  # type: ignore[union-attr]
    assert run.final.tool_calls[0].arguments == {"path": "a"}
    assert (run.final.usage.input, run.final.usage.output) == (5, 9)


async def test_stream_with_a_wrong_content_type_is_still_read() -> None:
    h = Harness("openai", "native")
    async with h.serve(Turn(text="labelled badly", content_type="text/plain")):
        run = await h.run()
    assert run.final.stop_reason == "stop" and run.final.text == "labelled badly"


@BOTH
async def test_litellm_path_has_the_same_stall_watch(protocol: str) -> None:
    h = Harness(protocol, "litellm")
    async with h.serve(Turn(text="never", stall_after_chunks=1), Turn(text="second try")):
        run = await h.run(timeout_s=None, idle_timeout_s=0.5)
    assert run.final.text == "second try", run.final.error_message
    assert run.notices and "stalled" in run.notices[0].error_message


def _chunk(delta: dict, finish: str | None = None) -> str:
    import json

    data = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(data)}\n\n"


async def test_interleaved_pieces_of_two_tool_calls() -> None:
    def call(index: int, piece: str, **head: str) -> str:
        function = {"arguments": piece, **({"name": head.pop("name")} if "name" in head else {})}
        return _chunk({"tool_calls": [{"index": index, **head, "function": function}]})

    raw = [
        call(0, "", id="c_a", type="function", name="bash"),
        call(0, '{"comm'),
        call(1, "", id="c_b", type="function", name="read"),
        call(1, '{"path": '),
        call(0, 'and": "ls"}'),
        call(1, '"x"}'),
        _chunk({}, "tool_calls"),
        "data: [DONE]\n\n",
    ]
    h = Harness("openai", "native")
    async with h.serve(Turn(raw=raw)):
        run = await h.run()
    assert [(c.id, c.name, c.arguments) for c in run.final.tool_calls] == [
        ("c_a", "bash", {"command": "ls"}),
        ("c_b", "read", {"path": "x"}),
    ]


async def test_whole_calls_without_index_or_id_each_stay_a_call() -> None:
    # Ollama-style: every call complete in one chunk, no index, no id.
    raw = [
        _chunk({"tool_calls": [{"function": {"name": "bash", "arguments": {"command": "ls"}}}]}),
        _chunk({"tool_calls": [{"function": {"name": "read", "arguments": '{"path": "a"}'}}]}),
        _chunk({}, "tool_calls"),
        "data: [DONE]\n\n",
    ]
    h = Harness("openai", "native")
    async with h.serve(Turn(raw=raw)):
        run = await h.run()
    calls = run.final.tool_calls
    assert [(c.name, c.arguments) for c in calls] == [
        ("bash", {"command": "ls"}),
        ("read", {"path": "a"}),
    ]
    assert len({c.id for c in calls}) == 2 and all(c.id.startswith("call_") for c in calls)


async def test_a_server_numbering_its_only_choice_from_one() -> None:
    # openai-python's own regression shape: a role-only choice 0, then everything at index 1.
    import json

    def chunk(index: int, delta: dict, finish: str | None = None) -> str:
        data = {"choices": [{"index": index, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(data)}\n\n"

    head = {"index": 0, "id": "call_files", "type": "function", "function": {"name": "ls"}}
    raw = [
        chunk(0, {"role": "assistant"}),
        chunk(
            1,
            {
                "role": "assistant",
                "tool_calls": [head, {"index": 0, "function": {"arguments": '{"path"'}}],
            },
        ),
        chunk(
            1,
            {
                "tool_calls": [
                    {"index": 0, "function": {"arguments": ": "}},
                    {"index": 0, "function": {"arguments": '"."}'}},
                ]
            },
        ),
        chunk(1, {}, "tool_calls"),
        "data: [DONE]\n\n",
    ]
    h = Harness("openai", "native")
    async with h.serve(Turn(raw=raw)):
        run = await h.run()
    assert [(c.id, c.name, c.arguments) for c in run.final.tool_calls] == [
        ("call_files", "ls", {"path": "."})
    ]
