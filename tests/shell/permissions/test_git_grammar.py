"""git's option grammar: every prefix of every long option of every parse-options table
resolves as the installed git resolves it; log/diff/show match names exactly; what no table
has asks; the issue's git attacks ask or run with pi's overrides."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_cli.shell.permissions._git_grammar import parse_options, resolve_git_long, revision_words
from pi_cli.shell.permissions._git_read import read_git
from pi_cli.shell.permissions._git_tables import DIFF, LOG, PARSE_OPTIONS
from pi_cli.shell.permissions._grammar import NO_ARG, Parsed, table
from pi_cli.shell.permissions._readonly import Context, classify
from pi_cli.shell.permissions.git_readonly import GIT_SAFE
from pi_cli.shell.permissions.workspace import Workspace

_TAKES_NO_VALUE = re.compile(r"option `([^']+)' takes no value")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gitrepo")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def _spellings(text: str) -> set[str]:
    """Every prefix of every long name and of its ``no-`` form (or its positive form)."""
    out: set[str] = set()
    for name in table(text).longs:
        for form in (name, name[3:] if name.startswith("no-") else "no-" + name):
            out |= {form[:end] for end in range(1, len(form) + 1)}
    return out


def _ours(text: str, spelled: str) -> str:
    found = resolve_git_long(table(text), spelled + "=pi-probe")
    if found is None:
        return "unknown"
    if isinstance(found, list):
        return "ambiguous"
    return ("no-" if found.unset else "") + found.option.key


def _gits(sub: str, spelled: str, repo: Path) -> tuple[str, str]:
    """What git makes of ``--SPELLED=pi-probe`` (``-h`` after it: git stops there)."""
    result = subprocess.run(
        ["git", *sub.split(), f"--{spelled}=pi-probe", "-h"],
        cwd=repo,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
        timeout=30,
    )
    stderr = result.stderr
    if "ambiguous option" in stderr:
        return "ambiguous", stderr
    if "unknown option" in stderr:
        return "unknown", stderr
    named = _TAKES_NO_VALUE.search(stderr)
    return (named[1] if named else "resolved"), stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("sub", sorted(PARSE_OPTIONS))
def test_every_prefix_resolves_as_git_resolves_it(sub: str, repo: Path) -> None:
    text = PARSE_OPTIONS[sub]
    differ = []
    for spelled in sorted(_spellings(text)):
        ours = _ours(text, spelled)
        gits, stderr = _gits(sub, spelled, repo)
        same = ours == gits or (gits == "resolved" and ours not in ("unknown", "ambiguous"))
        # pi asks where git refuses too (blame's --no-color=...: git says "takes no value").
        same = same or (ours == "unknown" and "takes no value" in stderr)
        if not same:
            differ.append((spelled, ours, gits, stderr.strip()[:120]))
    assert not differ


def _parsed(result: Parsed | str) -> Parsed:
    assert not isinstance(result, str), result
    return result


def test_parse_options_reads_clusters_values_numbers_and_negations() -> None:
    grep = table(PARSE_OPTIONS["grep"])
    parsed = _parsed(parse_options(grep, ["-iwC3", "-e", "-x", "--max-d", "2", "-5", "p"], "grep"))
    assert [(g.option.key, g.value) for g in parsed.options] == [
        ("ignore-case", None), ("word-regexp", None), ("context", "3"), ("e", "-x"),
        ("max-depth", "2"),
    ]  # fmt: skip
    assert parsed.operands == ["p"]
    negated = _parsed(parse_options(grep, ["--no-textc", "--", "--textconv"], "grep"))
    assert [(g.option.key, g.unset) for g in negated.options] == [("textconv", True)]
    assert negated.operands == ["--textconv"]
    assert isinstance(parse_options(grep, ["--co"], "grep"), str)  # --count, --column, --color
    assert isinstance(parse_options(grep, ["-Y"], "grep"), str)
    assert isinstance(parse_options(grep, ["--count=3"], "grep"), str)
    assert isinstance(parse_options(grep, ["-e"], "grep"), str)


def test_log_and_diff_match_names_exactly() -> None:
    log, diff = table(LOG), table(DIFF)
    assert isinstance(revision_words(log, ["--onel"], "log"), str)
    assert isinstance(revision_words(diff, ["--stat-w=3"], "diff"), str)
    assert isinstance(revision_words(log, ["-pw"], "log"), str)  # a cluster: one at a time
    assert isinstance(revision_words(log, ["--author", "--output=x"], "log"), str)
    parsed = _parsed(revision_words(log, ["-n5", "-3", "--stat", "HEAD", "--", "a"], "log"))
    assert [(g.option.key, g.value) for g in parsed.options] == [("max-count", "5"), ("stat", None)]
    assert parsed.operands == ["HEAD", "a"]


def test_every_log_and_diff_option_outside_the_tables_asks() -> None:
    for name in ("output", "ext-diff", "textconv", "show-signature", "output-directory"):
        for sub in ("log", "show", "diff", "whatchanged"):
            assert isinstance(read_git(sub, [f"--{name}=x"]), str)
            assert isinstance(read_git(sub, [f"--{name}", "x"]), str)
    assert isinstance(read_git("log", ["--pi-unknown"]), str)
    assert isinstance(read_git("status", ["--pi-unknown"]), str)
    assert isinstance(read_git("rev-parse", ["--pi-unknown"]), str)


@pytest.mark.parametrize("sub", sorted(PARSE_OPTIONS))
def test_every_option_that_writes_or_runs_asks_under_every_prefix_git_reads_as_it(
    sub: str,
) -> None:
    options = table(PARSE_OPTIONS[sub])
    words = sub.split()
    for name, option in options.longs.items():
        if option.effect != "ask":
            continue
        for end in range(1, len(name) + 1):
            found = resolve_git_long(options, name[:end])
            if not isinstance(found, list) and found is not None and found.option is option:
                value = "=x" if option.arg != NO_ARG else ""
                verdict = read_git(words[0], [*words[1:], f"--{name[:end]}{value}", "x"])
                assert isinstance(verdict, str), (sub, name[:end])


GIT_ATTACKS = [
    "git grep --open-files=sh x",
    "git grep --open-files-in-pager=sh x",
    "git grep -Osh x",
    "git grep -iOsh x",
    "git grep --textconv x",
    "git grep --te x",
    "git diff --output=/tmp/x",
    "git diff --output x",
    "git log --output=out.txt",
    "git show --output=out.txt",
    "git log --ext-diff -p",
    "git diff --ext-diff",
    "git log --textconv -p",
    "git diff --textconv",
    "git log --format=%G?",
    "git log --pretty=tformat:%GK",
    "git show -s --format=%GG",
    "git log --show-signature",
    "git tag -v v1",
    "git tag --verify v1",
    "git for-each-ref --format=%(signature)",
    "git cat-file --textconv HEAD:a",
    "git cat-file --filters HEAD:a",
    "git -c core.pager=sh log",
    "git -c core.fsmonitor=./x status",
    "git --config-env=core.pager=X log",
    "git branch -D main",
    "git branch --dele x",
    "git branch --set-up=origin/x",
    "git tag -d v1",
    "git config --add core.pager sh",
    "git config --get core.pager --unset",
    "git stash pop",
    "git reflog expire --all",
    "git worktree add ../x",
    "git remote add x https://example.invalid",
    "git grep --no-index -f /etc/passwd x",
    "git blame --contents=/etc/passwd a",
]


@pytest.mark.parametrize("command", GIT_ATTACKS)
def test_the_issues_git_attacks_ask(command: str, tmp_path: Path) -> None:
    verdict = classify(command, Context(Workspace(tmp_path)))
    assert not verdict.read_only, verdict


@pytest.mark.parametrize(
    "command",
    [
        "git status --porc",
        "git status -sb",
        "git log --oneline -5 --stat",
        "git log -n 3 --author=pi --since=2.weeks",
        "git diff --cached --stat",
        "git show HEAD --name-only",
        "git grep -n -e foo -- a",
        "git grep -iw foo",
        "git branch -a -v",
        "git branch --contains HEAD",
        "git tag -l 'v*'",
        "git ls-files -z --others --exclude-standard",
        "git blame -w a",
        "git describe --tags --always",
        "git config --get user.name",
        "git stash list",
        "git reflog -5",
        "git rev-parse --abbrev-ref HEAD",
        "git worktree list --porcelain",
    ],
)
def test_ordinary_reads_run_unasked_with_the_overrides(command: str, tmp_path: Path) -> None:
    (tmp_path / "a").write_text("x")
    verdict = classify(command, Context(Workspace(tmp_path)))
    assert verdict.read_only, verdict
    assert verdict.command is not None and GIT_SAFE in verdict.command
