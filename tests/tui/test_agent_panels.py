"""Pilot tests: the todo panel (live, toggled by its key, back on resume) and sub-agent panels
nested in their task call with their own live turns (two children in parallel)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.tui.document.rows import Block
from pi_cli.tui.document.subagent import SubagentPanel
from pi_cli.tui.document.tool import ToolBlock
from pi_cli.tui.document.turn import TurnBlock
from pi_cli.tui.widgets.todo_panel import TodoPanel
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.tui.helpers import SIZE, blocks_of, make_app, make_project, type_text, wait_until
from tests.tui.screen_text import screen_text

PLAN = [
    {"content": "Read the code", "status": "completed"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    {"content": "Run the tests", "status": "pending"},
]


def _shell(project: Path, server: FakeProviderServer, **options: Any) -> CodingAgent:
    """A shell on the fake server with the real tools (``options``: more ShellOptions)."""
    options.setdefault("persist_session", False)
    return CodingAgent(
        ShellOptions(
            cwd=project,
            model="openai/fake",
            api_base=server.openai_base_url,
            api_key="x",
            **options,
        )
    )


async def test_the_todo_panel_shows_the_list_live_and_toggles(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    write = ToolCallSpec("todo_write", {"todos": PLAN}, id="w1")
    with FakeProviderServer([Turn(tool_calls=[write]), Turn(text="on it")]) as server:
        app = make_app(_shell(project, server))
        async with app.run_test(size=SIZE) as pilot:
            await type_text(pilot, "fix it")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.is_settled and bool(app.query(TodoPanel)))
            await pilot.pause()
            panel = app.query_one(TodoPanel)
            assert panel.items == [
                ("completed", "Read the code"),
                ("in_progress", "Fixing the bug"),
                ("pending", "Run the tests"),
            ]
            assert panel.display and panel.has_class("-shown")
            text = str(panel.render())
            assert "Todo 1/3" in text and "▸ Fixing the bug" in text and "○ Run the tests" in text
            await pilot.press("alt+l")
            await pilot.pause()
            assert not panel.display
            await pilot.press("alt+l")
            await pilot.pause()
            assert panel.display


async def test_a_resumed_sessions_list_is_shown_at_start(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    write = ToolCallSpec("todo_write", {"todos": PLAN}, id="w1")
    with FakeProviderServer([Turn(tool_calls=[write]), Turn(text="ok")]) as server:
        first = _shell(project, server, persist_session=True)
        await first.submit("plan")
        await first.wait_idle()
        await first.aclose()
        resumed = _shell(project, server, continue_session=True, persist_session=True)
        app = make_app(resumed)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: bool(app.query(TodoPanel)))
            assert app.query_one(TodoPanel).items[1] == ("in_progress", "Fixing the bug")


async def test_sub_agents_are_nested_panels_with_their_own_turns(tmp_path: Path) -> None:
    project = make_project(tmp_path)

    def task(call_id: str, prompt: str) -> ToolCallSpec:
        return ToolCallSpec("task", {"description": f"job {call_id}", "prompt": prompt}, id=call_id)

    ls = ToolCallSpec("ls", {}, id="c1")
    routes = {
        "CHILD-A": [
            Turn(tool_calls=[ls]),
            Turn(text="A: **two** files", chunk_size=2, chunk_delay_s=0.1),
        ],
        "CHILD-B": [Turn(text="B: hello")],
    }
    script = [Turn(tool_calls=[task("t1", "CHILD-A: list"), task("t2", "CHILD-B: name")])]
    script.append(Turn(text="Both done."))
    with FakeProviderServer(script, routes=routes) as server:
        app = make_app(_shell(project, server, tools=["read", "ls", "task"]))
        async with app.run_test(size=SIZE) as pilot:
            await type_text(pilot, "split it")
            await pilot.press("enter")

            def live_child_turn() -> bool:
                return any(p.live and p.turns for p in blocks_of(app, SubagentPanel))

            await wait_until(pilot, live_child_turn)  # drawn while the child still runs
            await wait_until(pilot, lambda: app.is_settled and len(app.transcript.turns) == 2)
            await pilot.pause()
            panels = {p.task_id: p for p in blocks_of(app, SubagentPanel)}
            assert set(panels) == {"t1", "t2"}
            a, b = panels["t1"], panels["t2"]
            for task_id, panel in panels.items():  # each inside its own task call's block
                assert isinstance(panel.parent, ToolBlock) and panel.parent.call_id == task_id
            assert [t.number for t in a.turns] == [1, 2] and [t.number for t in b.turns] == [1]
            assert a.turns[1].text == "A: **two** files"
            assert [blk.tool_name for blk in a.walk() if isinstance(blk, ToolBlock)] == ["ls"]
            assert a.collapsed and b.collapsed  # folded once done, with a summary title
            assert "2 turns" in str(a.title) and "$0.000 ·" in str(a.title)  # the footer's form
            assert not a.live
            screen = screen_text(app)
            assert "⤷" in screen and "Both done." in screen
            # The summary is drawn once: in the panel's title, not again as the result's trailer.
            assert "[agent " not in screen, screen
            title = next(line for line in screen.splitlines() if "⤷" in line and "2 turns" in line)
            assert "$0.0000" not in title and "↑" in title, title
            # The parent's own turns are not counted with the children's.
            assert [p.number for p in app.transcript.turns] == [1, 2]
            top = [p for p in blocks_of(app, TurnBlock) if not _inside(p, SubagentPanel)]
            assert len(top) == 2


def _inside(block: Block, kind: type[Block]) -> bool:
    node = block.parent
    while node is not None:
        if isinstance(node, kind):
            return True
        node = node.parent
    return False


async def test_a_sub_agents_running_tool_spins_and_counts_its_time(tmp_path: Path) -> None:
    from pi_cli.shell.config.settings import Settings
    from pi_cli.tui.document.tool import SPINNER

    project = make_project(tmp_path)
    gate = project / "gate"
    wait = ToolCallSpec("bash", {"command": "until [ -e gate ]; do sleep 0.05; done"}, id="b1")
    routes = {"CHILD": [Turn(tool_calls=[wait]), Turn(text="Child finished.")]}
    task = ToolCallSpec("task", {"description": "wait", "prompt": "CHILD: wait"}, id="t1")
    script = [Turn(tool_calls=[task]), Turn(text="All done.")]
    settings = Settings.model_validate({"sandbox": {"mode": "off"}})
    with FakeProviderServer(script, routes=routes) as server:
        shell = _shell(
            project,
            server,
            tools=["bash", "task"],
            settings=settings,
            permission_mode="bypassPermissions",
        )
        app = make_app(shell)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await type_text(pilot, "delegate")
                await pilot.press("enter")
                await wait_until(pilot, lambda: "$ until" in screen_text(app), timeout=20)
                await wait_until(pilot, lambda: "⤷" in screen_text(app))
                app.tick()
                await pilot.pause()
                # The last such row is the child's own tool block (above: the task's progress).
                row = [r for r in screen_text(app).splitlines() if "$ until" in r][-1]
                assert "⚙" not in row and any(glyph in row for glyph in SPINNER), row
                assert " · " in row and row.rstrip().endswith("s"), row  # its elapsed time
                gate.touch()
                await wait_until(pilot, lambda: app.is_settled, timeout=20)
                assert "All done." in screen_text(app)
        finally:
            gate.touch()
            await shell.aclose()
