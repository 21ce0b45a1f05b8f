"""Rules: loading ``.claude/rules`` / ``.pi/rules`` (real files from public repositories), the
glob semantics, trust, caps and hostile input."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pi_cli.shell.prompt.rules import MAX_RULE_BYTES, glob_regex, load_rules
from pi_cli.shell.prompt.sources import load_memory

FIXTURES = Path(__file__).parents[2] / "fixtures" / "claude_rules"


def _growthbook(project: Path) -> Path:
    shutil.copytree(FIXTURES / "growthbook" / ".claude", project / ".claude")
    return project


def test_real_rules_split_into_always_and_path_scoped(project: Path) -> None:
    rules = load_rules(_growthbook(project), trusted=True)
    assert rules.problems == []
    always = sorted(r.path.name for r in rules.always)
    assert always == ["package-boundaries.md", "project-overview.md"]
    scoped = {r.path.name: r.patterns for r in rules.scoped}
    assert scoped == {
        "api-patterns.md": ("packages/back-end/src/**/*.ts",),
        "react-and-data.md": ("packages/front-end/**/*.{ts,tsx}",),
    }
    front = project / "packages/front-end/components/Button.tsx"
    assert [r.path.name for r in rules.matching(front)] == ["react-and-data.md"]
    assert [r.path.name for r in rules.matching(Path("packages/back-end/src/api/x.ts"))] == [
        "api-patterns.md"
    ]
    assert rules.matching(Path("packages/back-end/src/api/x.tsx")) == []
    assert rules.matching(Path("/elsewhere/packages/front-end/a.ts")) == []
    body = next(r.body for r in rules.scoped if r.path.name == "react-and-data.md")
    assert body.startswith("# Front-end Patterns") and "---" not in body


def test_always_rules_join_the_context_files_and_scoped_ones_do_not(project: Path) -> None:
    files, rules, problems = load_memory(_growthbook(project), trusted=True)
    names = [f.path.name for f in files]
    assert "project-overview.md" in names and "package-boundaries.md" in names
    assert "api-patterns.md" not in names and problems == []
    assert len(rules.scoped) == 2


def test_project_rules_need_trust_but_user_rules_do_not(
    project: Path, fake_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _growthbook(project)
    (fake_home / ".claude" / "rules").mkdir(parents=True)
    (fake_home / ".claude" / "rules" / "mine.md").write_text("Always answer briefly.\n")
    pi_home = tmp_path / "pihome"
    (pi_home / "rules" / "py").mkdir(parents=True)
    (pi_home / "rules" / "py" / "py.md").write_text('---\npaths: "**/*.py"\n---\nUse uv.\n')
    monkeypatch.setenv("PI_HOME", str(pi_home))
    rules = load_rules(project, trusted=False)
    assert sorted(r.path.name for r in rules.rules) == ["mine.md", "py.md"]
    assert {r.scope for r in rules.rules} == {"user"}
    assert [r.path.name for r in rules.matching(project / "a" / "b.py")] == ["py.md"]
    trusted = load_rules(project, trusted=True)
    assert len(trusted.rules) == 6


def test_an_untrusted_folder_names_its_rules_in_the_trust_question(project: Path) -> None:
    from pi_cli.shell.config.trust import check_trust

    assert check_trust(project).items == []
    _growthbook(project)
    check = check_trust(project)
    assert check.items == ["rules in .claude/rules or .pi/rules (4 files)"]
    assert check.needs_question and not check.trusted()


@pytest.mark.parametrize(
    ("glob", "matches", "misses"),
    [
        ("**/*.ts", ["a.ts", "src/a.ts", "src/x/y/a.ts"], ["a.tsx", "a.ts/b"]),
        ("*.md", ["README.md"], ["docs/README.md"]),
        ("src/**/*", ["src/a", "src/a/b.c"], ["lib/a", "src"]),
        ("src/**", ["src/a", "src/a/b"], ["srcx/a"]),
        ("src/components/*.tsx", ["src/components/A.tsx"], ["src/components/x/A.tsx"]),
        ("src/**/*.{ts,tsx}", ["src/a.ts", "src/b/c.tsx"], ["src/a.js"]),
        ("{src,lib}/**/*.{js,{c,m}js}", ["lib/a.cjs", "src/x/a.js"], ["app/a.js", "lib/a.ts"]),
        ("./docs/*.md", ["docs/a.md"], ["a.md"]),
        ("file?.[ch]", ["file1.c", "fileX.h"], ["file10.c", "file1.o"]),
        ("[!a]*.py", ["b.py"], ["a.py"]),
        ("a+b(c).md", ["a+b(c).md"], ["aab(c).md"]),
        ("**/Controllers/**", ["x/Controllers/y.cs", "Controllers/a"], ["x/Controller/y"]),
    ],
)
def test_globs_follow_claude_codes_semantics(
    glob: str, matches: list[str], misses: list[str]
) -> None:
    import re

    regex = re.compile(glob_regex(glob))
    assert [m for m in matches if not regex.fullmatch(m)] == []
    assert [m for m in misses if regex.fullmatch(m)] == []


@pytest.mark.parametrize(
    "front",
    [
        "---\npaths:\n  - **/*.cs\n  - src/**\n---\nBody\n",  # unquoted: a YAML alias
        "---\npaths: **/*.cs, src/**\n---\nBody\n",
        "---\nglobs: **/*.cs, src/**\n---\nBody\n",
        '---\npaths: ["**/*.cs", "src/**"]\n---\nBody\n',
    ],
)
def test_front_matter_as_written_in_the_wild(project: Path, front: str) -> None:
    (project / ".pi" / "rules").mkdir(parents=True)
    (project / ".pi" / "rules" / "r.md").write_text(front)
    (rule,) = load_rules(project, trusted=True).rules
    assert rule.patterns == ("**/*.cs", "src/**") and rule.body == "Body"


def test_hostile_rules_are_capped_cleaned_and_reported(project: Path) -> None:
    folder = project / ".claude" / "rules"
    folder.mkdir(parents=True)
    (folder / "big.md").write_text("x" * (MAX_RULE_BYTES * 4))
    (folder / "esc.md").write_text("Hi \x1b]52;c;ZXZpbA==\x07there \x1b[2J\u202eevil\n")
    (folder / "bad.md").write_text("---\npaths: {a: 1}\n---\nbody\n")
    (folder / "binary.md").write_bytes(b"\xff\xfe\x00\x01garbage")
    (folder / "slow.md").write_text("---\npaths: '" + "**/" * 200 + "a*" * 40 + "'\n---\nB\n")
    rules = load_rules(project, trusted=True)
    by_name = {r.path.name: r for r in rules.rules}
    big = by_name["big.md"].body
    assert len(big) < MAX_RULE_BYTES + 200 and big.endswith("for the rest]")
    assert by_name["esc.md"].body == "Hi there evil"
    assert by_name["bad.md"].always  # not globs: loaded for every file, and said
    assert any("bad.md" in p and "paths" in p for p in rules.problems)
    assert "\x00" not in by_name["binary.md"].body
    assert not by_name["slow.md"].matches("b" * 3000)  # collapsed: no catastrophic backtracking


def test_symlinked_and_missing_folders(project: Path, fake_home: Path) -> None:
    (fake_home / ".claude" / "rules").mkdir(parents=True)
    (fake_home / ".claude" / "rules" / "a.md").write_text("A\n")
    (project / ".claude").mkdir()
    (project / ".claude" / "rules").symlink_to(fake_home / ".claude" / "rules")
    rules = load_rules(project, trusted=True)
    assert [r.path.name for r in rules.rules] == ["a.md"]  # the same file once
    assert load_rules(project / "nowhere", trusted=True).rules == [
        r for r in rules.rules if r.scope == "user"
    ]
