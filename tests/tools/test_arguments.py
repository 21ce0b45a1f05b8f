"""The built-in tools' arguments as the loop validates them (records on msgspec, not pydantic).

What a model may send: the right thing in JSON's lax forms, and garbage — wrong types, nulls,
huge values, nested junk, unknown keys. Every refusal is one line naming the field.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_core import ToolCall, validate_arguments
from tools import TOOL_FACTORIES, create_tools

PREFIX = "Invalid arguments for tool"


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return {t.name: t for t in create_tools(list(TOOL_FACTORIES), tmp_path_factory.mktemp("w"))}


def check(tool: Any, arguments: dict[str, Any]) -> tuple[Any, str | None]:
    return validate_arguments(tool, ToolCall(id="c1", name=tool.name, arguments=arguments))


def refusal(tool: Any, arguments: dict[str, Any]) -> str:
    args, error = check(tool, arguments)
    assert args is None and error is not None, f"accepted: {args!r}"
    assert "\n" not in error and error.startswith(f"{PREFIX} {tool.name}: ")
    return error.removeprefix(f"{PREFIX} {tool.name}: ")


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("read", {}, "path: required field missing"),
        ("read", {"path": None}, "path: Expected `str`, got `null`"),
        ("read", {"path": 7}, "path: Expected `str`, got `int`"),
        ("read", {"path": ["a"]}, "path: Expected `str`, got `array`"),
        ("read", {"path": "a", "offset": 0}, "offset: Expected `int` >= 1"),
        ("read", {"path": "a", "offset": "ten"}, "offset: Expected `int | null`, got `str`"),
        ("read", {"path": "a", "offset": 2.5}, "offset: Expected `int | null`, got `float`"),
        ("read", {"path": "a", "limit": {"n": 1}}, "limit: Expected `int | null`, got `object`"),
        ("grep", {"pattern": "x", "context": 10**100}, "context: Expected `int` <= 50"),
        (
            "grep",
            {"pattern": "x", "ignore_case": "maybe"},
            "ignore_case: Expected `bool`, got `str`",
        ),
        ("grep", {"pattern": "x", "limit": None}, "limit: Expected `int`, got `null`"),
        ("grep", {"pattern": "x", "limit": True}, "limit: Expected `int`, got `bool`"),
        ("bash", {"command": "ls", "timeout": 0}, "timeout: Expected `float` > 0.0"),
        ("bash", {"command": "ls", "timeout": float("nan")}, "timeout: Expected `float` > 0.0"),
        ("bash", {"command": "ls", "timeout": 10**400}, "timeout: Number out of range"),
        ("edit", {"path": "f", "edits": []}, "edits: Expected `array` of length >= 1"),
        ("edit", {"path": "f", "edits": "old->new"}, "edits: Expected `array`, got `str`"),
        ("edit", {"path": "f", "edits": [None]}, "edits.0: Expected `object`, got `null`"),
        ("edit", {"path": "f", "edits": [[["deep"]]]}, "edits.0: Expected `object`, got `array`"),
        (
            "edit",
            {"path": "f", "edits": [{"old_text": "a", "new_text": "b"}, {"old_text": "a"}]},
            "edits.1.new_text: required field missing",
        ),
        (
            "edit",
            {"path": "f", "edits": [{"old_text": {"nested": [1, {"x": None}]}, "new_text": ""}]},
            "edits.0.old_text: Expected `str`, got `object`",
        ),
        (
            "todo_write",
            {"todos": [{"content": "x", "status": "done"}]},
            "todos.0.status: Invalid enum value 'done'",
        ),
        (
            "todo_write",
            {"todos": [{"content": "x", "status": "pending"}] * 101},
            "todos: Expected `array` of length <= 100",
        ),
        (
            "ask_user",
            {"questions": [{"question": "Q?", "header": "H", "options": [{"label": "a"}] * 2}]},
            "questions.0: a question's option labels must be distinct and not blank",
        ),
        ("web_fetch", {"url": ""}, "url: Expected `str` of length >= 1"),
        (
            "web_search",
            {"query": "abc", "allowed_domains": "a.com"},
            "allowed_domains: Expected `array | null`, got `str`",
        ),
    ],
)
def test_bad_arguments_get_one_line_naming_the_field(
    tools: dict[str, Any], name: str, arguments: dict[str, Any], expected: str
) -> None:
    assert refusal(tools[name], arguments) == expected


def test_a_huge_bad_value_is_not_echoed_whole(tools: dict[str, Any]) -> None:
    status = "x" * 1_000_000
    problem = refusal(tools["todo_write"], {"todos": [{"content": "c", "status": status}]})
    assert problem.startswith("todos.0.status: Invalid enum value 'xxx")
    assert len(problem) < 400 and problem.endswith("…")


def test_lax_json_forms_are_accepted_as_before(tools: dict[str, Any]) -> None:
    args, error = check(tools["read"], {"path": "a", "offset": "5", "limit": 10.0})
    assert error is None and (args.offset, args.limit) == (5, 10)
    args, error = check(tools["grep"], {"pattern": "x", "ignore_case": "true", "literal": 1})
    assert error is None and (args.ignore_case, args.literal) == (True, True)
    args, error = check(tools["bash"], {"command": "ls", "timeout": "1.5"})
    assert error is None and args.timeout == 1.5


def test_huge_but_valid_values_pass(tools: dict[str, Any]) -> None:
    content = "y" * 5_000_000
    args, error = check(tools["write"], {"path": "big.txt", "content": content})
    assert error is None and args.content is content
    args, error = check(tools["read"], {"path": "a", "offset": 10**30})
    assert error is None and args.offset == 10**30


def test_unknown_keys_are_ignored(tools: dict[str, Any]) -> None:
    garbage = {"deep": [[[[{"x": [None] * 1000}]]]], "path": 3}
    args, error = check(tools["ls"], {"path": "src", "recursive": True, "junk": garbage})
    assert error is None and args.path == "src"
    args, error = check(
        tools["todo_write"],
        {"todos": [{"content": "c", "status": "pending", "priority": "high", "id": 3}]},
    )
    assert error is None and args.todos[0].wire() == {"content": "c", "status": "pending"}


def test_camel_case_keys_as_the_schema_names_them(tools: dict[str, Any]) -> None:
    todo = {"content": "Run", "status": "in_progress", "activeForm": "Running"}
    args, error = check(tools["todo_write"], {"todos": [todo]})
    assert error is None and args.todos[0].active_form == "Running"
    question = {"question": "Q?", "header": "H", "multiSelect": True}
    question["options"] = [{"label": "a"}, {"label": "b", "description": "B"}]
    args, error = check(tools["ask_user"], {"questions": [question]})
    assert error is None and args.questions[0].multi_select is True


def test_building_and_validating_the_tools_imports_no_pydantic(tmp_path: Path) -> None:
    # agent_core's messages and events may still load pydantic (their own conversion): what
    # the tools add on top — their import, every spec, validating a call of each — must not.
    probe = f"""
