"""Which rules join a tool result: once per context, again after compaction, from grep's files,
never for a failed call or a file outside the project."""

from __future__ import annotations

from pathlib import Path

from agent_core import Message, TextContent, ToolResultMessage, UserMessage
from pi_cli.shell.memory._scoped import MAX_RULES_PER_RESULT, ScopedRules, touched
from pi_cli.shell.prompt.rules import Rule, RuleSet


def _rules(root: Path, count: int = 1) -> RuleSet:
    rules = [
        Rule(root / f".pi/rules/r{i}.md", f"Rule {i}.", ("src/**/*.py",)) for i in range(count)
    ]
    return RuleSet(rules=rules, root=root, trusted=True)


def _result(text: str) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id="c", tool_name="read", content=[TextContent(text=text)])


def test_once_per_context_and_again_after_compaction(tmp_path: Path) -> None:
    scoped = ScopedRules(lambda: _rules(tmp_path), tmp_path)
    messages: list[Message] = [UserMessage(content="go")]
    first = scoped.text_for("read", {"path": "src/a/b.py"}, [], messages)
    assert first is not None and first.startswith(f"[pi: rule {tmp_path / '.pi/rules/r0.md'}]")
    assert "src/a/b.py" in first and "Rule 0." in first
    # a parallel call of the same batch: the result is not in the context yet, still not again
    assert scoped.text_for("edit", {"path": str(tmp_path / "src/c.py")}, [], messages) is None
    messages.append(_result("file text\n\n" + first))
    assert scoped.text_for("write", {"path": "src/d.py"}, [], messages) is None
    compacted: list[Message] = [UserMessage(content="summary of earlier work")]
    again = scoped.text_for("read", {"path": "src/e.py"}, [], compacted)
    assert again is not None and "Rule 0." in again


def test_grep_files_outside_paths_and_the_cap(tmp_path: Path) -> None:
    scoped = ScopedRules(lambda: _rules(tmp_path, MAX_RULES_PER_RESULT + 2), tmp_path)
    grep = [TextContent(text="README.md:3: x\nsrc/m.py:10: def f():\nsrc/m.py-11- pass\n")]
    context: list[Message] = []
    text = scoped.text_for("grep", {"pattern": "f"}, grep, context)
    assert text is not None and text.count("[pi: rule ") == MAX_RULES_PER_RESULT
    rest = scoped.text_for("read", {"path": "src/m.py"}, [], context)
    assert rest is not None and rest.count("[pi: rule ") == 2
    assert scoped.text_for("read", {"path": "/etc/passwd"}, [], []) is None
    assert scoped.text_for("bash", {"command": "cat src/m.py"}, [], []) is None
    assert touched("read", {"path": 7}, [], tmp_path) == []
    assert touched("read", {"path": "@src/x.py"}, [], tmp_path) == [tmp_path / "src/x.py"]
