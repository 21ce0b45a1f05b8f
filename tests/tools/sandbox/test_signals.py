"""SIGTERM and SIGHUP to a real ``pi`` process: like Esc then quit. The run is aborted, every
process its tools started is gone when pi exits (checked through /proc), the session keeps
the aborted run, and the exit code is 143 / 129. One-shot text, JSON and RPC mode here; the
plain REPL and the TUI in tmux (test_signals_tmux.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import ToolCallSpec, Turn
from tests.fakes.provider_server import FakeProviderServer
from tests.tools.sandbox.procs import marker, stubborn_tree, tagged, wait_until

REPO = Path(__file__).resolve().parents[3]
CODES = {signal.SIGTERM: 143, signal.SIGHUP: 129}


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as fake:
        yield fake


def pi_env(pi_home: Path, tag: str) -> dict[str, str]:
    """pi's environment: its tools inherit the tag."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        {
            "PI_HOME": str(pi_home),
            "PYTHONPATH": str(REPO),
            "PI_NO_LOCAL_PROBE": "1",
            "PI_TEST_TAG": tag,
        }
    )
    return env


def pi_argv(server: FakeProviderServer, *args: str) -> list[str]:
    base = ["--model", "openai/fake", "--api-base", server.openai_base_url, "--api-key", "x"]
    return [sys.executable, "-m", "pi_cli.cli", *base, *args]


def project(tmp_path: Path, where: str) -> Path:
    """A project whose settings pick the sandbox mode (``inside``: required)."""
    root = tmp_path / "project"
    (root / ".pi").mkdir(parents=True)
    mode = "required" if where == "inside" else "off"
    (root / ".pi" / "settings.json").write_text(json.dumps({"sandbox": {"mode": mode}}))
    return root


def session_messages(pi_home: Path) -> list[dict[str, Any]]:
    """The messages of the (only) session file."""
    files = list((pi_home / "sessions").glob("*/*.jsonl"))
    assert len(files) == 1, files
    lines = [json.loads(line) for line in files[0].read_text().splitlines()]
    return [line["message"] for line in lines if line.get("type") == "message"]


def _tree_running(tag: str) -> bool:
    args = set()
    for pid in tagged(tag):
        try:
            args.update(Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0"))
        except OSError:
            pass
    return all(f"{tag}{n}" in args for n in "1234")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
@pytest.mark.parametrize("mode", ["print", "json", "rpc"])
def test_signal_mid_tool_kills_the_tools_and_exits(
    server: FakeProviderServer,
    tmp_path: Path,
    pi_home: Path,
    where: str,
    mode: str,
    sig: signal.Signals,
) -> None:
    tag = marker()
    command = stubborn_tree(tag) + f"; sleep {tag}4"
    server.add(Turn(tool_calls=[ToolCallSpec("bash", {"command": command}, id="call_1")]))
    server.add(Turn(text="never reached"))
    cwd = project(tmp_path, where)
    extra = {"print": ["-p", "go"], "json": ["--mode", "json", "go"], "rpc": ["--mode", "rpc"]}
    pi = subprocess.Popen(
        pi_argv(server, *extra[mode]),
        cwd=cwd,
        env=pi_env(pi_home, tag),
        stdin=subprocess.PIPE if mode == "rpc" else subprocess.DEVNULL,  # -p reads a piped stdin
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        if mode == "rpc":
            assert pi.stdin is not None
            pi.stdin.write(b'{"type": "prompt", "message": "go"}\n')
            pi.stdin.flush()
        assert wait_until(lambda: _tree_running(tag), timeout=30), "the tool never started"
        start = time.monotonic()
        pi.send_signal(sig)
        out, err = pi.communicate(timeout=30)
        elapsed = time.monotonic() - start
    finally:
        if pi.poll() is None:
            pi.kill()
    assert pi.returncode == CODES[sig], err.decode()
    assert tagged(tag) == [], "a process started by the tool survived pi"
    assert elapsed < 10
    messages = session_messages(pi_home)
    result = next(m for m in messages if m["role"] == "toolResult")
    assert "Command aborted" in result["content"][0]["text"]
    assert messages[-1]["role"] == "assistant" and messages[-1]["stopReason"] == "aborted"
    assert len(server.requests) == 1  # the run did not go on after the tool
    if mode == "json":
        events = [json.loads(line) for line in out.splitlines()]
        assert any(e.get("type") == "agent_end" for e in events)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_signal_mid_answer_saves_the_partial_text(
    server: FakeProviderServer, tmp_path: Path, pi_home: Path, sig: signal.Signals
) -> None:
    text = "The answer streams slowly, one small piece after another, " * 4
    server.add(Turn(text=text, chunk_size=6, chunk_delay_s=0.15))
    pi = subprocess.Popen(
        pi_argv(server, "--mode", "json", "explain"),
        cwd=project(tmp_path, "outside"),
        env=pi_env(pi_home, marker()),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert pi.stdout is not None
        deltas = 0
        for line in pi.stdout:
            event = json.loads(line)
            sub = event.get("assistantMessageEvent") or {}
            deltas += sub.get("type") == "text_delta"
            if deltas >= 3:
                break
        pi.send_signal(sig)
        _, err = pi.communicate(timeout=30)
    finally:
        if pi.poll() is None:
            pi.kill()
    assert pi.returncode == CODES[sig], err.decode()
    answer = session_messages(pi_home)[-1]
    assert answer["role"] == "assistant" and answer["stopReason"] == "aborted"
    saved = "".join(part["text"] for part in answer["content"] if part["type"] == "text")
    assert len(saved) >= 3 * 6 and text.startswith(saved) and saved != text
