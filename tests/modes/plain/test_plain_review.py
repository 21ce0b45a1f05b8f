"""``/review`` and ``/diff`` in the plain REPL: the same shell commands, printed."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.modes.plain.harness import ENTER, plain_repl
from tests.shell.review.conftest import commit, git, require_git, write


async def test_review_prints_the_findings(tmp_path: Path) -> None:
    require_git()
    work = tmp_path / "project"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    write(work, {"calc.py": "def last(xs):\n    return xs[len(xs) - 1]\n"})
    commit(work, "start")
    write(work, {"calc.py": "def last(xs):\n    return xs[len(xs)]\n"})
    found = {"file": "calc.py", "startLine": 2, "endLine": 2, "severity": "high",
             "title": "Index past the end", "explanation": "xs[len(xs)] raises IndexError."}  # fmt: skip
    stream = ScriptedStream(reply(text(json.dumps({"summary": "One bug.", "findings": [found]}))))
    async with plain_repl(tmp_path, stream) as h:
        h.send("/review --focus correctness" + ENTER)
        await h.until(lambda: "Index past the end" in h.output, what="/review's report")
        assert "1. [high] calc.py:2  Index past the end" in h.output
        assert "Review of uncommitted changes" in h.output
        assert h.shell.messages == ()  # the user's conversation is untouched
        h.send("/diff" + ENTER)
        await h.until(
            lambda: "everything this session changed" in h.output or "No snapshot" in h.output
        )
