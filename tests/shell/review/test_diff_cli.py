"""``pi diff`` after a real one-shot run: the patch, ``--json``, ``revert``; prompts stay prompts."""

from __future__ import annotations

import json
from pathlib import Path

from pi_cli.subcommands import SUBCOMMANDS, find_subcommand
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.review.conftest import RunPi


def test_diff_words_only() -> None:
    assert find_subcommand(["diff"]) is SUBCOMMANDS["diff"]
    assert find_subcommand(["diff", "--turns", "--json", "--session", "x"]) is not None
    assert find_subcommand(["diff", "revert", "a.py"]) is not None
    assert find_subcommand(["diff", "these", "two", "files"]) is None


def test_pi_diff_prints_what_the_session_changed(
    server: FakeProviderServer, run_pi: RunPi, repo: Path
) -> None:
    server.add(
        Turn(tool_calls=[
            ToolCallSpec("write", {"path": "app/stats.py", "content": "def total(items):\n    return sum(items)\n"}, id="w"),
            ToolCallSpec("bash", {"command": "printf 'x\\033]0;title\\007\\n' > esc.txt"}, id="b"),
        ]),
        Turn(text="done"),
    )  # fmt: skip
    args = ["--model", "openai/fake-model", "--api-base", server.openai_base_url, "--api-key", "k"]
    run = run_pi(*args, "--dangerously-skip-permissions", "-p", "simplify total")
    assert run.returncode == 0, run.stderr
    text = run_pi("diff")
    assert text.returncode == 0, text.stderr
    assert "── everything this session changed: 2 file(s)" in text.stdout
    assert "+    return sum(items)" in text.stdout
    assert "\x1b]0;" not in text.stdout and "\x07" not in text.stdout  # cleaned for the terminal
    data = json.loads(run_pi("diff", "--turns", "--json").stdout)
    assert [s["label"] for s in data["segments"]] == [
        "everything this session changed",
        "prompt 1: simplify total",
    ]
    assert {f["path"] for f in data["segments"][0]["files"]} == {"app/stats.py", "esc.txt"}
    assert (
        "\x1b]0;"
        in data["segments"][0]["files"][0]["patch"] + data["segments"][0]["files"][1]["patch"]
    )
    reverted = run_pi("diff", "revert", "app/stats.py")
    assert reverted.returncode == 0, reverted.stderr
    assert "range(len(items) + 1)" in (repo / "app/stats.py").read_text()
    missing = run_pi("diff", "revert", "nope.py")
    assert missing.returncode == 1 and "not changed in this session" in missing.stderr


def test_pi_diff_without_a_session(run_pi: RunPi, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_pi("diff", cwd=empty)
    assert result.returncode == 2 and "No session" in result.stderr
