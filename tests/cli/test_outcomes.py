"""What `pi -p` says and exits with for every way a run can end (the exit-code table of docs/usage.md).

The real CLI against the fake provider, real settings and session files; no traceback text may
appear for any of these.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import RunPi, anthropic_args, openai_args
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn

NO_TRACEBACK = ("Traceback", "internal error", 'File "')


def _clean(stderr: str) -> None:
    assert not any(mark in stderr for mark in NO_TRACEBACK), stderr


def _events(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_openai_refusal_exits_3_and_says_why(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn(capture="openai_refusal.sse"))
    result = run_pi(*openai_args(server), "-p", "something bad")
    assert result.returncode == 3
    assert result.stdout == ""
    assert (
        "pi: the model refused to answer: I'm sorry, but I can't assist with that request."
        in result.stderr
    )
    _clean(result.stderr)


def test_anthropic_refusal_shows_the_explanation(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn(capture="anthropic_refusal.sse"))
    result = run_pi(*anthropic_args(server), "-p", "something bad")
    assert result.returncode == 3
    assert "refused to answer: This request was refused due to policy." in result.stderr
    _clean(result.stderr)


def test_refusal_in_json_mode_carries_the_marker(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn(capture="openai_refusal.sse"))
    result = run_pi(*openai_args(server), "--mode", "json", "something bad")
    assert result.returncode == 3
    events = _events(result.stdout)
    end = next(
        e for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant"
    )
    assert end["message"]["stopReason"] == "refusal"
    assert end["message"]["refusal"] == "I'm sorry, but I can't assist with that request."
    notice = events[-1]
    assert notice["type"] == "notice" and "refused" in notice["text"]


def test_cut_answer_prints_what_came_and_exits_4(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn(text="The first half of", stop_reason="length"))
    result = run_pi(*anthropic_args(server), "-p", "write a lot")
    assert result.returncode == 4
    assert result.stdout == "The first half of\n"
    assert "pi: the answer was cut at the model's output token limit" in result.stderr
    _clean(result.stderr)


def test_cut_answer_in_json_mode(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn(capture="openai_length.sse"))
    result = run_pi(*openai_args(server), "--mode", "json", "write a lot")
    assert result.returncode == 4
    events = _events(result.stdout)
    assert any(
        e["type"] == "message_end" and e["message"].get("stopReason") == "length" for e in events
    )
    assert (
        events[-1]["type"] == "notice"
        and "cut at the model's output token limit" in events[-1]["text"]
    )


def test_empty_answer_warns_and_exits_1(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn())
    result = run_pi(*openai_args(server), "-p", "say nothing")
    assert result.returncode == 1
    assert result.stdout == ""
    assert "pi: the model returned an empty answer (no text, no tool call)" in result.stderr


def test_empty_answer_after_tool_work_warns_and_exits_0(
    server: FakeProviderServer, run_pi: RunPi, project: Path
) -> None:
    server.add(
        Turn(tool_calls=[ToolCallSpec("write", {"path": "out.txt", "content": "done"})]), Turn()
    )
    result = run_pi(*openai_args(server), "-p", "write the file")
    assert result.returncode == 0, result.stderr
    assert (project / "out.txt").read_text() == "done"
    assert "pi: the model ended without a final answer after its tool calls" in result.stderr


def test_stall_is_retried_under_the_settings(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text(
        json.dumps({"timeouts": {"idleS": 0.5}, "retry": {"baseDelayMs": 10}})
    )
    server.add(Turn(text="never", stall_after_chunks=1), Turn(text="second try"))
    result = run_pi(*openai_args(server), "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "second try\n"
    assert "stalled: no data for 0.5s" in result.stderr and "retrying" in result.stderr


def test_unprefixed_key_never_printed(server: FakeProviderServer, run_pi: RunPi) -> None:
    key = "9d2f7c1ab34e4f0e8a6b5c3d2e1f0a9b"
    server.add(Turn(status=401))
    args = ["--model", "openai/m", "--api-base", server.openai_base_url, "--api-key", key]
    result = run_pi(*args, "-p", "hi")
    assert result.returncode == 1
    assert "Authentication failed" in result.stderr and key not in result.stderr


# ---------------------------------------------------------------------------- local inputs


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested more than 64 levels deep"),
        ('{"hooks": ' + '{"a": ' * 70 + "1" + "}" * 70 + "}", "nested more than 64 levels deep"),
        ('{"model": "x",,}', "is not valid JSON (line 1, column 15)"),
        ('["model"]', "must contain a JSON object, not list"),
        ('{"retry": {"maxRetries": "lots"}, "thinking": "maximal"}', '"retry.maxRetries"'),
        (b"\xff\xfe{}", "is not UTF-8 text"),
    ],
    ids=["100000-levels", "72-levels", "bad-json", "not-an-object", "bad-values", "not-utf8"],
)
def test_bad_settings_file_is_named_in_one_line_exit_2(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path, content: str | bytes, problem: str
) -> None:
    path = pi_home / "settings.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = run_pi(*openai_args(server), "-p", "hi")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and problem in lines[0], result.stderr
    _clean(result.stderr)
    assert not (pi_home / "logs").exists()


def test_settings_file_that_is_a_directory(
    server: FakeProviderServer, run_pi: RunPi, project: Path
) -> None:
    (project / ".pi" / "settings.json").mkdir(parents=True)
    result = run_pi(*openai_args(server), "-p", "hi")
    assert result.returncode == 2 and "Cannot read settings file" in result.stderr
    _clean(result.stderr)


def test_settings_with_a_byte_order_mark_load(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_bytes(b'\xef\xbb\xbf{"theme": "light"}')
    server.add(Turn(text="fine"))
    result = run_pi(*openai_args(server), "-p", "hi")
    assert result.returncode == 0 and result.stdout == "fine\n", result.stderr


def test_deleted_working_directory(run_pi: RunPi, tmp_path: Path) -> None:
    import subprocess
    import sys

    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        "import os, sys, subprocess; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); "
        "sys.exit(subprocess.run([sys.executable, '-m', 'pi_cli.cli', '-p', 'hi']).returncode)"
    )
    env = {**__import__("os").environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    result = subprocess.run(
        [sys.executable, "-c", script, str(gone)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "pi: the current directory no longer exists" in result.stderr
    _clean(result.stderr)


def test_internal_error_names_a_log_with_the_traceback(
    pi_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import pi_cli.launch
    from pi_cli.cli import main

    def broken(args: object) -> int:
        raise RuntimeError("a bug with sk-ant-secret123456 inside")

    monkeypatch.setattr(pi_cli.launch, "launch", broken)
    monkeypatch.delenv("PI_DEBUG", raising=False)
    assert main(["-p", "hi", "--api-key", "sk-ant-secret123456"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("pi: internal error: RuntimeError: a bug with") and "Traceback" not in err
    assert "sk-ant-secret123456" not in err
    logs = list((pi_home / "logs").glob("crash-*.log"))
    assert len(logs) == 1 and str(logs[0]) in err
    text = logs[0].read_text()
    assert "Traceback (most recent call last)" in text and "broken" in text
    assert "sk-ant-secret123456" not in text


def test_resume_with_bad_entries_warns_with_file_and_line(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path
) -> None:
    server.add(Turn(text="first"), Turn(text="second"))
    assert run_pi(*openai_args(server), "-p", "one").returncode == 0
    (path,) = (pi_home / "sessions").glob("*/*.jsonl")
    last = json.loads(path.read_text().splitlines()[-1])["id"]
    line = len(path.read_text().splitlines()) + 1
    with path.open("a") as handle:
        handle.write(
            json.dumps({"type": "model_change", "id": "bad1", "parentId": last, "timestamp": "t"})
            + "\n"
        )
    result = run_pi(*openai_args(server), "-c", "-p", "two")
    assert result.returncode == 0, result.stderr
    assert (
        f"{path.name} line {line}: skipped model_change entry bad1: it names no model"
        in result.stderr
    )
    _clean(result.stderr)
    assert "first" in json.dumps(server.requests[1]["messages"])


def test_kill_9_mid_answer_resumes_with_the_partial_text(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.cli.conftest import REPO

    answer = " ".join(f"word{i}" for i in range(400))
    server.add(Turn(text=answer, chunk_size=8, chunk_delay_s=0.02), Turn(text="resumed"))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_cli.cli", *openai_args(server), "-p", "talk"],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        files: list[Path] = []
        while time.monotonic() < deadline:
            files = list((pi_home / "sessions").glob("*/*.jsonl"))
            if files and files[0].read_text().count('"type":"partial"') >= 2:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("no partial entry was written while the answer streamed")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    result = subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", *openai_args(server), "-c", "-p", "go on"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "resumed\n"
    assert "the last answer was cut off while streaming" in result.stderr
    _clean(result.stderr)
    sent = server.requests[1]["messages"]
    partial = next(m for m in sent if m["role"] == "assistant")["content"]
    assert partial and answer.startswith(partial) and len(partial) < len(answer)


@pytest.mark.parametrize(
    "content", [b'{"providers": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", b"\xc3\x28 not utf-8"]
)
def test_bad_models_file_is_named_exit_2(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path, content: bytes
) -> None:
    (pi_home / "models.json").write_bytes(content)
    result = run_pi(*openai_args(server), "-p", "hi")
    assert result.returncode == 2, result.stderr
    assert str(pi_home / "models.json") in result.stderr
    _clean(result.stderr)


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_session_stored_with_repeated_ids_continues(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path, project: Path, wire: str
) -> None:
    # What an older pi saved after a response repeated an id: two calls "dup", both results.
    from pi_cli.shell.paths import sessions_dir

    call = {"type": "toolCall", "name": "read", "arguments": {"path": "package.json"}}
    entries = [
        {"type": "session", "version": 1, "id": "s-dup", "timestamp": "t", "cwd": str(project)},
        {
            "type": "message",
            "id": "e1",
            "parentId": None,
            "timestamp": "t",
            "message": {"role": "user", "content": "read it twice"},
        },
        {
            "type": "message",
            "id": "e2",
            "parentId": "e1",
            "timestamp": "t",
            "message": {
                "role": "assistant",
                "content": [{**call, "id": "dup"}, {**call, "id": "dup"}],
                "stopReason": "toolUse",
                "provider": wire,
            },
        },
        {
            "type": "message",
            "id": "e3",
            "parentId": "e2",
            "timestamp": "t",
            "message": {
                "role": "toolResult",
                "toolCallId": "dup",
                "toolName": "read",
                "content": "one",
            },
        },
        {
            "type": "message",
            "id": "e4",
            "parentId": "e3",
            "timestamp": "t",
            "message": {
                "role": "toolResult",
                "toolCallId": "dup",
                "toolName": "read",
                "content": "two",
            },
        },
    ]
    directory = sessions_dir(project.resolve())
    directory.mkdir(parents=True)
    (directory / "2026-01-01T00-00-00-000Z_s-dup.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in entries)
    )
    server.strict = True
    server.add(Turn(text="unstuck"))
    args = openai_args(server) if wire == "openai" else anthropic_args(server)
    result = run_pi(*args, "-c", "-p", "go on")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "unstuck\n" and not server.rejected


def test_two_pi_processes_on_one_session_keep_everything_and_say_so(
    server: FakeProviderServer, run_pi: RunPi, project: Path, pi_home: Path
) -> None:
    import os
    import subprocess
    import sys
    import time

    from pi_cli.shell.session.store import SessionStore
    from tests.cli.conftest import REPO

    server.add(Turn(text="first"))
    assert run_pi(*openai_args(server), "-p", "start").returncode == 0
    (path,) = (pi_home / "sessions").glob("*/*.jsonl")
    slow = " ".join(f"w{i}" for i in range(60))
    server.add(Turn(text=slow, chunk_size=4, chunk_delay_s=0.05), Turn(text="quick answer"))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    slow_pi = subprocess.Popen(
        [sys.executable, "-m", "pi_cli.cli", *openai_args(server), "-c", "-p", "slow one"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while '"type":"partial"' not in path.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)  # the slow answer is streaming, saved in part
    quick = run_pi(*openai_args(server), "--session", str(path), "-p", "quick one")
    assert "cut off while streaming" not in quick.stderr  # alive elsewhere: not a crash
    out, err = slow_pi.communicate(timeout=60)
    assert quick.returncode == 0 and slow_pi.returncode == 0, (quick.stderr, err)
    assert out == slow + "\n" and quick.stdout == "quick answer\n"
    said = err + quick.stderr
    assert "Another pi process is writing to this session" in said
    store = SessionStore.open(path)
    assert not store.warnings
    messages = [i for i in store.order if store.entries[i].type == "message"]
    texts = [store.read_entry(i)["message"]["content"][0]["text"] for i in messages]  # type: ignore[index]
    assert len(texts) == 6  # nothing doubled, no "incomplete" copy of the slow answer
    for expected in ("start", "first", "slow one", slow, "quick one", "quick answer"):
        assert expected in texts
