"""System prompt assembly and context-file discovery."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pi_cli.shell.prompt._context_files import load_context_files, read_prompt_override
from pi_cli.shell.prompt.system import build_system_prompt


def test_context_files_from_home_and_ancestors(tmp_path: Path, pi_home: Path) -> None:
    (pi_home / "AGENTS.md").write_text("global rules")
    project = tmp_path / "proj"
    sub = project / "sub"
    sub.mkdir(parents=True)
    (project / "CLAUDE.md").write_text("project rules")
    (sub / "AGENTS.md").write_text("sub rules")
    (sub / "CLAUDE.md").write_text("ignored: AGENTS.md wins in the same directory")
    files = load_context_files(sub)
    assert [f.content for f in files] == ["global rules", "project rules", "sub rules"]


def test_prompt_lists_tools_context_date_and_cwd(tmp_path: Path, pi_home: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Always run the tests.")
    from tools import create_tools

    tools = create_tools(["read", "bash"], tmp_path)  # each tool words its own line and guideline
    prompt = build_system_prompt(
        cwd=tmp_path,
        tools=tools,
        context_files=load_context_files(tmp_path),
        today=dt.date(2026, 1, 2),
    )
    assert f"- read: {tools[0].summary}" in prompt and f"- bash: {tools[1].summary}" in prompt
    assert "Use read to look at files" in prompt and str(tools[1].guideline) in prompt
    assert f"## {tmp_path / 'AGENTS.md'}" in prompt and "Always run the tests." in prompt
    assert prompt.rstrip().endswith(
        f"Current date: 2026-01-02\nCurrent working directory: {tmp_path}"
    )


def test_custom_and_appended_prompts(tmp_path: Path, pi_home: Path) -> None:
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "SYSTEM.md").write_text("You are a pirate.")
    (pi_home / "APPEND_SYSTEM.md").write_text("Say arr.")
    custom = read_prompt_override(tmp_path, "SYSTEM.md")
    append = read_prompt_override(tmp_path, "APPEND_SYSTEM.md")
    prompt = build_system_prompt(cwd=tmp_path, tools=[], custom_prompt=custom, append_prompt=append)
    assert prompt.startswith("You are a pirate.")
    assert "Say arr." in prompt
    assert "Available tools" not in prompt
