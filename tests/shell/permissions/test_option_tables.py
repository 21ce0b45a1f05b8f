"""Differential check: each option table against the real program installed on the machine.

A table can neither miss nor invent an option. For the getopt_long readers: every short letter
``[A-Za-z0-9]`` is tried (``invalid option`` or not, ``requires an argument`` or not, an
optional value or none), every long name ``--help`` prints or getopt names in an ambiguity
(``--a`` lists every ``--a...``) must be in the table, and every long name of the table must be
accepted with the argument kind the table says (glibc's messages name the exact option), and
the order rule (permute or stop at the first operand) must be the program's. ripgrep, tree, jq,
find, which, xxd and the bash builtins are probed the same way through their own messages.
Programs run in an empty directory with ``/dev/null`` as input; a probe that would run a
program's action never gets past option parsing unless the table is wrong. ``.ci/run``
installs the programs.
"""

from __future__ import annotations

import os
import re
import shutil
import string
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pi_cli.shell.permissions._gnu_tables import GNU_TABLES, REQUIRE_ORDER
from pi_cli.shell.permissions._grammar import NO_ARG, OPTIONAL, PAIR, REQUIRED, Table, table
from pi_cli.shell.permissions._own_parsers import (
    _FIND_TEXT,
    _XXD_TEXT,
    BUILTINS,
    JQ,
    RG,
    TREE,
    WHICH,
)
from pi_cli.shell.permissions._readers import _gnu_table

LETTERS = string.ascii_letters + string.digits
ZZ = "--zz-no-such-option"
Run = Callable[[list[str]], str]
LEAD = {"tail": ["-s0.01", "--pid=2147483647"]}
"""Words before a probed option: ``tail -f`` and ``-F`` end at once when that pid is gone."""


