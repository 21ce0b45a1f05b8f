"""Skills (discovery, validation, system prompt, /skill:) and prompt templates (arguments)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_cli.shell.prompt._templates import expand_template
from pi_cli.shell.prompt.frontmatter import parse_document
from tests.agent_core.scripted_stream import reply, text
from tests.shell.helpers import make_shell, notices


def write_skill(
    root: Path, dir_name: str, frontmatter: str, body: str = "Follow these steps."
) -> Path:
    path = root / dir_name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{frontmatter}\n---\n{body}\n")
    return path


def test_skills_discovered_from_every_location_and_invalid_ones_reported(
    project: Path, pi_home: Path, fake_home: Path, tmp_path: Path
) -> None:
    sub = project / "pkg" / "sub"
    sub.mkdir(parents=True)
    write_skill(pi_home / "skills", "user-skill", "name: user-skill\ndescription: From PI_HOME.")
    write_skill(
        fake_home / ".agents" / "skills",
        "agents-skill",
        "name: agents-skill\ndescription: From ~/.agents.",
    )
    write_skill(
        project / ".pi" / "skills", "root-skill", "name: root-skill\ndescription: At the git root."
    )
    write_skill(
        sub / ".agents" / "skills", "nested", "name: nested\ndescription: 'In cwd, quoted: yes'"
    )
    extra = write_skill(
        tmp_path / "elsewhere", "cli-skill", "name: cli-skill\ndescription: Given with --skill."
    )
    bad_name = write_skill(project / ".pi" / "skills", "Bad_Name", "name: Bad_Name\ndescription: x")
    mismatch = write_skill(project / ".pi" / "skills", "dir-a", "name: other\ndescription: x")
    no_desc = write_skill(project / ".pi" / "skills", "no-desc", "name: no-desc")
    long_desc = write_skill(
        project / ".pi" / "skills", "long-desc", f"name: long-desc\ndescription: {'x' * 1025}"
    )
    long_name = "a" * 65
    too_long = write_skill(
        project / ".pi" / "skills", long_name, f"name: {long_name}\ndescription: x"
    )
    # Outside the git root: never read.
    write_skill(
        project.parent / ".pi" / "skills", "outside", "name: outside\ndescription: Above the repo."
    )

    shell, _, recorder = make_shell(sub, skill_paths=[str(extra.parent)])

    names = sorted(s.name for s in shell.sources.skills)
    # pi's rules: a bad name or a long description is a warning, a missing description skips.
    assert names == [
        "Bad_Name",
        long_name,
        "agents-skill",
        "cli-skill",
        "long-desc",
        "nested",
        "other",
        "root-skill",
        "user-skill",
    ]
    warnings = "\n".join(notices(recorder, "warning"))
    for path, problem in [
        (bad_name, "name contains invalid characters"),
        (mismatch, 'name "other" does not match parent directory "dir-a"'),
        (no_desc, "description is required (skipped)"),
        (long_desc, "description exceeds 1024 characters (1025) (loaded anyway)"),
        (too_long, "name exceeds 64 characters (65)"),
    ]:
        assert f"{path}: {problem}" in warnings
    prompt = shell.agent.system_prompt
    assert "<available_skills>" in prompt
    assert (
        "<name>nested</name>" in prompt
        and "<description>In cwd, quoted: yes</description>" in prompt
    )
    assert f"<location>{extra}</location>" in prompt
    assert "outside" not in prompt


def test_skills_block_needs_the_read_tool(project: Path) -> None:
    write_skill(project / ".pi" / "skills", "helper", "name: helper\ndescription: Helps.")
    shell, _, _ = make_shell(project, tools=["bash"])
    assert [s.name for s in shell.sources.skills] == ["helper"]
    assert "<available_skills>" not in shell.agent.system_prompt
    assert shell.commands.get("skill:helper") is not None


async def test_skill_command_injects_body_and_args(project: Path) -> None:
    path = write_skill(
        project / ".pi" / "skills",
        "deploy",
        "name: deploy\ndescription: Deploy the app.",
        body="# Deploy\nRun ./deploy.sh in staging first.",
    )
    shell, stream, _ = make_shell(project, reply(text("deploying")))
    await shell.submit("/skill:deploy to production now")
    sent = stream.user_texts(0)[-1]
    assert sent.startswith(
        f'<skill name="deploy" location="{path}">\n'
        f"References are relative to {path.parent}.\n\n# Deploy\nRun ./deploy.sh"
    )
    assert sent.endswith("</skill>\n\nto production now")
    assert "name: deploy" not in sent  # frontmatter stripped
    assert "/skill:deploy" in (await shell.submit("/help")).output


async def test_templates_expand_arguments(project: Path, pi_home: Path) -> None:
    (pi_home / "prompts").mkdir()
    (pi_home / "prompts" / "audit.md").write_text("Global review of $1")
    (pi_home / "prompts" / "explain.md").write_text("Explain $ARGUMENTS simply.\nMore text.")
    prompts = project / ".pi" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "audit.md").write_text(
        "---\ndescription: Review a file\n---\nReview $1 for $2. All: $@. Rest: ${@:2}. Pair: ${@:2:2}. Missing: [$5]"
    )
    shell, stream, _ = make_shell(project, reply(text("a")), reply(text("b")))
    assert shell.commands.get("audit").description == "Review a file"
    assert shell.commands.get("explain").description == "Explain $ARGUMENTS simply."
    await shell.submit('/audit "src/my file.py" "race conditions" extra \'$1\'')
    assert stream.user_texts(0)[-1] == (
        "Review src/my file.py for race conditions. All: src/my file.py race conditions extra $1. "
        "Rest: race conditions extra $1. Pair: race conditions extra. Missing: []"
    )
    await shell.submit("/explain monads")
    assert stream.user_texts(1)[-1] == "Explain monads simply.\nMore text."


@pytest.mark.parametrize(
    ("body", "args", "expected"),
    [
        ("$1-$2", ["a"], "a-"),
        ("${@:1}", ["a", "b"], "a b"),
        ("${@:3}", ["a", "b"], ""),
        ("$ARGUMENTS|$@", ["x y"], "x y|x y"),
        ("$10", [str(i) for i in range(1, 11)], "10"),
    ],
)
def test_expand_template_cases(body: str, args: list[str], expected: str) -> None:
    assert expand_template(body, args) == expected


def test_frontmatter_block_scalars() -> None:
    doc = parse_document(
        "---\nname: x\ndescription: |\n  line one\n  line two\nmetadata:\n  k: v\n---\nBody"
    )
    assert doc.fields["description"] == "line one\nline two\n"  # YAML's clip chomping
    assert doc.fields["metadata"] == {"k": "v"}
    assert doc.body == "Body"


async def test_template_cannot_replace_a_builtin(project: Path) -> None:
    prompts = project / ".pi" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "help.md").write_text("Not the help command")
    shell, _, recorder = make_shell(project)
    assert any("/help is a built-in command" in n for n in notices(recorder, "warning"))
    assert shell.sources.templates == [] and (await shell.submit("/help")).output.startswith(
        "Commands:"
    )


async def test_skill_scripts_and_references_are_reachable_by_absolute_path(project: Path) -> None:
    skill = write_skill(
        project / ".claude" / "skills",
        "greeter",
        "description: Greets people.",  # no name: named after its directory
        body="Run scripts/greet.sh with the name; see references/style.md.",
    )
    script = skill.parent / "scripts" / "greet.sh"
    script.parent.mkdir()
    script.write_text('echo "hello $1"\n')
    (skill.parent / "references").mkdir()
    (skill.parent / "references" / "style.md").write_text("Be warm.")
    from tests.agent_core.scripted_stream import tool_call

    shell, stream, recorder = make_shell(
        project,
        reply(tool_call("c1", "bash", {"command": f"sh {script} Ada"})),
        reply(text("greeted")),
        tools=["bash", "read"],
        permission_mode="bypassPermissions",  # running the script is not what this tests
    )
    await shell.submit("/skill:greeter Ada")
    sent = stream.user_texts(0)[-1]
    assert f"References are relative to {skill.parent}." in sent
    assert f"- {script}" in sent and f"- {skill.parent / 'references' / 'style.md'}" in sent
    result = next(m for m in shell.messages if m.role == "toolResult")
    assert result.text.strip() == "hello Ada"


async def test_claude_commands_are_prompt_templates(project: Path, fake_home: Path) -> None:
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "fix-issue.md").write_text(
        "---\ndescription: Fix an issue\nargument-hint: <number>\nallowed-tools: [Bash, Edit]\n"
        "---\nFix issue #$ARGUMENTS following our standards."
    )
    (fake_home / ".claude" / "commands").mkdir(parents=True)
    (fake_home / ".claude" / "commands" / "standup.md").write_text("Summarise my day.")
    agents = project / ".claude" / "agents"
    agents.mkdir()
    (agents / "reviewer.md").write_text("---\nname: reviewer\ntools: Read\n---\nReview code.")
    shell, stream, recorder = make_shell(project, reply(text("fixed")))
    command = shell.commands.get("fix-issue")
    assert command is not None and command.description == "Fix an issue"
    assert command.usage == "<number>" and shell.commands.get("standup") is not None
    assert shell.commands.get("reviewer") is None  # .claude/agents holds agent profiles
    # An agent profile needs a trusted folder (it chooses tools and a model): said, not loaded.
    (warning,) = notices(recorder, "warning")
    assert (
        warning.startswith("Untrusted folder: ignored agent profiles") and "reviewer.md" in warning
    )
    assert shell.agent_tools.profiles == []
    await shell.submit("/fix-issue 123")
    assert stream.user_texts(0)[-1] == "Fix issue #123 following our standards."
