"""CLAUDE.md / AGENTS.md ``@path`` imports: nested, cyclic, literal, and hostile ones refused."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.prompt._context_files import load_context
from pi_cli.shell.prompt._context_imports import MAX_IMPORT_BYTES, MAX_TOTAL_BYTES, import_tokens
from tests.agent_core.scripted_stream import reply, text
from tests.shell.helpers import make_shell, notices


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def loaded(project: Path) -> tuple[dict[Path, str], list[str]]:
    files, notes = load_context(project)
    return {f.path: f.content for f in files}, notes


async def test_nested_imports_resolve_relative_to_the_importing_file(project: Path) -> None:
    write(project / "CLAUDE.md", "# Rules\nSee @README and @package.json.\n@docs/guide.md\n")
    write(project / "README", "the readme")
    write(project / "package.json", '{"name": "demo"}')
    write(project / "docs" / "guide.md", "Guide. Also @../shared/style.md and @./local.md")
    write(project / "docs" / "local.md", "local to docs")
    write(project / "shared" / "style.md", "tabs, not spaces")
    shell, stream, recorder = make_shell(project, reply(text("ok")))
    order = [f.path for f in shell.sources.context_files]
    assert order == [
        project / "CLAUDE.md",
        project / "README",
        project / "package.json",
        project / "docs" / "guide.md",
        project / "shared" / "style.md",
        project / "docs" / "local.md",
    ]
    assert shell.sources.context_files[4].imported_by == project / "docs" / "guide.md"
    await shell.submit("hi")
    prompt = stream.contexts[0].system_prompt
    for content in ("the readme", '"demo"', "tabs, not spaces", "local to docs"):
        assert content in prompt
    assert (
        f"## {project / 'docs' / 'local.md'} (imported by {project / 'docs' / 'guide.md'})"
        in prompt
    )
    assert notices(recorder, "warning") == []


def test_depth_is_limited_to_five_hops_and_cycles_stop(project: Path) -> None:
    write(project / "AGENTS.md", "@d1.md")  # AGENTS.md imports too
    for depth in range(1, 7):
        write(project / f"d{depth}.md", f"level {depth} @d{depth + 1}.md")
    write(project / "a.md", "A imports @b.md")
    write(project / "b.md", "B imports @a.md and @AGENTS.md")
    write(project / "d7.md", "seven @a.md")
    files, notes = loaded(project)
    assert [p.name for p in files] == ["AGENTS.md", "d1.md", "d2.md", "d3.md", "d4.md", "d5.md"]
    assert (
        len(notes) == 1 and "d5.md:1: @d6.md not followed: imports nest deeper than 5" in notes[0]
    )
    write(project / "AGENTS.md", "@a.md")
    files, notes = loaded(project)
    assert [p.name for p in files] == ["AGENTS.md", "a.md", "b.md"] and notes == []


def test_code_and_unresolvable_tokens_stay_literal(project: Path) -> None:
    write(project / "secret-in-code.md", "SHOULD NOT LOAD")
    write(
        project / "CLAUDE.md",
        "Install `@secret-in-code.md` and ``a ` @secret-in-code.md``.\n"
        "```sh\n@secret-in-code.md\n```\n"
        "~~~~\n@secret-in-code.md\n~~~~\n\n"
        "    @secret-in-code.md\n\n"
        "Use @types/node, mail me@example.com or @someone, and @docs (a folder).\n",
    )
    (project / "docs").mkdir()
    files, notes = loaded(project)
    assert list(files) == [project / "CLAUDE.md"] and notes == []
    assert "@types/node" in files[project / "CLAUDE.md"]
    assert import_tokens("x @a.md, y\n`@b` @c\\ d.md") == [(1, "a.md,"), (2, "c\\ d.md")]


def test_hostile_imports_never_reach_the_model(
    project: Path, fake_home: Path, tmp_path: Path
) -> None:
    write(fake_home / ".ssh" / "id_rsa", "-----BEGIN OPENSSH PRIVATE KEY----- SECRET1")
    write(project.parent / ".env", "API_KEY=SECRET2")
    outside = write(tmp_path / "elsewhere" / "notes.md", "SECRET3")
    (project / "innocent.md").symlink_to(outside)
    write(project / "logo.png", b"\x89PNG\r\n\x1a\n\0\0\0SECRET4")
    write(project / "latin1.md", "caf\xe9 SECRET5".encode("latin-1"))
    write(
        project / "CLAUDE.md",
        "@~/.ssh/id_rsa\n@../.env\n@innocent.md\n@logo.png\n@latin1.md\n"
        f"@{outside}\n@/proc/self/environ\n",
    )
    shell, _, recorder = make_shell(project)
    prompt = shell.agent.system_prompt
    for secret in ("SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5"):
        assert secret not in prompt
    warnings = notices(recorder, "warning")
    claude = project / "CLAUDE.md"
    for line, token, reason in [
        (1, "~/.ssh/id_rsa", "outside the project"),
        (2, "../.env", "outside the project"),
        (3, "innocent.md", "outside the project"),
        (4, "logo.png", "binary"),
        (5, "latin1.md", "not UTF-8"),
        (6, str(outside), "outside the project"),
        (7, "/proc/self/environ", "outside the project"),
    ]:
        assert any(
            w.startswith(f"{claude}:{line}: @{token} not followed") and reason in w
            for w in warnings
        ), (line, warnings)
    assert any("trusted" in w for w in warnings)


def test_size_caps_per_import_and_in_total(project: Path) -> None:
    write(project / "big.md", "x" * (MAX_IMPORT_BYTES + 100))
    for index in range(6):
        write(project / f"part{index}.md", "y" * (MAX_IMPORT_BYTES - 10))
    write(project / "CLAUDE.md", "@big.md " + " ".join(f"@part{i}.md" for i in range(6)))
    files, notes = loaded(project)
    big = files[project / "big.md"]
    assert big.count("x") == MAX_IMPORT_BYTES and "Import truncated" in big
    total = sum(len(v.encode()) for k, v in files.items() if k.name != "CLAUDE.md")
    assert total <= MAX_TOTAL_BYTES + 300  # the last import's truncation note
    assert any("big.md cut to" in n for n in notes)
    assert any("KiB in total" in n for n in notes)


def test_global_file_imports_stay_in_pi_home(project: Path, pi_home: Path) -> None:
    write(pi_home / "AGENTS.md", "@prefs.md @../outside.md")
    write(pi_home / "prefs.md", "my prefs")
    write(pi_home.parent / "outside.md", "NOPE")
    files, notes = loaded(project)
    assert files[pi_home / "prefs.md"] == "my prefs"
    assert "NOPE" not in "".join(files.values())
    assert len(notes) == 1 and "outside the project" in notes[0]


async def test_init_writes_agents_md_from_what_the_model_learns(project: Path) -> None:
    from tests.agent_core.scripted_stream import tool_call

    write(project / "pyproject.toml", '[project]\nname = "demo"\n')
    content = "# AGENTS.md\n\nRun tests with `pytest -q`.\n"
    shell, stream, _ = make_shell(
        project,
        reply(tool_call("c1", "read", {"path": "pyproject.toml"})),
        reply(tool_call("c2", "write", {"path": "AGENTS.md", "content": content})),
        reply(text("Wrote AGENTS.md.")),
        tools=["read", "write"],
    )
    assert await shell.submit("/init focus on tests") is not None
    sent = stream.user_texts(0)[-1]
    assert f"write an AGENTS.md file at {project / 'AGENTS.md'}" in sent
    assert sent.endswith("Also: focus on tests")
    assert (project / "AGENTS.md").read_text() == content
    again, stream2, _ = make_shell(project, reply(text("ok")), tools=["read", "write"])
    await again.submit("/init")
    assert "already exists" in stream2.user_texts(0)[-1]
    none, _, _ = make_shell(project, tools=["read"])
    refused = await none.submit("/init")
    assert refused is not None and refused.error and "write tool" in (refused.output or "")