@pytest.fixture
def run(tmp_path: Path) -> Run:
    env = {"PATH": os.environ["PATH"], "LC_ALL": "C", "HOME": str(tmp_path)}
    box = tmp_path / "empty"
    box.mkdir()

    def run(argv: list[str]) -> str:
        try:
            done = subprocess.run(
                argv, cwd=box, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                text=True, errors="replace", timeout=20, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return "(timed out)"
        return done.stdout + done.stderr

    return run


def _need(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed (.ci/run installs it)")


def _all(run: Run, argvs: list[list[str]]) -> list[str]:
    with ThreadPoolExecutor(4) as pool:
        return list(pool.map(run, argvs))


def _kinds(options: Table) -> dict[str, int]:
    return {**{f"-{k}": o.arg for k, o in options.short.items()},
            **{f"--{k}": o.arg for k, o in options.longs.items()}}  # fmt: skip


def _getopt_short(run: Run, name: str) -> dict[str, int]:
    """Every short letter the program accepts, with its argument kind."""
    found: dict[str, int] = {}
    lead = LEAD.get(name, [])
    answers = _all(run, [[name, *lead, f"-{c}"] for c in LETTERS])
    maybe = []
    for letter, said in zip(LETTERS, answers, strict=True):
        if f"invalid option -- '{letter}'" in said or (name == "seq" and letter.isdigit()):
            continue
        if f"requires an argument -- '{letter}'" in said:
            found[f"-{letter}"] = REQUIRED
        else:
            maybe.append(letter)
    first = lead or (["-q"] if name == "head" else [])  # not first: no obsolete -NUM form
    answers = _all(run, [[name, *first, f"-{c}@@", ZZ] for c in maybe])
    alone = _all(run, [[name, *first, f"-{c}", ZZ] for c in maybe])
    for letter, said, plain in zip(maybe, answers, alone, strict=True):
        # An option whose action ends the program at once (-h, -V) says the same either way.
        no_arg = "invalid option -- '@'" in said or said == plain
        found[f"-{letter}"] = NO_ARG if no_arg else OPTIONAL
    return found


def _getopt_documented(run: Run, name: str) -> set[str]:
    """Long names in ``--help`` and in getopt's own messages for one-letter prefixes."""
    names = set(re.findall(r"(?<![\w-])--([a-z0-9][-a-z0-9]*)(?![A-Z])", run([name, "--help"])))
    for said in _all(run, [[name, f"--{c}=x", ZZ] for c in LETTERS.lower()[:36]]):
        listed = re.search(r"is ambiguous; possibilities:(.*)", said)
        if listed:
            names |= set(re.findall(r"'--([^'=]+)'", listed.group(1)))
        names |= set(re.findall(r"option '--([^']+)' doesn't allow", said))
    for said in _all(run, [[name, f"--{c}"] for c in LETTERS.lower()[:36]]):
        names |= set(re.findall(r"option '--([^']+)' requires", said))
    return {f"--{n}" for n in names} - {"--zz-no-such-option"}


def _getopt_long_kind(run: Run, name: str, long: str, kind: int) -> bool:
    """Whether the program has ``--long`` (its full name) with argument kind ``kind``."""
    if kind == NO_ARG:
        return f"option '--{long}' doesn't allow an argument" in run([name, f"--{long}=x"])
    if kind == REQUIRED:
        return f"option '--{long}' requires an argument" in run([name, f"--{long}"])
    with_value = run([name, f"--{long}=x", ZZ])
    if f"'--{long}' doesn't allow" in with_value or f"option '--{long}=x'" in with_value:
        return False
    return f"unrecognized option '{ZZ}'" in run([name, f"--{long}", ZZ])


@pytest.mark.parametrize("name", sorted(GNU_TABLES))
def test_a_getopt_table_is_the_programs_option_list(name: str, run: Run) -> None:
    _need(name)
    options = _gnu_table(name)
    kinds = _kinds(options)
    short = {k: v for k, v in kinds.items() if not k.startswith("--")}
    program = _getopt_short(run, name)
    assert set(short.items()) ^ set(program.items()) == set(), "short options differ"
    documented = _getopt_documented(run, name)
    listed = {k for k in kinds if k.startswith("--")}
    assert documented - listed == set(), "options the program has, missing from the table"
    wrong = [
        long
        for long, option in options.longs.items()
        if not _getopt_long_kind(run, name, long, option.arg)
    ]
    assert wrong == [], "options the program does not take with the table's argument kind"
    permutes = f"unrecognized option '{ZZ}'" in run([name, "operand", ZZ])
    assert permutes == (name not in REQUIRE_ORDER), "the program's order rule"


def _own_check(
    options: Table, unknown: Callable[[str], bool], kind: Callable[[str, int], bool]
) -> tuple[list[str], list[str]]:
    """(table options the program refuses, options whose argument kind differs)."""
    names = list(_kinds(options))
    with ThreadPoolExecutor(4) as pool:
        refused = [n for n, bad in zip(names, pool.map(unknown, names), strict=True) if bad]
        kinds = _kinds(options)
        checks = pool.map(lambda n: kind(n, kinds[n]), names)
        wrong = [n for n, ok in zip(names, checks, strict=True) if not ok and n not in refused]
    return refused, wrong


def _short_letters(options: Table, accepted: Callable[[str], bool]) -> tuple[set[str], set[str]]:
    with ThreadPoolExecutor(4) as pool:
        takes = {c for c, ok in zip(LETTERS, pool.map(accepted, LETTERS), strict=True) if ok}
    return takes, set(options.short)


def test_ripgreps_table(run: Run) -> None:
    _need("rg")
    options = table(RG)
    # `rg NAME p`: a value-taking option eats p and the pattern is missing; -e/-f give one.
    givers = {"-e", "--regexp", "-f", "--file"}
    refused, wrong = _own_check(
        options,
        lambda n: "wasn't expected" in run(["rg", n, "p"]),
        lambda n, k: (
            n in givers or ("arguments were not provided" in run(["rg", n, "p"])) == (k == REQUIRED)
        ),
    )
    assert (refused, wrong) == ([], [])
    takes, listed = _short_letters(
        options, lambda c: "wasn't expected" not in run(["rg", f"-{c}", "p"])
    )
    assert takes == listed
    documented = set(re.findall(r"(?m)^\s+(?:-\w, )?--([a-z0-9-]+)", run(["rg", "--help"])))
    assert documented - set(options.longs) == set()


def test_trees_table(run: Run) -> None:
    _need("tree")
    options = table(TREE)
    refused, wrong = _own_check(
        options,
        lambda n: "Invalid argument" in run(["tree", n]),
        lambda n, k: ("Missing argument" in run(["tree", n])) == (k == REQUIRED),
    )
    assert (refused, wrong) == ([], [])
    takes, listed = _short_letters(
        options, lambda c: "Invalid argument" not in run(["tree", f"-{c}"])
    )
    assert takes == listed
    documented = set(re.findall(r"(?m)^\s+--?([a-zA-Z][-a-z]*)", run(["tree", "--help"])))
    assert documented <= {*options.short, *options.longs}


def test_jqs_table(run: Run) -> None:
    _need("jq")
    options = table(JQ)
    said = {1: "takes one parameter", PAIR: "takes two parameters"}
    refused, wrong = _own_check(
        options,
        lambda n: "Unknown option" in run(["jq", n]),
        lambda n, k: (
            n == "-L"
            and "-L takes a parameter" in run(["jq", n])
            or all((said[kind] in run(["jq", n])) == (k == kind) for kind in said)
        ),
    )
    assert (refused, wrong) == ([], [])
    takes, listed = _short_letters(options, lambda c: "Unknown option" not in run(["jq", f"-{c}"]))
    assert takes - set(string.digits) == listed  # jq reads -1 as a program (pi asks)
    documented = set(re.findall(r"(?m)^\s+--?([a-zA-Z][-a-z]*)", run(["jq", "--help"])))
    assert documented <= {*options.short, *options.longs}


def test_finds_table(run: Run) -> None:
    _need("find")
    options = table(_FIND_TEXT)
    operators = {"-a", "-o", "-not", "-and", "-or"}
    probe = ["find", ".", "-maxdepth", "0"]
    names = [n for n in _kinds(options) if n.lstrip("-") and f"-{n.lstrip('-')}" not in operators]
    with ThreadPoolExecutor(4) as pool:
        answers = pool.map(lambda n: run([*probe, f"-{n.lstrip('-')}"]), names)
        said = dict(zip(names, answers, strict=True))
    kinds = _kinds(options)
    assert [n for n in names if "unknown predicate" in said[n]] == []
    takes = {n for n in names if re.search(r"(missing|invalid) argument .*`-", said[n])}
    missing = [n for n in names if (n in takes) != (kinds[n] != NO_ARG)]
    assert missing == []
    documented = set(re.findall(r"(?<![\w-])-([a-z][-a-z0-9_]*[a-z0-9_])", run(["find", "--help"])))
    assert documented <= {*options.longs, "help", "version"}
    for start in ("-H", "-L", "-P", "-D", "-O"):
        assert "unknown predicate" not in run(["find", start, "."]), start
    assert "unknown predicate" in run(["find", "-K", "."])


def test_xxds_table(run: Run) -> None:
    _need("xxd")
    help_text = run(["xxd", "-h"])
    documented = set(re.findall(r"(?m)^\s+-([a-zA-Z]+)", help_text))
    options = table(_XXD_TEXT)
    assert documented <= {*options.short, *options.longs}
    for name, option in [*options.short.items(), *options.longs.items()]:
        if name in ("h", "help", "v", "version"):
            continue
        said = run(["xxd", f"-{name}", *(["1"] if option.arg != NO_ARG else [])])
        assert "Usage:" not in said, name
    assert "Usage:" in run(["xxd", "-R", "1"])


def test_which_and_the_builtins_tables(run: Run) -> None:
    _need("which")
    which = table(WHICH)
    takes, listed = _short_letters(
        which, lambda c: "Illegal option" not in run(["which", f"-{c}", "ls"])
    )
    assert takes == listed
    for name, text in BUILTINS.items():
        options = table(text)
        with ThreadPoolExecutor(4) as pool:
            argvs = [["bash", "-c", f"{name} -{c} x"] for c in LETTERS]
            answers = list(pool.map(run, argvs))
        takes = {
            c for c, said in zip(LETTERS, answers, strict=True) if "invalid option" not in said
        }
        assert takes == set(options.short), name
        for letter, option in options.short.items():
            needs = "requires an argument" in run(["bash", "-c", f"{name} -{letter}"])
            assert needs == (option.arg == REQUIRED), (name, letter)
