"""How the keys leave pi's /proc files: wiped in place (one interpreter start), proved by
reading them back, with the re-exec as the fallback. Real processes, read from outside."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
KEY = "sk-user-secret-0123456789abcdef"
CHILD = """
import os, sys
print("started", flush=True)  # printed twice if the process re-executed itself
from pi_cli import secret_env
from pi_cli.secret_env import HELD, HELD_API_KEY, hide_secrets
if os.environ.get("WIPE_REFUSED"):  # as on a kernel refusing the write to /proc/self/mem
    secret_env._wipe_in_place = lambda names, key: False
args = hide_secrets(sys.argv[1:])
print("args", args, flush=True)
print("held", sorted(HELD), HELD_API_KEY, flush=True)
print("environ has it", "OPENAI_API_KEY" in os.environ, flush=True)
sys.stdin.readline()  # the test reads our /proc files meanwhile
"""


def _run_child(
    extra_env: dict[str, str], *args: str, lines: int = 4
) -> tuple[list[str], bytes, bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OPENAI_API_KEY": KEY, **extra_env}
    env.pop("PI_NO_REEXEC", None)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, *args],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdin is not None
    said = [child.stdout.readline().strip() for _ in range(lines)]
    environ = Path(f"/proc/{child.pid}/environ").read_bytes()
    cmdline = Path(f"/proc/{child.pid}/cmdline").read_bytes()
    child.stdin.write("\n")
    child.stdin.close()
    assert child.wait(timeout=30) == 0
    return said, environ, cmdline


def test_keys_are_wiped_in_place_without_a_second_start() -> None:
    lines, environ, cmdline = _run_child({}, "-p", "--api-key", KEY + "-flag", "hello")
    assert lines[0] == "started" and lines[1] != "started"  # no exec of a second interpreter
    assert lines[1] == "args ['-p', 'hello']"
    assert lines[2] == f"held ['OPENAI_API_KEY'] ['{KEY}-flag']"
    assert lines[3] == "environ has it False"
    assert KEY.encode() not in environ and KEY.encode() not in cmdline
    assert b"--api-key" not in cmdline and b"OPENAI_API_KEY" not in environ
    assert b"hello" in cmdline and b"PYTHONPATH=" in environ  # the rest is still there


def test_the_key_flag_forms_and_nothing_to_hide() -> None:
    lines, _, cmdline = _run_child({}, "--api-key=" + KEY + "-flag", "--", "--api-key")
    assert lines[1] == "args ['--', '--api-key']" and b"-flag" not in cmdline
    lines, environ, cmdline = _run_child({"OPENAI_API_KEY": ""}, "just", "a", "prompt")
    assert lines[1] == "args ['just', 'a', 'prompt']" and b"just\0a\0prompt" in cmdline


def test_when_the_wipe_cannot_be_proved_pi_execs_itself_without_the_keys() -> None:
    lines, environ, cmdline = _run_child(
        {"WIPE_REFUSED": "1"}, "-p", "--api-key", KEY + "-flag", "hello", lines=5
    )
    assert lines[:2] == ["started", "started"]  # the second interpreter
    assert lines[2] == "args ['-p', 'hello']"
    assert lines[3] == f"held ['OPENAI_API_KEY'] ['{KEY}-flag']"
    assert KEY.encode() not in environ and KEY.encode() not in cmdline
    assert b"--api-key" not in cmdline
