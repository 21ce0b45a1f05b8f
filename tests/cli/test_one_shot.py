"""`pi "prompt"` end to end: the real CLI, real tools, the fake provider over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import RunPi, anthropic_args, openai_args
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import SEED_FINAL_TEXT, Turn, seed_script

PROMPT = "List files in the current directory, then tell me what this project is."


def _tool_results_openai(body: dict) -> list[str]:
    return [
        m["content"] if isinstance(m["content"], str) else json.dumps(m["content"])
        for m in body["messages"]
        if m["role"] == "tool"
    ]


def test_seed_scenario_openai(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(*seed_script())
    result = run_pi(*openai_args(server), PROMPT)
    assert result.returncode == 0, result.stderr
    assert result.stdout == SEED_FINAL_TEXT + "\n"
    assert len(server.requests) == 4
    results = _tool_results_openai(server.requests[3])
    assert len(results) == 3
    assert "package.json" in results[0] and "hello.mjs" in results[0]  # ls -la output
    assert '"name": "hello"' in results[1]
    assert "Hello, world!" in results[2]
    assert "→ bash $ ls -la" in result.stderr  # the tool words its own title
    assert "sk-test-secret" not in result.stderr


def test_seed_scenario_anthropic(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(*seed_script())
    result = run_pi(*anthropic_args(server), PROMPT)
    assert result.returncode == 0, result.stderr
    assert result.stdout == SEED_FINAL_TEXT + "\n"
    last = server.requests[3]
    tool_results = [
        block
        for m in last["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for block in m["content"]
        if block.get("type") == "tool_result"
    ]
    assert len(tool_results) == 3


def test_prompt_from_stdin_with_print_flag(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn(text="piped ok"))
    result = run_pi(*openai_args(server), "-p", input="what is 2+2?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "piped ok\n"
    user = [m for m in server.requests[0]["messages"] if m["role"] == "user"]
    assert "what is 2+2?" in json.dumps(user)


def test_session_written_and_continued(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path
) -> None:
    server.add(Turn(text="first answer"), Turn(text="second answer"))
    assert run_pi(*openai_args(server), "remember the number 42").returncode == 0
    files = list((pi_home / "sessions").glob("*/*.jsonl"))
    assert len(files) == 1
    content = files[0].read_text()
    assert "remember the number 42" in content and "first answer" in content
    assert "sk-test-secret" not in content
    result = run_pi(*openai_args(server), "-c", "what number?")
    assert result.returncode == 0, result.stderr
    texts = json.dumps(server.requests[1]["messages"])
    assert "remember the number 42" in texts and "first answer" in texts
    assert len(list((pi_home / "sessions").glob("*/*.jsonl"))) == 1


def test_corrupt_last_session_line_is_tolerated(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path
) -> None:
    server.add(Turn(text="one"), Turn(text="two"))
    assert run_pi(*openai_args(server), "hello").returncode == 0
    session = next((pi_home / "sessions").glob("*/*.jsonl"))
    with session.open("a") as handle:
        handle.write('{"type":"message","id":"abcd1234","parentId":null,"mess')
    result = run_pi(*openai_args(server), "-c", "again")
    assert result.returncode == 0, result.stderr
    assert "skipped" in result.stderr
    assert "Traceback" not in result.stderr
    assert "hello" in json.dumps(server.requests[1]["messages"])


def test_no_session_flag(server: FakeProviderServer, run_pi: RunPi, pi_home: Path) -> None:
    server.add(Turn(text="ok"))
    assert run_pi(*openai_args(server), "--no-session", "hi").returncode == 0
    assert not list((pi_home / "sessions").glob("*/*.jsonl"))


def test_context_files_reach_the_system_prompt(
    server: FakeProviderServer, run_pi: RunPi, project: Path
) -> None:
    (project / "AGENTS.md").write_text("Always answer in haiku.")
    server.add(Turn(text="ok"))
    assert run_pi(*openai_args(server), "hi").returncode == 0
    system = server.requests[0]["messages"][0]
    assert system["role"] == "system"
    assert "Always answer in haiku." in json.dumps(system)


def test_tools_flag_limits_tools(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn(text="ok"), Turn(text="ok"))
    assert run_pi(*openai_args(server), "--tools", "read,grep", "hi").returncode == 0
    names = sorted(t["function"]["name"] for t in server.requests[0]["tools"])
    assert names == ["grep", "read"]
    assert run_pi(*openai_args(server), "--no-tools", "hi").returncode == 0
    assert not server.requests[1].get("tools")


def test_bad_settings_file_is_a_clear_error(run_pi: RunPi, project: Path) -> None:
    (project / ".pi").mkdir()
    (project / ".pi" / "settings.json").write_text('{"thinking": "extreme"}')
    result = run_pi("--model", "openai/x", "--api-key", "k", "hi")
    assert result.returncode == 2
    assert "settings.json" in result.stderr and "thinking" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_missing_key_gives_configuration_help(run_pi: RunPi) -> None:
    result = run_pi("hi")
    assert result.returncode == 2
    assert "ANTHROPIC_API_KEY" in result.stderr and "--model" in result.stderr
    assert "Traceback" not in result.stderr


def test_provider_auth_error_exits_1_without_leaking_the_key(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    server.add(Turn(status=401, error_message="invalid x-api-key"))
    result = run_pi(*openai_args(server), "hi")
    assert result.returncode == 1
    assert result.stdout == ""
    assert "sk-test-secret" not in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 3
    assert "Traceback" not in result.stderr


def test_usage_errors_exit_2(run_pi: RunPi) -> None:
    assert run_pi("-p").returncode == 2
    bad_flag = run_pi("--no-such-flag")
    assert bad_flag.returncode == 2
    assert run_pi("--thinking", "extreme", "hi").returncode == 2


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_version_and_help_skip_heavy_imports(run_pi: RunPi, flag: str) -> None:
    import subprocess
    import sys

    from tests.cli.conftest import REPO

    probe = (
        "import sys, runpy\n"
        f"sys.argv = ['pi', {flag!r}]\n"
        "try:\n    runpy.run_module('pi_cli.cli', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "bad = sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'litellm'})\n"
        "print('LOADED', bad, file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=30
    )
    assert "LOADED []" in result.stderr
    if flag == "--version":
        assert result.stdout.startswith("pi ")
    else:
        assert "--model" in result.stdout


def test_ctrl_c_exits_130(server: FakeProviderServer, project: Path, pi_home: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.cli.conftest import REPO

    server.add(Turn(hang=True))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    process = subprocess.Popen(
        [sys.executable, "-m", "pi_cli.cli", *openai_args(server), "wait forever"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not server.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.requests, "pi never reached the server"
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=15)
    assert process.returncode == 130
    assert stdout == ""
    assert "Traceback" not in stderr


def test_image_flag_attaches_images_to_the_prompt(
    server: FakeProviderServer, run_pi: RunPi, project: Path
) -> None:
    import base64

    png = base64.b64decode(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    )
    (project / "shot.png").write_bytes(png)
    server.add(Turn(text="A single pixel."))
    result = run_pi(*openai_args(server), "-i", "shot.png", "--image", "shot.png", "what is it?")
    assert result.returncode == 0, result.stderr
    user = [m for m in server.requests[0]["messages"] if m["role"] == "user"][-1]
    parts = user["content"]
    images = [p for p in parts if p.get("type") == "image_url"]
    assert len(images) == 2 and images[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert any(p.get("type") == "text" and p["text"] == "what is it?" for p in parts)


def test_a_bad_image_or_an_unknown_provider_is_a_usage_error_at_once(
    server: FakeProviderServer, run_pi: RunPi, project: Path
) -> None:
    (project / "notes.png").write_text("not an image")
    result = run_pi(*openai_args(server), "-i", "notes.png", "hi")
    assert result.returncode == 2 and "not a PNG, JPEG, GIF or WebP image" in result.stderr
    result = run_pi("--model", "nonexist/zzz", "hi")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and 'Unknown provider "nonexist"' in result.stderr
    assert server.requests == []
    result = run_pi(*openai_args(server), "-i", "notes.png")  # no prompt: interactive is refused
    assert result.returncode == 2


def test_list_models_has_no_provider_less_rows(run_pi: RunPi) -> None:
    result = run_pi("--list-models")
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert len(lines) > 100 and not [line for line in lines if line.startswith("/")]
