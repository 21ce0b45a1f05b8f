"""grep, find and ls on a real tree with a .gitignore (not a git repository)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from agent_core import AbortSignal, ToolError, tool_spec
from tests.tools._helpers import run
from tools import (
    DEFAULT_TOOL_NAMES,
    TOOL_FACTORIES,
    _rg,
    create_find_tool,
    create_grep_tool,
    create_ls_tool,
    create_tools,
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """src/ with code, ignored build/ and *.log, a dotfile, a .git dir and a unicode name."""
    (tmp_path / ".gitignore").write_text("build/\n*.log\n")
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "main.py").write_text("import os\n\ndef main():\n    return TODO_marker\n")
    (tmp_path / "src" / "pkg" / "util.py").write_text(
        "def helper():\n    pass  # todo_marker here\n"
    )
    (tmp_path / "src" / "pkg" / "données.txt").write_text("TODO_marker in unicode file\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "gen.py").write_text("TODO_marker generated\n")
    (tmp_path / "debug.log").write_text("TODO_marker log\n")
    (tmp_path / ".env").write_text("SECRET=TODO_marker\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("TODO_marker in git internals\n")
    return tmp_path


async def test_grep_respects_gitignore_and_formats(tree: Path) -> None:
    result = await run(create_grep_tool(tree), pattern="TODO_marker")
    assert result.text.splitlines() == [
        ".env:1: SECRET=TODO_marker",
        "src/main.py:4:     return TODO_marker",
        "src/pkg/données.txt:1: TODO_marker in unicode file",
    ]
    assert result.details == {"matches": 3, "files": 3}


async def test_grep_options(tree: Path) -> None:
    tool = create_grep_tool(tree)
    insensitive = await run(tool, pattern="todo_MARKER", ignore_case=True, glob="*.py")
    assert [line.split(":")[0] for line in insensitive.text.splitlines()] == [
        "src/main.py",
        "src/pkg/util.py",
    ]
    literal = await run(tool, pattern="main()", literal=True)
    assert literal.text == "src/main.py:3: def main():"
    in_dir = await run(tool, pattern="def", path="src/pkg")
    assert in_dir.text.startswith("src/pkg/util.py:1: def helper():")
    in_file = await run(tool, pattern="import", path=str(tree / "src" / "main.py"))
    assert in_file.text == "src/main.py:1: import os"


async def test_grep_context_lines(tree: Path) -> None:
    result = await run(create_grep_tool(tree), pattern="return", context=1, path="src/main.py")
    assert result.text.splitlines() == [
        "src/main.py-3- def main():",
        "src/main.py:4:     return TODO_marker",
    ]


async def test_grep_no_matches_is_not_an_error(tree: Path) -> None:
    result = await run(create_grep_tool(tree), pattern="nothing_matches_this")
    assert result.text == "No matches found"


async def test_grep_limit_and_long_lines(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("".join(f"hit {i}\n" for i in range(50)))
    (tmp_path / "long.txt").write_text("needle " + "z" * 2000 + "\n")
    tool = create_grep_tool(tmp_path)
    limited = await run(tool, pattern="hit", limit=10)
    assert len(limited.text.split("\n\n")[0].splitlines()) == 10
    assert (
        "[10 matches limit reached. Use limit=20 for more, or refine the pattern]" in limited.text
    )
    long = await run(tool, pattern="needle")
    first = long.text.splitlines()[0]
    assert first.endswith("... [truncated]") and len(first) < 540
    assert "Some lines truncated to 500 chars" in long.text


async def test_grep_errors(tree: Path) -> None:
    tool = create_grep_tool(tree)
    with pytest.raises(ToolError, match="grep failed: .*regex parse error"):
        await run(tool, pattern="(unclosed")
    with pytest.raises(ToolError, match="Path not found: nope"):
        await run(tool, pattern="x", path="nope")


async def test_find_glob_respects_gitignore(tree: Path) -> None:
    tool = create_find_tool(tree)
    result = await run(tool, pattern="*.py")
    assert result.text.splitlines() == ["src/main.py", "src/pkg/util.py"]
    hidden = await run(tool, pattern=".*")
    assert hidden.text.splitlines() == [".env", ".gitignore"]
    nested = await run(tool, pattern="pkg/*", path="src")
    assert nested.text.splitlines() == ["src/pkg/données.txt", "src/pkg/util.py"]


async def test_find_limit_none_and_errors(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"f{i:02}.txt").write_text("")
    tool = create_find_tool(tmp_path)
    limited = await run(tool, pattern="*.txt", limit=5)
    assert len(limited.text.split("\n\n")[0].splitlines()) == 5
    assert "[5 results limit reached. Use limit=10 for more, or refine the pattern]" in limited.text
    assert (await run(tool, pattern="*.rs")).text == "No files found matching pattern"
    with pytest.raises(ToolError, match="Path not found"):
        await run(tool, pattern="*", path="missing")
    with pytest.raises(ToolError, match="Not a directory"):
        await run(tool, pattern="*", path="f00.txt")


async def test_ls_sorted_dirs_marked_dotfiles_included(tree: Path) -> None:
    result = await run(create_ls_tool(tree))
    assert result.text.splitlines() == [
        ".env",
        ".git/",
        ".gitignore",
        "build/",
        "debug.log",
        "src/",
    ]
    sub = await run(create_ls_tool(tree), path="src/pkg")
    assert sub.text.splitlines() == ["données.txt", "util.py"]


async def test_ls_limit_empty_and_errors(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for name in ["b", "A", "c", "D"]:
        (tmp_path / name).write_text("")
    tool = create_ls_tool(tmp_path)
    limited = await run(tool, limit=2)
    assert limited.text.startswith("A\nb\n\n[2 entries limit reached (5 total).")
    assert (await run(tool, path="empty")).text == "(empty directory)"
    with pytest.raises(ToolError, match="Path not found"):
        await run(tool, path="nope")
    with pytest.raises(ToolError, match="Not a directory"):
        await run(tool, path="A")


async def test_aborted_signal_refuses_to_start(tmp_path: Path) -> None:
    cancel = AbortSignal()
    cancel.abort()
    for factory in TOOL_FACTORIES.values():
        tool = factory(tmp_path)
        args = {
            "read": {"path": "x"},
            "write": {"path": "x", "content": ""},
            "edit": {"path": "x", "edits": [{"old_text": "a", "new_text": "b"}]},
            "bash": {"command": "true"},
            "bash_output": {"id": "bash_1"},
            "bash_kill": {"id": "bash_1"},
            "grep": {"pattern": "x"},
            "find": {"pattern": "*"},
            "ls": {},
            "web_fetch": {"url": "https://example.com/"},
            "web_search": {"query": "anything"},
            "todo_write": {"todos": []},
            "task": {"description": "x", "prompt": "y"},
            "exit_plan_mode": {"plan": "p"},
            "monitor": {"command": "true", "description": "x"},
            "monitor_stop": {"id": "bash_1"},
            "ask_user": {
                "questions": [
                    {"question": "q?", "header": "h", "options": [{"label": "a"}, {"label": "b"}]}
                ]
            },
        }[tool.name]
        with pytest.raises(ToolError, match="Abort"):
            await run(tool, cancel=cancel, **args)


def test_registry_and_create_tools(tmp_path: Path) -> None:
    assert set(TOOL_FACTORIES) == {
        *("read", "write", "edit", "bash", "bash_output", "bash_kill", "grep", "find", "ls"),
        *("monitor", "monitor_stop"),
        *("web_fetch", "web_search", "todo_write", "task", "exit_plan_mode", "ask_user"),
    }
    assert DEFAULT_TOOL_NAMES == [
        *("read", "bash", "bash_output", "bash_kill", "edit", "write"),
        *("web_fetch", "todo_write", "task", "exit_plan_mode", "ask_user", "monitor"),
        "monitor_stop",
    ]
    tools = create_tools(["ls", "read"], tmp_path)
    assert [tool.name for tool in tools] == ["ls", "read"]
    for tool in create_tools(list(TOOL_FACTORIES), tmp_path):
        assert tool.summary and "\n" not in tool.summary
        schema = tool_spec(tool).parameters
        assert all(field.get("description") for field in schema["properties"].values())
    with pytest.raises(ValueError, match="Unknown tool.*nope.*Valid tools: read, bash"):
        create_tools(["read", "nope"], tmp_path)


def test_rg_found_next_to_interpreter_then_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_rg, "_RG", None)
    found = _rg.find_rg()
    assert Path(found).parent == Path(sys.executable).parent
    # No rg anywhere: a clear error naming the package.
    monkeypatch.setattr(_rg, "_RG", None)
    monkeypatch.setattr(_rg.sysconfig, "get_path", lambda _name: str(tmp_path))
    monkeypatch.setattr(_rg.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ToolError, match="pip install ripgrep"):
        _rg.find_rg()
    monkeypatch.setattr(_rg, "_RG", None)


def test_tools_import_stays_light() -> None:
    import subprocess

    probe = "import sys, tools; print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ},
    )
    assert (
        set(out.stdout.split()) & {"pi_cli", "textual", "rich", "typer", "litellm", "httpx"}
        == set()
    )
