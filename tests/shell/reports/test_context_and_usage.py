"""/context (what fills the context window) and /usage (this session's and today's spend per
model), in the shell every front end shares, against real session files."""

from __future__ import annotations

import datetime as _dt
import json
import re
from pathlib import Path

from agent_core.messages import Cost, Usage
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.shell.reports.context import context_report
from pi_cli.shell.reports.usage import midnight_ms, table_of_files, todays_files
from tests.agent_core.scripted_stream import ScriptedStream, reply, text


def _usage(input: int, output: int, read: int, write: int, cost: float) -> Usage:
    return Usage(
        input=input, output=output, cache_read=read, cache_write=write, cost=Cost(total=cost)
    )


async def test_context_names_each_part_and_adds_up(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("Use tabs, never spaces.\n" * 400)  # ~2.4k tokens
    stream = ScriptedStream(reply(text("hi"), usage=_usage(9000, 50, 0, 0, 0.01)))
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=stream, persist_session=False))
    await shell.submit("hello")
    report = context_report(shell)
    parts = {part.name: part for part in report.parts}
    assert parts["context files"].note == "AGENTS.md"
    assert 2300 < parts["context files"].tokens < 2500
    assert parts["tools"].note == f"{len(shell.tools)} tools" and parts["tools"].tokens > 500
    fixed = sum(parts[n].tokens for n in ("system prompt", "context files", "skills", "tools"))
    used, window = shell.context_usage()  # the provider's 9,050 and the estimate after it
    assert parts["messages"].tokens == used - fixed and report.used == used
    assert report.window == window
    result = await shell.submit("/context")
    assert result is not None and not result.error
    lines = result.output.splitlines()
    assert lines[0] == f"Context: {used / 1000:.1f}k of {window // 1000}k tokens (7%)"
    row = next(line for line in lines if line.strip().startswith("context files"))
    assert re.search(r"█░+ +2\.\dk  AGENTS\.md$", row)  # a bar, its count and its files
    free = next(line for line in lines if line.strip().startswith("free"))
    assert free.count("█") >= 27  # most of the window is free
    assert report.wire()["free"] == window - used
    await shell.aclose()


async def test_usage_counts_this_session_and_today_per_model_from_the_files(
    tmp_path: Path, pi_home: Path
) -> None:
    """Two projects' sessions today, an answer from yesterday, a damaged line and a sub-agent's
    reported usage: each counted where it belongs."""
    other = tmp_path / "other"
    other.mkdir()
    earlier = CodingAgent(
        ShellOptions(
            cwd=other,
            stream_fn=ScriptedStream(reply(text("a"), usage=_usage(1000, 100, 3000, 0, 0.02))),
        )
    )
    await earlier.submit("first")
    await earlier.aclose()
    assert earlier.session.path is not None
    yesterday = midnight_ms() - 3_600_000
    with earlier.session.path.open("a", encoding="utf-8") as handle:
        handle.write('{"type":"message","message":{"role":"assistant","usa\n')  # damaged
        old = {
            "role": "assistant",
            "provider": "openai",
            "model": "gpt-old",
            "content": [],
            "timestamp": yesterday,
            "usage": {"input": 5, "output": 5, "cacheRead": 0, "cacheWrite": 0,
                      "cost": {"total": 9.0}},
        }  # fmt: skip
        handle.write(json.dumps({"type": "message", "message": old}) + "\n")
    project = tmp_path / "project"
    project.mkdir()
    stream = ScriptedStream(
        reply(text("b"), usage=_usage(200, 20, 800, 0, 0.005)),
        reply(text("c"), usage=_usage(100, 10, 900, 0, 0.004)),
    )
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=stream))
    await shell.submit("one")
    await shell.submit("two")
    result = await shell.submit("/usage")
    assert result is not None
    text_ = result.output
    session, today = text_.split("\n\n")
    assert session.splitlines()[0] == "This session (2 answers):"
    row = session.splitlines()[1]
    assert "scripted/scripted-model" in row and "↑   300 ↓    30" in row
    assert "cache   1.7k read  85% hit  $0.009" in row  # 1,700 of 2,000 input tokens
    assert today.splitlines()[0] == "Today (3 answers):"
    assert "gpt-old" not in today  # yesterday's
    total = next(line for line in today.splitlines() if line.strip().startswith("scripted/"))
    assert "↑  1.3k ↓   130" in total and "$0.029" in total
    # Only files changed today are read.
    assert sorted(todays_files(midnight_ms())) == sorted([earlier.session.path, shell.session.path])
    assert table_of_files([earlier.session.path]).rows.keys() == {
        "scripted/scripted-model",
        "openai/gpt-old",
    }
    await shell.aclose()


def test_midnight_is_local_midnight() -> None:
    now = _dt.datetime(2026, 3, 4, 15, 30, tzinfo=_dt.timezone(_dt.timedelta(hours=2)))
    assert midnight_ms(now) == int(
        _dt.datetime(2026, 3, 4, tzinfo=_dt.timezone(_dt.timedelta(hours=2))).timestamp() * 1000
    )
