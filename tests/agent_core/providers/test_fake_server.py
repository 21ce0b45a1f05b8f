"""The fake provider server itself: both wire protocols, faults, JSON scripts and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from tests.fakes import EXHAUSTED, FakeProviderServer, ToolCallSpec, Turn, dump_script, seed_script


def _data_lines(text: str) -> list[str]:
    return [line[6:] for line in text.splitlines() if line.startswith("data: ")]


def test_openai_stream_and_request_log() -> None:
    turn = Turn(
        text="Hello there", tool_calls=[ToolCallSpec("bash", {"command": "ls"})], chunk_size=4
    )
    with FakeProviderServer([turn]) as server:
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}
        resp = httpx.post(f"{server.openai_base_url}/chat/completions", json=body)
        assert resp.status_code == 200
        lines = _data_lines(resp.text)
        assert lines[-1] == "[DONE]"
        chunks = [json.loads(x) for x in lines[:-1]]
        text = "".join(
            c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"]
        )
        assert text == "Hello there"
        args = "".join(
            tc["function"].get("arguments", "")
            for c in chunks
            if c["choices"]
            for tc in c["choices"][0]["delta"].get("tool_calls", [])
        )
        assert json.loads(args) == {"command": "ls"}
        assert server.requests == [body]
        # script exhausted is loud
        again = httpx.post(f"{server.openai_base_url}/chat/completions", json=body)
        assert again.status_code == 500 and EXHAUSTED in again.text
        assert httpx.get(f"{server.openai_base_url}/models").json()["data"][0]["id"] == "fake-model"


def test_anthropic_stream_and_faults() -> None:
    script = [Turn(status=429, retry_after=1), Turn(thinking="hmm", text="ok")]
    with FakeProviderServer(script) as server:
        url = f"{server.anthropic_base_url}/v1/messages"
        first = httpx.post(url, json={"model": "m"})
        assert first.status_code == 429 and first.headers["retry-after"] == "1"
        assert first.json()["error"]["type"] == "rate_limit_error"
        second = httpx.post(url, json={"model": "m"})
        types = [json.loads(x)["type"] for x in _data_lines(second.text)]
        assert types[0] == "message_start" and types[-1] == "message_stop"
        assert "signature_delta" in second.text and "thinking_delta" in second.text


def test_disconnect_is_a_protocol_error() -> None:
    with FakeProviderServer(
        [Turn(text="abcdefgh", chunk_size=1, disconnect_after_chunks=3)]
    ) as server:
        try:
            httpx.post(f"{server.openai_base_url}/chat/completions", json={}).read()
        except httpx.RemoteProtocolError:
            pass
        else:
            raise AssertionError("expected an incomplete body")


def test_cli_serves_script_and_logs(tmp_path: Path) -> None:
    script = dump_script(seed_script(), tmp_path / "script.json")
    log = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fakes.provider_server",
            "--script",
            str(script),
            "--request-log",
            str(log),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).parents[3],
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().strip()
        assert first.startswith("PORT=")
        port = int(first.split("=")[1])
        resp = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions", json={"model": "x", "n": 1}
        )
        assert '"bash"' in resp.text and "command" in resp.text
        assert json.loads(log.read_text().splitlines()[0]) == {"model": "x", "n": 1}
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def test_stream_error_fault_in_both_protocols() -> None:
    error = {"type": "overloaded_error", "message": "Overloaded"}
    script = [
        Turn(text="never sent", stream_error=error),
        Turn(text="abc", chunk_size=1, stream_error=error, stream_error_after_chunks=3),
    ]
    with FakeProviderServer(script) as server:
        openai = httpx.post(f"{server.openai_base_url}/chat/completions", json={})
        assert openai.status_code == 200
        chunks = [json.loads(x) for x in _data_lines(openai.text)]
        assert (
            len(chunks) == 2 and chunks[-1] == {"error": error} and "never sent" not in openai.text
        )
        anthropic = httpx.post(f"{server.anthropic_base_url}/v1/messages", json={})
        assert "event: error" in anthropic.text
        events = [json.loads(x) for x in _data_lines(anthropic.text)]
        assert [e["type"] for e in events] == [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "error",
        ]
        assert events[-1]["error"] == error


def test_strict_server_rejects_what_the_real_apis_reject() -> None:
    dup = {
        "messages": [
            {"role": "user", "content": "x"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
                    {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
        ]
    }
    unanswered = {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "x"}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t.1", "name": "a", "input": {}}],
            },
            {"role": "user", "content": [{"type": "text", "text": "y"}]},
        ]
    }
    with FakeProviderServer([Turn(text="ok")], strict=True) as server:
        bad = httpx.post(f"{server.openai_base_url}/chat/completions", json=dup)
        assert bad.status_code == 400 and "duplicate id" in bad.text
        bad = httpx.post(f"{server.anthropic_base_url}/v1/messages", json=unanswered)
        assert bad.status_code == 400 and "String should match pattern" in bad.text
        assert server.remaining == 1 and len(server.rejected) == 2