import json, sys
def loaded():
    return {{m for m in sys.modules if m.split(".")[0] in ("pydantic", "pydantic_core")}}
import agent_core
before = loaded()
import tools
from agent_core import ToolCall, tool_spec, validate_arguments
for tool in tools.create_tools(list(tools.TOOL_FACTORIES), {str(tmp_path)!r}):
    tool_spec(tool)
    for arguments in ({{}}, {{"path": "a", "command": "ls", "todos": [], "id": "x"}}):
        validate_arguments(tool, ToolCall(id="c", name=tool.name, arguments=arguments))
print(json.dumps(sorted(loaded() - before)))
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_argument_records_carry_evaluated_annotations(tools: dict[str, Any]) -> None:
    """An argument record's annotations are types, not strings: a module defining one does
    without ``from __future__ import annotations``, so its schema and decoder need no string
    compiled and evaluated at the first request (6.5 -> 3.0 ms for the 17 tools' specs)."""
    import msgspec

    def records(kind: Any, seen: set[type]) -> None:
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct) and kind not in seen:
            seen.add(kind)
            for hint in kind.__annotations__.values():
                assert not isinstance(hint, str), f"{kind.__qualname__}: {hint!r} is a string"
                for inner in [hint, *getattr(hint, "__args__", ())]:
                    records(inner, seen)
                    for deeper in getattr(inner, "__args__", ()):
                        records(deeper, seen)

    seen: set[type] = set()
    for tool in tools.values():
        records(tool.parameters, seen)
    assert len(seen) >= len(tools)
