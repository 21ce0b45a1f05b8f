"""Tools own their presentation: titles, guidelines and file effects, for any arguments.

Titles and effects are computed from raw argument dicts, which may still be streaming in or be
plain wrong (the model's mistake): they must give a sensible one-liner and never raise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from agent_core import FileEffect, ToolBase, ToolResult, first_line
from agent_core.tool import TITLE_LIMIT
from tests.tools._helpers import run
from tools import TOOL_FACTORIES, EditDetails, create_tools

TOOLS = {name: factory(".") for name, factory in TOOL_FACTORIES.items()}

# The guideline each tool contributes to the system prompt, word for word.
GUIDELINES = {
    "read": "Use read to look at files before you change or explain them; prefer it over "
    "cat/sed in bash.",
    "edit": "Use edit for precise changes: old_text must match the file exactly (include "
    "enough context to be unique).",
    "write": "Use write only for new files or complete rewrites.",
    "bash": "Use bash for running programs, tests, git and file operations such as ls, mkdir, mv; "
    "start servers and watchers with background: true.",
    "bash_output": "Use bash_output to check on a background shell instead of sleeping in bash.",
    "bash_kill": "Use bash_kill to stop background shells you no longer need.",
    "grep": "Use grep to search file contents (respects .gitignore) instead of grep/rg in bash.",
    "find": "Use find to locate files by glob pattern instead of find in bash.",
    "ls": "Use ls to list a directory.",
    "web_fetch": "Use web_fetch to read documentation or pages the user points you to; page "
    "through long ones with offset instead of fetching again.",
    "web_search": "Use web_search for current information or to find pages, then web_fetch the "
    "ones worth reading; cite the URLs you rely on.",
    "todo_write": "For work with several steps, keep a plan with todo_write: mark one item "
    "in_progress when you start it and completed as soon as it is done; skip it for a single "
    "quick task.",
    "task": "Use task for broad searches or independent sub-tasks whose details you do not need "
    "in your context; several task calls in one response run in parallel.",
    "exit_plan_mode": "In plan mode, research read-only, then call exit_plan_mode with your "
    "plan; implement only after the user approves it.",
    "monitor": "Use monitor to watch a dev server, a log or a test watcher and react to what it "
    "prints (a pattern keeps only the lines that matter), instead of polling with bash_output or "
    "sleep loops.",
    "monitor_stop": "Use monitor_stop when you no longer need a monitor's lines.",
    "ask_user": "Use ask_user when you need the user's decision (a preference, an ambiguous "
    "requirement, a choice between approaches) rather than guessing; not for things you can "
    "find out yourself.",
}

HOSTILE_ARGS: list[dict[str, Any]] = [
    {},
    {"path": 42, "command": 7, "pattern": None, "content": b"x", "edits": "many"},
    {"path": ["a", "b"], "offset": "ten", "limit": -3, "glob": {"x": 1}, "ignore_case": "yes"},
    {"path": "", "command": "", "pattern": "   "},
    {"path": "a\nb" * 500, "command": "x" * 100_000, "pattern": "\n\n", "edits": [1, 2, 3]},
]


@pytest.mark.parametrize(
    ("name", "args", "title"),
    [
        ("bash", {"command": "ls -la"}, "$ ls -la"),
        ("bash", {"command": "  cd src\n  make test\n"}, "$ cd src…"),
        ("bash", {"command": "ls", "timeout": 5}, "$ ls"),
        ("read", {"path": "src/app.py"}, "src/app.py"),
        ("read", {"path": "src/app.py", "offset": 10, "limit": 41}, "src/app.py:10-50"),
        ("read", {"path": "src/app.py", "offset": 10}, "src/app.py:10"),
        ("read", {"path": "src/app.py", "limit": 20}, "src/app.py:1-20"),
        ("read", {"path": "a.py", "offset": "5", "limit": 1}, "a.py:5-5"),
        ("write", {"path": "notes.md", "content": "one\ntwo\nthree\n"}, "notes.md (3 lines)"),
        ("write", {"path": "notes.md", "content": "one\ntwo"}, "notes.md (2 lines)"),
        ("write", {"path": "n.md", "content": "x"}, "n.md (1 line)"),
        ("write", {"path": "empty.txt", "content": ""}, "empty.txt (0 lines)"),
        ("edit", {"path": "m.py", "edits": [{"old_text": "a", "new_text": "b"}]}, "m.py"),
        ("edit", {"path": "m.py", "edits": [{}, {}, {}]}, "m.py (3 edits)"),
        ("grep", {"pattern": "TODO"}, "/TODO/ in ."),
        ("grep", {"pattern": "todo", "path": "src", "ignore_case": True}, "/todo/i in src"),
        (
            "grep",
            {"pattern": "def \\w+", "path": "src", "glob": "*.py"},
            "/def \\w+/ in src (*.py)",
        ),
        ("find", {"pattern": "src/**/*.py", "path": "src"}, "src/**/*.py in src"),
        ("find", {"pattern": "*.json"}, "*.json in ."),
        ("ls", {"path": "src"}, "src"),
        ("ls", {}, "."),
    ],
)
def test_titles_for_normal_arguments(name: str, args: dict[str, Any], title: str) -> None:
    assert TOOLS[name].title(args) == title


@pytest.mark.parametrize(
    ("name", "args", "title"),
    [
        # Arguments still streaming in: show what has arrived.
        ("bash", {}, "$"),
        ("read", {}, ""),
        ("read", {"path": "src/app.py", "offset": 10, "limit": "4"}, "src/app.py:10-13"),
        ("write", {"path": "big.txt"}, "big.txt"),
        ("edit", {"path": "m.py"}, "m.py"),
        ("grep", {"path": "src"}, "in src"),
        ("find", {"path": "lib", "limit": 5}, "in lib"),
        ("grep", {}, "in ."),
        # Wrong types are ignored, not shown and not fatal.
        ("bash", {"command": ["ls"]}, "$"),
        ("read", {"path": 3, "offset": 10}, ""),
        ("read", {"path": "a.py", "offset": True, "limit": 0}, "a.py"),
        ("write", {"path": "a.txt", "content": 12}, "a.txt"),
        ("edit", {"path": "m.py", "edits": {"a": 1, "b": 2}}, "m.py"),
        ("grep", {"pattern": "x", "path": 9, "glob": 3, "ignore_case": "yes"}, "/x/ in ."),
        ("ls", {"path": False}, "."),
    ],
)
def test_titles_for_partial_or_wrong_arguments(name: str, args: dict[str, Any], title: str) -> None:
    assert TOOLS[name].title(args) == title


@pytest.mark.parametrize("name", sorted(TOOLS))
@pytest.mark.parametrize("args", HOSTILE_ARGS, ids=range(len(HOSTILE_ARGS)))
def test_hostile_arguments_give_one_short_line_and_never_raise(
    name: str, args: dict[str, Any]
) -> None:
    tool = TOOLS[name]
    title = tool.title(args)
    assert isinstance(title, str) and "\n" not in title and len(title) <= TITLE_LIMIT
    effects = tool.file_effects(args)
    assert all(isinstance(e, FileEffect) and isinstance(e.path, str) for e in effects)


def test_a_huge_multi_line_command_is_clipped_to_its_first_line() -> None:
    command = "python - <<'EOF'\n" + "print('x')\n" * 10_000 + "EOF"
    assert TOOLS["bash"].title({"command": command}) == "$ python - <<'EOF'…"
    long = "echo " + "y" * 1000
    title = TOOLS["bash"].title({"command": long})
    assert len(title) == TITLE_LIMIT and title.startswith("$ echo yyy") and title.endswith("…")


def test_a_long_path_keeps_the_line_window_visible() -> None:
    path = "deep/" * 100 + "file.py"
    title = TOOLS["read"].title({"path": path, "offset": 3, "limit": 2})
    assert len(title) == TITLE_LIMIT and title.endswith("…:3-4")
    assert TOOLS["write"].title({"path": path, "content": "a\n"}).endswith("… (1 line)")


@pytest.mark.parametrize(
    ("name", "args", "effects"),
    [
        ("read", {"path": "src/app.py", "offset": 3}, [FileEffect("src/app.py", "read")]),
        ("write", {"path": "/tmp/x.txt", "content": ""}, [FileEffect("/tmp/x.txt", "write")]),
        ("edit", {"path": "m.py", "edits": []}, [FileEffect("m.py", "write")]),
        ("grep", {"pattern": "x", "path": "src"}, [FileEffect("src", "read")]),
        ("grep", {"pattern": "x"}, [FileEffect(".", "read")]),
        ("find", {"pattern": "*.py", "path": ""}, [FileEffect(".", "read")]),
        ("find", {"pattern": "*.py", "path": None}, [FileEffect(".", "read")]),
        ("ls", {}, [FileEffect(".", "read")]),
        ("ls", {"path": "docs"}, [FileEffect("docs", "read")]),
        ("bash", {"command": "cat a.py > b.py"}, []),  # a command's effects are unknown
        # Partial or wrong: no made-up file.
        ("read", {}, []),
        ("read", {"path": 5}, []),
        ("write", {"content": "x"}, []),
        ("edit", {"path": ["m.py"]}, []),
        ("ls", {"path": 1.5}, []),
    ],
)
def test_file_effects(name: str, args: dict[str, Any], effects: list[FileEffect]) -> None:
    assert TOOLS[name].file_effects(args) == effects


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_each_tool_brings_its_guideline_and_a_one_line_summary(name: str) -> None:
    tool = TOOLS[name]
    assert tool.guideline == GUIDELINES[name]
    assert tool.summary and "\n" not in tool.summary


def test_create_tools_returns_the_same_presentation() -> None:
    (read,) = create_tools(["read"], ".")
    assert read.title({"path": "x", "limit": 2}) == "x:1-2" and read.guideline == GUIDELINES["read"]


async def test_edit_details_are_a_plain_dict_that_reads_back_as_edit_details(
    tmp_path: Path,
) -> None:
    (tmp_path / "m.py").write_text("a = 1\nb = 2\n")
    result = await run(
        TOOL_FACTORIES["edit"](tmp_path),
        path="m.py",
        edits=[{"old_text": "b = 2", "new_text": "b = 3"}],
    )
    assert isinstance(result.details, dict)
    assert set(result.details) == {"diff", "first_changed_line", "path"}
    details = EditDetails.from_details(result.details)
    assert details is not None
    assert details.path == "m.py" and details.first_changed_line == 2
    assert details.diff == result.details["diff"] and "+b = 3\n" in details.diff
    assert EditDetails.from_details({"exit_code": 0}) is None
    assert EditDetails.from_details(None) is None


# ---------------------------------------------------------------------------- ToolBase defaults


class NoteArgs(BaseModel):
    body: str
    tag: str = ""


class NoteTool(ToolBase):
    """A tool that declares nothing but its name, description, parameters and execute."""

    name = "note"
    description = "\n  Keep a note.\nThe second line is detail for the model."
    parameters = NoteArgs

    async def execute(
        self, tool_call_id: str, args: Any, cancel: Any, on_update: Any = None
    ) -> Any:
        return ToolResult.of_text("ok")


def test_tool_base_defaults() -> None:
    tool = NoteTool()
    assert tool.summary == "Keep a note."
    assert tool.guideline is None
    assert tool.file_effects({"body": "x"}) == []
    # The first scalar argument that fits on one line...
    assert tool.title({"body": "remember the milk", "tag": "home"}) == "remember the milk"
    # ...skipping a long or multi-line one when a later one fits...
    assert tool.title({"body": "line one\nline two", "tag": "home"}) == "home"
    assert tool.title({"body": "z" * 300, "count": 3}) == "3"
    # ...else the first one, clipped.
    assert tool.title({"body": "line one\nline two"}) == "line one…"
    assert tool.title({"body": "z" * 300}) == "z" * (TITLE_LIMIT - 1) + "…"
    # Nothing scalar (or nothing at all): no title rather than a crash.
    assert tool.title({"body": ["a"], "flag": True, "none": None}) == ""
    assert tool.title({}) == ""
    assert tool.title("not a mapping") == ""  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("ls", 200, "ls"),
        ("  padded  ", 200, "padded"),
        ("\n\n  second\nthird", 200, "second…"),
        ("abcdef", 4, "abc…"),
        ("abcd", 4, "abcd"),
        ("", 200, ""),
        (" \n \n", 200, ""),
    ],
)
def test_first_line(text: str, limit: int, expected: str) -> None:
    assert first_line(text, limit) == expected
