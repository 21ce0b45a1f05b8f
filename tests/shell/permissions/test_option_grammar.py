"""The classifier's option grammar: every reader's options as its program parses them.

Abbreviations are checked against an oracle written here from getopt_long's rule (an exact
name wins; else the options the word is a prefix of, aliases counting once; several: ambiguous),
for every prefix of every long option of every table; the real programs' own answers are
``test_option_tables.py``'s.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pi_cli.shell.permissions._gnu_tables import GNU_TABLES
from pi_cli.shell.permissions._grammar import ASKS, NO_ARG, OPTIONAL, PAIR, Option, Table
from pi_cli.shell.permissions._own_parsers import BUILTINS, JQ, RG, TREE, WHICH
from pi_cli.shell.permissions._readers import COMMANDS, _gnu_table, _text_table
from pi_cli.shell.permissions._readonly import Context, classify
from pi_cli.shell.permissions.workspace import Workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("hello\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return Workspace(root)


def _ctx(workspace: Workspace) -> Context:
    return Context(workspace, home=str(workspace.cwd.parent / "home"))


def _tables() -> dict[str, tuple[Table, bool]]:
    """Each command's table and whether its parser takes unique prefixes."""
    out: dict[str, tuple[Table, bool]] = {}
    for name in GNU_TABLES:
        out[name] = (_gnu_table(name), True)
    for name, text in {"rg": RG, "tree": TREE, "jq": JQ, "which": WHICH, **BUILTINS}.items():
        out[name] = (_text_table(text), False)
    return out


def _oracle(options: Table, word: str, abbreviate: bool) -> Option | None:
    """What getopt_long makes of ``--word`` (None: unknown or ambiguous)."""
    if word in options.longs:
        return options.longs[word]
    if not abbreviate:
        return None
    matches = {id(o): o for name, o in options.longs.items() if name.startswith(word)}
    return next(iter(matches.values())) if len(matches) == 1 else None


def _args(option: Option, spelled: str) -> list[list[str]]:
    if option.arg == NO_ARG:
        return [[spelled]]
    if option.arg == OPTIONAL:
        return [[spelled], [f"{spelled}=v"]]
    if option.arg == PAIR:
        return [[spelled, "n", "v"]]
    return [[f"{spelled}=v"], [spelled, "v"]]


def test_every_prefix_of_every_long_option_resolves_as_getopt_does() -> None:
    checked = 0
    for name, (options, abbreviate) in _tables().items():
        grammar = COMMANDS[name if name in COMMANDS else "grep"].grammar
        assert grammar is not None
        for long_name in options.longs:
            for end in range(1, len(long_name) + 1):
                word = long_name[:end]
                expected = _oracle(options, word, abbreviate)
                if expected is None:  # unknown or ambiguous: the program refuses, pi asks
                    for args in ([f"--{word}"], [f"--{word}=v"], [f"--{word}", "v"]):
                        assert isinstance(grammar(args), str), (name, args)
                    continue
                for args in _args(expected, f"--{word}"):
                    parsed = grammar(args)
                    assert not isinstance(parsed, str), (name, args, parsed)
                    assert parsed.options[0].option is expected, (name, args)
                    assert parsed.operands == [], (name, args)
                checked += 1
    assert checked > 2000


def test_every_option_of_every_table_is_classified_by_its_effect(workspace: Workspace) -> None:
    """Each option, spelled in full: a harmless one keeps the command read-only, one that
    writes, runs or reads another file's list asks, naming why."""
    context = _ctx(workspace)
    for name, (options, _) in _tables().items():
        if name in ("egrep", "fgrep"):
            continue
        spec = COMMANDS[name]
        operand = ["a.txt"] if spec.paths and name not in ("jq",) else []
        seen: set[int] = set()
        for long_name, option in options.longs.items():
            if id(option) in seen or long_name in ("help", "version"):
                continue
            seen.add(id(option))
            args = _args(option, f"--{long_name}")[-1]
            verdict = classify(" ".join([name, *args, *operand]), context)
            if option.effect == ASKS:
                assert not verdict.read_only and option.why in verdict.reason, (name, args)
            elif name not in ("hostname",) or option.arg == NO_ARG:
                assert verdict.read_only, (name, args, verdict.reason)


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - {"echo", "true", "false", "test", "["}))
def test_an_unknown_option_asks(name: str, workspace: Workspace) -> None:
    for word in ("--zz-not-an-option", "-%", "--zz-not-an-option=1"):
        verdict = classify(f"{name} {word}", _ctx(workspace))
        assert not verdict.read_only, (name, word)


