"""``pi rewind``, ``pi --export`` and ``pi --replay`` as real processes, after real runs of pi
against the fake provider (tools change real files, checkpoints go into a real git)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pi_cli.subcommands import SUBCOMMANDS, find_subcommand
from tests.cli.conftest import RunPi, openai_args
from tests.fakes import ToolCallSpec, Turn
from tests.fakes.provider_server import FakeProviderServer

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def write_turn(path: str, content: str) -> Turn:
    return Turn(tool_calls=[ToolCallSpec("write", {"path": path, "content": content})])


def bash_turn(command: str) -> Turn:
    return Turn(tool_calls=[ToolCallSpec("bash", {"command": command})])


@pytest.fixture
def two_runs(server: FakeProviderServer, run_pi: RunPi, project: Path) -> Path:
    """Two one-shot runs in one session: a write, then a bash command."""
    server.add(write_turn("hello.mjs", 'console.log("v2");\n'), Turn(text="wrote it"))
    server.add(bash_turn("echo generated > gen.txt"), Turn(text="ran it"))
    assert run_pi(*openai_args(server), "-p", "make v2").returncode == 0
    assert run_pi(*openai_args(server), "-c", "-p", "generate").returncode == 0
    assert (project / "gen.txt").is_file()
    return project


def test_rewind_is_a_subcommand_only_with_valid_arguments() -> None:
    assert find_subcommand(["rewind"]) is SUBCOMMANDS["rewind"]
    assert find_subcommand(["rewind", "2", "--code", "--yes"]) is not None
    assert find_subcommand(["rewind", "0a1b2c3d", "--session", "abc", "--json"]) is not None
    assert find_subcommand(["rewind", "--undo"]) is not None
    assert find_subcommand(["rewind", "the", "last", "change"]) is None  # a prompt
    assert find_subcommand(["rewind", "1", "2"]) is None
    assert find_subcommand(["rewind", "--session"]) is None
    assert find_subcommand(["-p", "rewind", "2"]) is None
    assert find_subcommand(["rewinds"]) is None


def test_pi_rewind_lists_rewinds_and_undoes(two_runs: Path, run_pi: RunPi) -> None:
    listed = run_pi("rewind", "--json")
    assert listed.returncode == 0, listed.stderr
    points = json.loads(listed.stdout)["points"]
    assert [p["text"] for p in points] == ["make v2", "generate"]
    assert points[0]["hasCode"] and points[0]["files"] == [
        {"path": "hello.mjs", "added": 1, "removed": 1}
    ]
    text = run_pi("rewind")
    assert "  1. " in text.stdout and "make v2" in text.stdout and "1 file +1 -1" in text.stdout

    dry = run_pi("rewind", "1", "--dry-run")
    assert dry.returncode == 0 and "remove (created since): gen.txt" in dry.stdout
    assert (two_runs / "gen.txt").is_file()

    done = run_pi("rewind", "1", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["restored"]["deleted"] == ["gen.txt"] and result["text"] == "make v2"
    assert (two_runs / "hello.mjs").read_text() == 'console.log("Hello, world!");\n'
    assert not (two_runs / "gen.txt").exists()

    (two_runs / "hello.mjs").write_text("// my own edit\n")  # by hand, after the rewind
    refused = run_pi("rewind", "--undo")
    assert refused.returncode == 7 and "hello.mjs" in refused.stderr and "--yes" in refused.stderr
    undone = run_pi("rewind", "--undo", "--yes")
    assert undone.returncode == 0, undone.stderr
    assert (two_runs / "gen.txt").read_text() == "generated\n"
    assert (two_runs / "hello.mjs").read_text() == 'console.log("v2");\n'


def test_pi_rewind_the_last_change_stays_a_prompt(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    server.add(Turn(text="a prompt after all"))
    result = run_pi(*openai_args(server), "rewind", "the", "last", "change")
    assert result.returncode == 0 and result.stdout == "a prompt after all\n"
    assert "rewind the last change" in json.dumps(server.requests[0]["messages"])


def test_pi_rewind_without_a_session_says_so(run_pi: RunPi) -> None:
    result = run_pi("rewind")
    assert result.returncode == 2 and "No session" in result.stderr


def test_export_writes_one_html_file(two_runs: Path, run_pi: RunPi, pi_home: Path) -> None:
    (session,) = (pi_home / "sessions").glob("*/*.jsonl")
    result = run_pi("--export", str(session), "out/page.html")
    assert result.returncode == 0, result.stderr
    page = two_runs / "out" / "page.html"
    assert result.stdout.strip() == str(page)
    html = page.read_text()
    assert "make v2" in html and "wrote it" in html and "echo generated" in html
    default = run_pi("--export", session.stem.split("_", 1)[1])
    assert default.returncode == 0
    assert (two_runs / f"pi-session-{session.stem}.html").is_file()
    assert run_pi("--export", "no-such-session").returncode == 2


def test_replay_matches_then_diverges(
    server: FakeProviderServer, run_pi: RunPi, project: Path, pi_home: Path
) -> None:
    server.add(bash_turn("cat package.json | head -c 20; ls"), Turn(text="looked"))
    server.add(write_turn("notes.md", "# notes\n"), Turn(text="wrote notes"))
    assert run_pi(*openai_args(server), "-p", "look around").returncode == 0
    assert run_pi(*openai_args(server), "-c", "-p", "take notes").returncode == 0
    (session,) = (pi_home / "sessions").glob("*/*.jsonl")
    before = sorted(p.name for p in project.iterdir())

    same = run_pi("--replay", str(session))
    assert same.returncode == 0, same.stdout + same.stderr
    assert "2 of 2 tool results as recorded" in same.stdout
    assert sorted(p.name for p in project.iterdir()) == before  # the workspace is not touched

    (project / "package.json").write_text('{"name": "changed since"}\n')  # the next start differs
    # Without a checkpoint of the start the replay would copy today's files; with one it uses
    # the files as they were, so it still matches.
    again = run_pi("--replay", str(session))
    assert again.returncode == 0, again.stdout

    lines = session.read_text().splitlines()
    for index, line in enumerate(lines):  # the recording now claims another bash output
        if '"toolResult"' in line and '"bash"' in line:
            entry = json.loads(line)
            entry["message"]["content"][0]["text"] = "something else entirely"
            lines[index] = json.dumps(entry, separators=(",", ":"))
    session.write_text("\n".join(lines) + "\n")
    diverged = run_pi("--replay", str(session))
    assert diverged.returncode == 8, diverged.stdout + diverged.stderr
    assert "DIFFERENT: call 1 bash" in diverged.stdout and "something else" in diverged.stdout
    assert "scratch copy is kept" in diverged.stderr
    assert run_pi("--replay", str(project / "missing.jsonl")).returncode == 2


def test_resume_needs_the_interactive_ui(run_pi: RunPi) -> None:
    result = run_pi("--resume", "-p", "hi")
    assert result.returncode == 2 and "--resume opens the session picker" in result.stderr


def test_a_one_shot_that_keeps_no_session_takes_no_checkpoint(
    server: FakeProviderServer, run_pi: RunPi, project: Path, pi_home: Path
) -> None:
    """Nothing could rewind it (no session to resume): no snapshot, no git run for it. The
    same run keeping its session is snapshotted (and so rewindable)."""
    server.add(write_turn("hello.mjs", 'console.log("v2");\n'), Turn(text="wrote it"))
    done = run_pi(*openai_args(server), "--no-session", "-p", "make v2")
    assert done.returncode == 0, done.stderr
    assert (project / "hello.mjs").read_text() == 'console.log("v2");\n'
    assert not (pi_home / "checkpoints").exists()

    server.add(write_turn("hello.mjs", 'console.log("v3");\n'), Turn(text="wrote it"))
    assert run_pi(*openai_args(server), "-p", "make v3").returncode == 0
    assert any((pi_home / "checkpoints").iterdir())
    listed = run_pi("rewind", "--json")
    assert [p["text"] for p in json.loads(listed.stdout)["points"]] == ["make v3"]
