"""Differential check of pi's git option tables against the installed git.

The parse-options tables must hold exactly the options ``git SUB --help-all`` lists (a missing
one could make a prefix resolve differently from git; an extra one is invented). The
log/diff/rev-parse allowlists (exact names) may be subsets, but every name in them must be one
the installed git accepts: git is run with each and must not call it unknown.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from pi_cli.shell.permissions._git_tables import DIFF, LOG, PARSE_OPTIONS, REV_LIST, REV_PARSE
from pi_cli.shell.permissions._grammar import NO_ARG, OPTIONAL, Option, table

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

_HELP_LINE = re.compile(
    r"^ {4}(?:-(?P<short>[^-\s,]), ?)?(?:--(?P<long>[A-Za-z0-9][A-Za-z0-9-]*)|-(?P<only>[^-\s]))?"
    r"(?P<arg>\[.*| \S.*)?"
)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("gitrepo")
    env = ["-c", "user.name=pi", "-c", "user.email=pi@example.invalid"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "a.txt").write_text("one\ntwo\n")
    subprocess.run(["git", "-C", str(root), "add", "a.txt"], check=True)
    subprocess.run(["git", "-C", str(root), *env, "commit", "-qm", "one"], check=True)
    return root


def help_all(sub: str, repo: Path) -> dict[str, str]:
    """``git SUB --help-all``: each option's names (``-x``, ``--long``, ``#`` for -NUM, a bare
    ``(``) mapped to its argument kind: "" none, "=" required, "?" optional."""
    out = subprocess.run(
        ["git", *sub.split(), "--help-all"], cwd=repo, capture_output=True, text=True, check=False
    ).stdout
    found: dict[str, str] = {}
    for line in out.splitlines():
        stripped = line.strip()
        if not line.startswith("    ") or not stripped or stripped[0] not in "-()":
            continue
        if stripped.startswith("-NUM"):
            found["#"] = ""
            continue
        if stripped[0] in "()":
            found[stripped[0]] = ""
            continue
        match = _HELP_LINE.match(line)
        assert match is not None, line
        arg = match["arg"] or ""
        kind = "?" if arg.startswith("[") else ("=" if arg else "")
        for name in (match["short"] or match["only"], match["long"]):
            if name:
                found[("-" if len(name) == 1 else "--") + name] = kind
    return found


def _kind(option: Option) -> str:
    return {NO_ARG: "", OPTIONAL: "?"}.get(option.arg, "=")


def ours(text: str) -> dict[str, str]:
    options = table(text)
    found = {
        ("" if letter in "()" else "-") + letter: _kind(option)  # grep's bare ( and )
        for letter, option in options.short.items()
    }
    found |= {"--" + name: _kind(option) for name, option in options.longs.items()}
    if options.numbers:
        found["#"] = ""
    return found


@pytest.mark.parametrize("sub", sorted(PARSE_OPTIONS))
def test_a_parse_options_table_is_exactly_what_git_lists(sub: str, repo: Path) -> None:
    assert ours(PARSE_OPTIONS[sub]) == help_all(sub, repo)


def _accepts(sub: str, name: str, option: Option, repo: Path) -> str:
    """git's stderr for ``git SUB`` given the option (with a value when it takes one)."""
    if len(name) == 1:
        word = [f"-{name}1"] if option.arg not in (NO_ARG, OPTIONAL) else [f"-{name}"]
    else:
        word = [f"--{name}=1"] if option.arg not in (NO_ARG, OPTIONAL) else [f"--{name}"]
    tail = ["HEAD", "--"] if sub != "diff" else ["--"]
    result = subprocess.run(
        ["git", "--no-pager", sub, *word, "-1" if sub != "diff" else "--quiet", *tail],
        cwd=repo,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
        timeout=30,
    )
    return result.stderr


_UNKNOWN = re.compile(
    r"unrecognized argument|invalid option|unknown option|unknown switch|^usage: git rev-list", re.M
)


@pytest.mark.parametrize(
    ("sub", "text"),
    [("log", LOG), ("show", LOG), ("whatchanged", LOG), ("rev-list", REV_LIST), ("diff", DIFF)],
)
def test_every_name_of_an_exact_table_is_one_git_accepts(sub: str, text: str, repo: Path) -> None:
    options = table(text)
    refused = []
    named = [*options.short.items(), *options.longs.items()]
    for name, option in named:
        if sub == "diff" and name in ("no-index",):
            continue  # needs two paths, not revisions; accepted by name all the same
        stderr = _accepts(sub, name, option, repo)
        if _UNKNOWN.search(stderr):
            refused.append((name, stderr.strip().splitlines()[0]))
    assert not refused
    assert len(named) > 90


def test_every_rev_parse_name_is_documented() -> None:
    page = Path("/usr/share/man/man1/git-rev-parse.1.gz")
    if not page.exists():
        pytest.skip("git's manual pages are not installed")
    text = gzip.decompress(page.read_bytes()).decode().replace("\\-", "-")
    missing = [name for name in table(REV_PARSE).longs if f"--{name}" not in text]
    assert not missing


def test_an_invented_option_fails_the_check(repo: Path) -> None:
    """The checks can fail: an option git lacks is caught by each of them."""
    invented = table("pi-invented-option").longs["pi-invented-option"]
    assert _UNKNOWN.search(_accepts("log", "pi-invented-option", invented, repo))
    assert ours(PARSE_OPTIONS["status"] + " pi-invented") != help_all("status", repo)