ATTACKS = [
    ("sort -uo out.txt a.txt", "writes a file"),
    ("sort -S1K --compress-p=sh a.txt", "runs a program"),
    ("sort --comp sh a.txt", "runs a program"),
    ("sort -T /tmp a.txt", "writes a file"),
    ("sort --files0-from=list", "reads the files another file names"),
    ("sort --random-source=/etc/shadow a.txt", "outside the workspace"),
    ("wc --files0=list", "reads the files another file names"),
    ("md5sum -c sums", "reads the files another file names"),
    ("sha256sum --ch sums", "reads the files another file names"),
    ("grep -rnf/etc/shadow x", "outside the workspace"),
    ("grep --fi /etc/shadow x", "ambiguous"),
    ("grep -e /etc/* a.txt", "outside the workspace"),
    ("grep -R x .", "follows symbolic links"),
    ("grep --dereference-r x .", "follows symbolic links"),
    ("grep --exclude-from=/etc/shadow x .", "outside the workspace"),
    ("grep --ex x a.txt", "ambiguous"),
    ("ls -RL", "follows symbolic links"),
    ("du -L .", "follows symbolic links"),
    ("du --exclude-f=/etc/passwd .", "outside the workspace"),
    ("diff -r a b", "follows symbolic links"),
    ("diff --pag a.txt a.txt", "runs a program"),
    ("diff --from-file=/etc/passwd a.txt", "outside the workspace"),
    ("date -f /etc/passwd", "outside the workspace"),
    ("date --ref=/etc/passwd", "outside the workspace"),
    ("date --s=2020-01-01", "changes the system"),
    ("date -us2020-01-01", "changes the system"),
    ("date 010101012030", "the clock"),
    ("hostname -F name.txt", "changes the system"),
    ("hostname --bo", "changes the system"),
    ("hostname evil", "the host name"),
    ("file -zL a.txt", "runs decompression programs"),
    ("file --no-s a.txt", "turns off the program's own sandbox"),
    ("file -p a.txt", "changes files' timestamps"),
    ("file -m /etc/magic a.txt", "outside the workspace"),
    ("file --files-from list", "reads the files another file names"),
    ("strings @/etc/shadow", "@FILE"),
    ("strings -n @/etc/shadow a.txt", "@FILE"),  # expandargv reads every @word, values too
    ("realpath --relative-to=/etc a.txt", "outside the workspace"),
    ("hexdump -f /etc/passwd a.txt", "outside the workspace"),
    ("find . -newer /etc/passwd", "outside the workspace"),
    ("find -L .", "follows symbolic links"),
    ("find . -follow", "follows symbolic links"),
    ("find . -fprintf out %p", "writes a file"),
    ("find . -files0-from list", "reads the files another file names"),
    ("find . -exec rm x \\;", "runs a program"),
    ("find . -nosuchprimary", "no primary"),
    ("rg --pre sh x", "runs a program"),
    ("rg --pr sh x", "has no option"),  # ripgrep takes no abbreviations: it fails
    ("rg -z x", "runs decompression programs"),
    ("rg -L x", "follows symbolic links"),
    ("rg --ignore-file /etc/passwd x", "outside the workspace"),
    ("tree -o out.txt", "writes a file"),
    ("tree -l", "follows symbolic links"),
    ("tree --fromfile list", "reads the files another file names"),
    ("tree --hintro /etc/passwd", "outside the workspace"),
    ("jq --rawfile a /etc/passwd . a.txt", "outside the workspace"),
    ("jq -f /etc/passwd a.txt", "outside the workspace"),
    ("jq -L /etc . a.txt", "outside the workspace"),
    ("jq . /etc/passwd", "outside the workspace"),
    ("xxd -r a.txt", "writes a file"),
    ("xxd -revert a.txt", "writes a file"),
    ("xxd a.txt out.bin", "an operand that is written"),
    ("printf -v PATH %s x", "assigns a shell variable"),
    ("printf -vPATH x", "assigns a shell variable"),
    ("uniq a.txt out.txt", "an operand that is written"),
    ("cat --show-all=x a.txt", "takes no value"),
    ("head -n", "needs a value"),
    ("head -5c /etc/passwd", "outside the workspace"),  # -5c is read whole: 5 bytes
    ("tail -3l /etc/passwd", "outside the workspace"),
    ("tail -b a.txt", "has no option -b"),  # only head/tail's obsolete first word
]


@pytest.mark.parametrize(("command", "why"), ATTACKS)
def test_attacks_ask_and_say_why(command: str, why: str, workspace: Workspace) -> None:
    verdict = classify(command, _ctx(workspace))
    assert not verdict.read_only, command
    assert why in verdict.reason, verdict.reason


READ_ONLY = [
    "ls -la",
    "ls -lah --color=auto --sort=time",
    "ls --col a.txt",
    "head -n5 a.txt",
    "head -5 a.txt",
    "tail -20 a.txt",
    "tail -n +2 a.txt",
    "sort -k2,2 -t, -u a.txt",
    "sort --rev --num a.txt",
    "grep -rn x .",
    "grep -E -e x -e y -- -a.txt",
    "grep --colour=never -C2 x a.txt",
    "grep -f a.txt a.txt",
    "wc -lw a.txt",
    "du -sh .",
    "date +%F",
    "date -u -d yesterday +%s",
    "date --iso=s",
    "find . -maxdepth 2 -name '*.py' -type f -newermt 2020-01-01 -print0",
    "find . \\( -name a -o -name b \\) -prune",
    "rg -n --hidden -g '*.py' x",
    "rg --no-heading -tpy x .",
    "tree -L 2 -a",
    "tree --sort=name --dirsfirst",
    "jq -r .name a.txt",
    "jq --arg n v '.[$n]' a.txt",
    "jq -n --slurpfile a a.txt .",
    "xxd -c 8 a.txt",
    "xxd -cols 8 -g1 a.txt",
    "printf '%s\\n' x",
    "which -a ls",
    "type -a ls",
    "pwd -P",
    "strings -n 8 a.txt",
    "cut -d: -f1 a.txt",
    "diff -u a.txt a.txt",
    "md5sum a.txt",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only_commands_stay_read_only(command: str, workspace: Workspace) -> None:
    (workspace.cwd / "-a.txt").write_text("")
    verdict = classify(command, _ctx(workspace))
    assert verdict.read_only, verdict.reason
