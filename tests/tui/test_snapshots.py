"""Snapshot tests of the main states. Each docstring says what the picture must show.

Deterministic by construction: fixed terminal size, cwd and session labels, a frozen clock
(durations read 0.0s), scripted model and test-double tools, no blinking cursor.
Update with ``make snapshot-update`` after an intended visual change, and look at the diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tests.agent_core.scripted_stream import ScriptedStream, reply, text, thinking, tool_call
from tests.tui.helpers import (
    GateTool,
    StaticTool,
    make_app,
    make_shell,
    seed_tools,
    type_text,
    wait_until,
)
from tests.tui.screen_text import screen_text

SIZE = (100, 40)
DIFF = '--- a/hello.mjs\n+++ b/hello.mjs\n@@ -1 +1 @@\n-console.log("Hello, world!");\n+console.log("Hi!");\n'


class EditArgs(BaseModel):
    """Edit-like arguments."""

    path: str


def _seed_stream() -> ScriptedStream:
    return ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "ls -la"})),
        reply(tool_call("c2", "read", {"path": "package.json"})),
        reply(tool_call("c3", "read", {"path": "hello.mjs"})),
        reply(
            thinking("hello.mjs is the entry point and prints a greeting."),
            text("This is a tiny **Node.js** project: `hello.mjs` prints a greeting."),
        ),
    )


async def _send(pilot: Any, prompt: str) -> None:
    await type_text(pilot, prompt)
    await pilot.press("enter")


def test_idle_with_header(snap_compare: Any, tmp_path: Path) -> None:
    """Idle app: the startup header (title, 'Context: none', key hints: Enter, Alt+Enter / Tab
    (live), Ctrl+J, Esc / Ctrl+C, Alt+↑ / Alt+Q, PgUp PgDn / Ctrl+↑ Ctrl+↓, Ctrl+O / Alt+O,
    ↑ ↓ / Ctrl+R, Shift+Tab / Alt+T, / @ F1 - no Ctrl+Enter since this terminal reports no
    modified Enter), the empty editor with its placeholder, and the two-line footer: an empty
    activity line, then ~/project, session test-session, mode auto, test/scripted, ↑0 ↓0,
    $0.000, ctx 0%/128k."""
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    assert snap_compare(app, terminal_size=SIZE)


def test_mid_run_with_queued_messages(snap_compare: Any, tmp_path: Path) -> None:
    """Mid-run: the prompt, Turn 1 still 'running…' with the streamed sentence and a pending
    (grey) bash block showing '$ make' and its live output 'compiling…'; under the transcript
    the queue shows 'Steering: use ninja' and 'Follow-up: then run the tests'."""
    gate = GateTool(output="compiling…")
    stream = ScriptedStream(
        reply(text("Let me build the project first."), tool_call("c1", "bash", {"command": "make"}))
    )
    app = make_app(make_shell(tmp_path, stream, tools=[gate]))

    async def run_before(pilot: Any) -> None:
        await _send(pilot, "build it")
        await gate.started.wait()
        await _send(pilot, "use ninja")
        await type_text(pilot, "then run the tests")
        await pilot.press("tab")
        await wait_until(pilot, lambda: "compiling" in screen_text(app))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_finished_seed_run(snap_compare: Any, tmp_path: Path) -> None:
    """Finished seed run: four turn panels titled 'Turn 1 · bash · ↑0 ↓0 · 0.0s', 'Turn 2 · read',
    'Turn 3 · read', 'Turn 4'; green (success) tool blocks with '$ ls -la' and the file names;
    turn 4 has a dimmed 'Thinking' block and the Markdown answer with bold 'Node.js'."""
    app = make_app(make_shell(tmp_path, _seed_stream(), tools=seed_tools()))

    async def run_before(pilot: Any) -> None:
        await _send(pilot, "List files, then tell me what this project is.")
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_error_states(snap_compare: Any, tmp_path: Path) -> None:
    """Errors: Turn 1 shows an edit block with a coloured diff (red '-' line, green '+' line on
    their diff backgrounds) and a failed read block on the error background with 'no such entry:
    missing.txt' in the error colour; Turn 2 ends with 'Error: HTTP 401: invalid api key' in the
    error colour."""
    tools = [
        StaticTool("edit", EditArgs, {"hello.mjs": "Edited hello.mjs"}, details={"diff": DIFF}),
        StaticTool("read", EditArgs, {}),
    ]
    stream = ScriptedStream(
        reply(
            tool_call("c1", "edit", {"path": "hello.mjs"}),
            tool_call("c2", "read", {"path": "missing.txt"}),
        ),
        reply(error="HTTP 401: invalid api key"),
    )
    app = make_app(make_shell(tmp_path, stream, tools=tools))

    async def run_before(pilot: Any) -> None:
        await _send(pilot, "Change the greeting.")
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_edit_with_language_server_diagnostics(snap_compare: Any, tmp_path: Path) -> None:
    """An edit's diff, then under it the language server's verdict: 'python: 3 new errors,
    1 new warning in app.py' in bold error colour, its first three problems ('3:12 Argument of
    type "str" …', '4:5 "undefined_name" is not defined', '5:1 Import "os" is not accessed') in
    the error and hint colours, '… 1 more', and 'python: 1 fixed in util.py' in the hint
    colour. Then Turn 2's answer."""
    report = {
        "toolCallId": "c1",
        "toolName": "edit",
        "files": [
            {
                "path": "app.py",
                "server": "python",
                "newCount": 4,
                "newErrors": 3,
                "new": [
                    _problem(3, 12, "error", 'Argument of type "str" is not assignable to "int"'),
                    _problem(4, 5, "error", '"undefined_name" is not defined'),
                    _problem(5, 1, "warning", 'Import "os" is not accessed'),
                    _problem(6, 1, "error", "a fourth one, shown with Ctrl+O"),
                ],
            },
            {"path": "util.py", "server": "python", "fixed": 1},
        ],
    }
    diff = '--- a/app.py\n+++ b/app.py\n@@ -3 +3 @@\n-total = add(1, 2)\n+total = add("1", 2)\n'
    details = {"diff": diff, "diagnostics": report}
    tools = [StaticTool("edit", EditArgs, {"app.py": "Edited app.py"}, details=details)]
    stream = ScriptedStream(
        reply(tool_call("c1", "edit", {"path": "app.py"})), reply(text("Fixing those next."))
    )
    app = make_app(make_shell(tmp_path, stream, tools=tools))

    async def run_before(pilot: Any) -> None:
        await _send(pilot, "Change the greeting.")
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def _problem(line: int, column: int, severity: str, message: str) -> dict[str, Any]:
    return {
        "path": "app.py",
        "line": line,
        "column": column,
        "severity": severity,
        "message": message,
    }
