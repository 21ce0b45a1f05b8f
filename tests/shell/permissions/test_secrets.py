"""Keys out of reach of tools and out of every file and stream, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.permissions.conftest import RunPi, fake_args, session_text, tool_results

KEY = "sk-user-secret-0123456789abcdef"


def bash_turn(command: str) -> Turn:
    return Turn(tool_calls=[ToolCallSpec("bash", {"command": command}, id="call_1")])


def test_a_model_running_env_never_sees_the_key(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path
) -> None:
    server.add(bash_turn("env; echo done-env"), Turn(text="ok"))
    env = {"OPENAI_API_KEY": KEY, "MY_COPY_OF_THE_KEY": KEY}
    result = run_pi(*fake_args(server, "--permission-mode", "yolo"), "show env", env=env)
    assert result.returncode == 0, result.stderr
    output = tool_results(server.requests[1])[0]
    assert "done-env" in output and "PI_HOME=" in output  # the command really ran
    assert "OPENAI_API_KEY" not in output and "MY_COPY_OF_THE_KEY" not in output
    assert KEY not in output
    assert server.request_headers[0]["Authorization"] == f"Bearer {KEY}"  # the key still works
    content = session_text(pi_home)
    assert "done-env" in content and KEY not in content


def test_keys_are_not_in_pis_proc_environ_or_cmdline(
    server: FakeProviderServer, run_pi: RunPi, project: Path
) -> None:
    """A tool reading /proc/<pi's pid>/environ and cmdline (its ancestor: pi, above the
    process helper running the command) finds no key."""
    find_pi = (
        "p=$PPID; while [ \"$p\" -gt 1 ] && ! tr '\\0' ' ' < /proc/$p/cmdline | grep -q pi_cli.cli;"
        " do p=$(cut -d' ' -f4 /proc/$p/stat); done; "
    )
    command = find_pi + "cat /proc/$p/environ > env.bin; cat /proc/$p/cmdline > cmd.bin; echo read"
    for hide in (True, False):
        server.add(bash_turn(command), Turn(text="ok"))
        env = {"OPENAI_API_KEY": KEY, **({} if hide else {"PI_NO_REEXEC": "1"})}
        args = fake_args(server, "--api-key", KEY + "-flag", "--permission-mode", "yolo")
        result = run_pi(*args, "read proc", env=env)
        assert result.returncode == 0, result.stderr
        environ = (project / "env.bin").read_bytes()
        cmdline = (project / "cmd.bin").read_bytes()
        assert b"PI_HOME=" in environ and b"pi_cli.cli" in cmdline  # really pi's files
        if hide:
            assert KEY.encode() not in environ and KEY.encode() not in cmdline
            assert b"--api-key" not in cmdline
        else:  # proof the test can fail: without the re-exec both leak
            assert KEY.encode() in environ and (KEY + "-flag").encode() in cmdline
    assert server.request_headers[0]["Authorization"] == f"Bearer {KEY}-flag"


def test_a_key_in_tool_output_is_masked_everywhere(
    server: FakeProviderServer, run_pi: RunPi, project: Path, pi_home: Path
) -> None:
    (project / "notes.txt").write_text(f"the key is {KEY}\n")
    server.add(
        Turn(tool_calls=[ToolCallSpec("read", {"path": "notes.txt"}, id="call_1")]),
        Turn(text="done"),
    )
    result = run_pi(*fake_args(server), "--mode", "json", "read notes", env={"OPENAI_API_KEY": KEY})
    assert result.returncode == 0, result.stderr
    assert KEY not in result.stdout and "[REDACTED]" in result.stdout
    assert KEY not in json.dumps(server.requests[1])  # the model never reads it either
    assert KEY not in session_text(pi_home)


def test_a_key_with_a_carriage_return_is_stripped_with_one_warning(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    server.add(Turn(text="ok"))
    result = run_pi(*fake_args(server), "hi", env={"OPENAI_API_KEY": KEY + "\r"})
    assert result.returncode == 0, result.stderr
    assert server.request_headers[0]["Authorization"] == f"Bearer {KEY}"
    warnings = [line for line in result.stderr.splitlines() if "carriage return" in line]
    assert len(warnings) == 1 and "OPENAI_API_KEY" in warnings[0] and KEY not in result.stderr


def test_api_key_file(server: FakeProviderServer, run_pi: RunPi, tmp_path: Path) -> None:
    key_file = tmp_path / "key"
    key_file.write_text(KEY + "\n")
    server.add(Turn(text="ok"), Turn(text="ok"))
    result = run_pi(*fake_args(server, "--api-key-file", str(key_file)), "hi")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # a file's trailing newline is normal: no warning
    assert server.request_headers[0]["Authorization"] == f"Bearer {KEY}"
    result = run_pi(*fake_args(server), "hi", env={"PI_API_KEY_FILE": str(key_file)})
    assert result.returncode == 0 and server.request_headers[1]["Authorization"] == f"Bearer {KEY}"
    missing = run_pi(*fake_args(server, "--api-key-file", str(tmp_path / "nope")), "hi")
    assert missing.returncode == 2 and "Cannot read the API key file" in missing.stderr


def test_an_unprefixed_key_echoed_in_an_error_is_not_printed(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path
) -> None:
    odd_key = "0123456789-no-known-prefix-key"
    server.add(Turn(status=401))  # the fake echoes the key it was sent, as real providers do
    result = run_pi(*fake_args(server, "--api-key", odd_key), "hi")
    assert result.returncode == 1
    assert "Incorrect API key" in result.stderr and odd_key not in result.stderr
    assert odd_key not in session_text(pi_home)


def test_control_sequences_never_reach_the_terminal(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    hostile = "fine\x1b]52;c;cm0gLXJmIH4=\x07 \x1b]0;pwned\x07\x1b[2Jtext"
    server.add(bash_turn("printf '\\033]0;title\\007'; echo x"), Turn(text=hostile))
    result = run_pi(*fake_args(server, "--permission-mode", "yolo"), "go")
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "\x1b" not in result.stderr
    assert result.stdout == "fine text\n"


def test_tool_env_inherit_secrets_gives_the_keys_back(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path, project: Path
) -> None:
    (pi_home / "settings.json").write_text('{"toolEnv": {"inheritSecrets": true}}')
    server.add(bash_turn("printenv OPENAI_API_KEY > key.out"), Turn(text="ok"))
    env = {"OPENAI_API_KEY": KEY}
    result = run_pi(*fake_args(server, "--permission-mode", "yolo"), "go", env=env)
    assert result.returncode == 0, result.stderr
    assert (project / "key.out").read_text().strip() == KEY
