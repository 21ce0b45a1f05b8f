"""End to end in tmux: what ``pi --plain`` shows of tool calls, approvals and turns.

A real pi in a real terminal against the fake provider: a result's tail with the exit code and
the full-output file, an edit's title and diff, turns numbered across the session, no stray
prompt lines in the scrollback, Ctrl+C at an approval stops the run, and ``TERM=dumb`` wraps at
the pane's real width.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.modes.plain.tmux_pane import Pane, needs_tmux, plain_command

pytestmark = needs_tmux

PROMPT = re.compile(r"^›\s*$", re.MULTILINE)
FAILING_TESTS = (
    'for i in $(seq 1 60); do echo "test_$i ... ok"; done; '
    "printf 'FAILED test_%s: AssertionError: expected 3 got 4\\n' 61; false"
)


def _call(name: str, args: dict[str, object], call_id: str, text: str = "") -> Turn:
    return Turn(text=text or None, tool_calls=[ToolCallSpec(name, args, id=call_id)])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    (path / "hello.mjs").write_text('console.log("hello", "world");\n')
    return path


def test_tails_exit_codes_full_output_diffs_and_turn_numbers(tmp_path: Path, project: Path) -> None:
    script = [
        _call("bash", {"command": "seq 1 3000 | sed 's/^/bigline-/'"}, "c1", "Running."),
        Turn(text="Big output done."),
        _call("bash", {"command": FAILING_TESTS}, "c2"),
        Turn(text="One test failed."),
        _call(
            "edit",
            {"path": "hello.mjs", "edits": [{"old_text": '"world"', "new_text": '"there"'}]},
            "c3",
        ),
        Turn(text="Edited."),
    ]
    with FakeProviderServer(script) as server:
        pane = Pane(
            plain_command(tmp_path / "home", server.port, "--permission-mode bypassPermissions"),
            project,
        )
        try:
            pane.wait_for(PROMPT)
            pane.type("big", "Enter")
            pane.wait_for("Big output done.")
            pane.type("run tests", "Enter")
            pane.wait_for("One test failed.")
            pane.type("edit it", "Enter")
            screen = pane.wait_for("Edited.")
        finally:
            pane.close()
    big = screen[screen.index("› big") : screen.index("Big output done.")]
    assert "▸ bash $ seq 1 3000 | sed 's/^/bigline-/'" in big  # the tool's title, not JSON
    assert "… (1992 earlier lines)" in big
    assert "bigline-3000" in big and "bigline-1008" not in big  # the tail, not the head
    assert re.search(r"\[Showing lines 1001-3000 of 3000\. Full output: \S+\.log\]", big)
    failed = screen[screen.index("› run tests") : screen.index("One test failed.")]
    assert "FAILED test_61: AssertionError: expected 3 got 4" in failed
    assert "Command exited with code 1" in failed
    assert "✗ bash failed" in failed and "test_8 ... ok" not in failed
    edit = screen[screen.index("› edit it") : screen.index("Edited.")]
    assert "▸ edit hello.mjs" in edit and "old_text" not in edit
    assert '-console.log("hello", "world");' in edit
    assert '+console.log("hello", "there");' in edit
    # Turns are numbered across the session: the second prompt's first turn is turn 3.
    assert [int(n) for n in re.findall(r"── turn (\d+)", screen)] == [1, 2, 3, 4, 5, 6]
    assert (project / "hello.mjs").read_text() == 'console.log("hello", "there");\n'


def test_ctrl_c_at_an_approval_stops_the_run_and_leaves_no_stray_prompts(
    tmp_path: Path, project: Path
) -> None:
    script = [
        _call("write", {"path": "notes.txt", "content": "alpha\nbeta\n"}, "c1", "Writing."),
        _call(
            "edit",
            {"path": "hello.mjs", "edits": [{"old_text": '"world"', "new_text": '"there"'}]},
            "c2",
            "Editing.",
        ),
        Turn(text="Second run answered."),  # the aborted run asks for no third turn
    ]
    log = tmp_path / "requests.jsonl"
    with FakeProviderServer(script, request_log=log) as server:
        pane = Pane(
            plain_command(tmp_path / "home", server.port, "--permission-mode default"), project
        )
        try:
            pane.wait_for(PROMPT)
            pane.type("go", "Enter")
            pane.wait_for("always saves Edit(")
            pane.type("y", "Enter")
            pane.wait_for(lambda s: s.count("always saves Edit(") == 2)
            assert '+console.log("hello", "there");' in pane.screen()  # the diff, in colour
            pane.type("", "C-c")
            pane.wait_for(lambda s: PROMPT.search(s.split("aborting…")[-1]) is not None)
            pane.type("again", "Enter")
            # The run is over once its summary is printed and the idle prompt is back (while
            # it runs, the live input line reads "steer ›": that one is no leftover).
            screen = pane.wait_for(
                lambda s: (
                    "Second run answered." in s
                    and PROMPT.search(s.split("Second run answered.")[-1]) is not None
                )
            )
        finally:
            pane.close()
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(requests) == 3  # the aborted run asked nothing more; "again" made the third
    assert requests[2]["messages"][-1]["content"] == "again"
    assert (project / "notes.txt").read_text() == "alpha\nbeta\n"
    assert (project / "hello.mjs").read_text() == 'console.log("hello", "world");\n'
    assert "allowed once" in screen and "aborting…" in screen
    assert "denied by the user" not in screen  # stopped, not denied
    # The scrollback holds what happened, not prompt-toolkit's leftovers.
    lines = [line.strip() for line in screen.splitlines()]
    assert "steer ›" not in lines and "› steer ›" not in lines
    assert lines.count("› go") == 1 and lines.count("› again") == 1


def test_term_dumb_wraps_at_the_real_width_and_asks_in_order(tmp_path: Path, project: Path) -> None:
    words = " ".join(f"word{i:02d}" for i in range(16))  # 111 characters
    script = [
        _call("write", {"path": "notes.txt", "content": "alpha\n"}, "c1", "Writing."),
        Turn(text=f"{words} END"),
    ]
    with FakeProviderServer(script) as server:
        command = plain_command(
            tmp_path / "home", server.port, "--permission-mode default", term="dumb"
        )
        pane = Pane(command, project, width=130)
        try:
            pane.wait_for(PROMPT)
            pane.type("go", "Enter")
            asked = pane.wait_for("always saves Edit(")
            pane.type("y", "Enter")
            pane.wait_for("END")
            rows = pane.rows()
        finally:
            pane.close()
    # The question comes after what it is about (nothing held back behind it).
    assert asked.index("⚠ permission needed: write notes.txt") < asked.index("always saves")
    assert f"{words} END" in rows.splitlines()  # one row at 130 columns, not wrapped at 80
    assert (project / "notes.txt").read_text() == "alpha\n"
