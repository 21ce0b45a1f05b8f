"""Skill loading matches pi's: pi's own fixture cases, its test expectations, its real loader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.shell.prompt._skills import discover_skills, load_skills_from_dir
from tests.pi_npm import require_pi_package, run_node
from tests.shell.helpers import make_shell, notices

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "pi_skills"
SKILLS = FIXTURES / "skills"
CASES = sorted(p.name for p in SKILLS.iterdir() if p.is_dir())


# (fixture, names loaded, a phrase every problem list must contain or None for no problem)
EXPECTED = {
    "valid-skill": (["valid-skill"], None),
    "name-mismatch": (["different-name"], "does not match parent directory"),
    "invalid-name-chars": (["Invalid_Name"], "invalid characters"),
    "long-name": (
        [
            "this-is-a-very-long-skill-name-that-exceeds-the-sixty-four-character-limit-set-by-the-standard"
        ],
        "exceeds 64 characters",
    ),
    "missing-description": ([], "description is required"),
    "unknown-field": (["unknown-field"], None),
    "nested": (["child-skill"], None),
    "root-skill-preferred": (["root-skill-preferred"], None),
    "no-frontmatter": ([], "description is required"),
    "invalid-yaml": ([], "at line 3"),
    "multiline-description": (["multiline-description"], None),
    "consecutive-hyphens": (["bad--name"], "consecutive hyphens"),
    "disable-model-invocation": (["disable-model-invocation"], None),
}


@pytest.mark.parametrize("case", CASES)
def test_each_pi_fixture_loads_as_pi_expects(case: str) -> None:
    names, phrase = EXPECTED[case]
    skills, problems = load_skills_from_dir(SKILLS / case, "test")
    assert [s.name for s in skills] == names
    if phrase is None:
        assert problems == []
    else:
        assert any(phrase in str(p) for p in problems), [str(p) for p in problems]
    for problem in problems:  # never silent: each message names the file and the outcome
        assert str(problem.path) in str(problem)
        assert ("loaded anyway" if problem.loaded else "skipped") in str(problem)
        assert problem.loaded == bool(names)


def test_fixture_details_pi_checks() -> None:
    skills, _ = load_skills_from_dir(SKILLS, "test")
    by_name = {s.name: s for s in skills}
    assert len(skills) == 10
    assert by_name["valid-skill"].description == "A valid skill for testing purposes."
    assert by_name["root-skill-preferred"].description == "Root skill should win."
    multi = by_name["multiline-description"].description
    assert "\n" in multi and "This is a multiline description." in multi
    assert by_name["disable-model-invocation"].model_invocable is False
    assert by_name["valid-skill"].model_invocable is True
    assert load_skills_from_dir(Path("/non/existent/path"), "test") == ([], [])


def test_collisions_keep_the_first_and_say_so(project: Path) -> None:
    first = FIXTURES / "skills-collision" / "first"
    second = FIXTURES / "skills-collision" / "second"
    skills, problems = discover_skills(project, [str(first), str(second)])
    assert [(s.name, s.path.parent.parent) for s in skills] == [("calendar", first)]
    assert len(problems) == 1 and "collision" in str(problems[0])
    assert str(second / "calendar" / "SKILL.md") in str(problems[0])


def test_missing_and_non_markdown_skill_paths_are_reported(project: Path) -> None:
    (project / "notes.txt").write_text("x")
    _, problems = discover_skills(project, ["/non/existent/path", str(project / "notes.txt")])
    texts = [str(p) for p in problems]
    assert any("does not exist" in t for t in texts)
    assert any("not a markdown file" in t for t in texts)


def test_a_long_description_loads_with_a_warning_and_reaches_the_prompt(project: Path) -> None:
    # Anthropic's published claude-api skill has a 1068-character description.
    description = ("Build apps with the Claude API and SDKs. " * 27)[:1068]
    skill = project / ".claude" / "skills" / "claude-api" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(f"---\nname: claude-api\ndescription: {description}\n---\nUse the SDK.\n")
    shell, _, recorder = make_shell(project)
    assert [s.name for s in shell.sources.skills] == ["claude-api"]
    warning = next(n for n in notices(recorder, "warning") if "claude-api" in n)
    assert "exceeds 1024 characters (1068)" in warning and "loaded anyway" in warning
    assert "<name>claude-api</name>" in shell.agent.system_prompt


def test_skills_match_pis_real_loader() -> None:
    package = require_pi_package()
    script = f"""
import {{ loadSkillsFromDir }} from {json.dumps(str(package / "dist/core/skills.js"))};
const out = {{}};
for (const dir of process.argv.slice(1)) {{
  const r = loadSkillsFromDir({{ dir, source: "test" }});
  out[dir] = {{
    skills: r.skills.map((s) => [s.name, s.filePath, s.description, !!s.disableModelInvocation]),
    diagnostics: r.diagnostics.map((d) => [d.path, d.message]),
  }};
}}
console.log(JSON.stringify(out));
"""
    dirs = [str(SKILLS), *(str(SKILLS / case) for case in CASES)]
    theirs = run_node(script, *dirs)
    for directory in dirs:
        skills, problems = load_skills_from_dir(Path(directory), "test")
        ours = [[s.name, str(s.path), s.description, not s.model_invocable] for s in skills]
        expected = [[n, f, d.strip(), flag] for n, f, d, flag in theirs[directory]["skills"]]
        assert sorted(ours) == sorted(expected), directory
        their_problems = sorted(
            (path, "yaml" if " at line " in message else message)
            for path, message in theirs[directory]["diagnostics"]
        )
        our_problems = sorted(
            (str(p.path), "yaml" if " at line " in p.problem else p.problem) for p in problems
        )
        assert our_problems == their_problems, directory
