"""The commands pi may run without asking, each with the grammar its options are read by.

Every option a reader has is in its table (:mod:`._gnu_tables`, :mod:`._own_parsers`); an option
that is not, or a prefix that is ambiguous, asks. Tables are parsed on first use, so the one-shot
(one read-only ``ls``) pays for one table only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import NamedTuple

from pi_cli.shell.permissions._gnu_tables import REQUIRE_ORDER, gnu_table_text
from pi_cli.shell.permissions._grammar import PERMUTE, Parsed, Table, gnu, table
from pi_cli.shell.permissions._own_parsers import (
    BUILTINS,
    JQ,
    RG,
    TREE,
    WHICH,
    find_words,
    xxd_words,
)

Grammar = Callable[[list[str]], "Parsed | str"]


class Spec(NamedTuple):
    """What makes one command read-only.

    Attributes:
        grammar: how its words are read (None: it takes no options, every word an operand).
        paths: its operands are files (checked to be inside the workspace).
        max_args: at most this many operands (``uniq IN OUT`` writes OUT).
        builtin: a bash builtin (no ``PATH`` lookup).
        plus_format: ``+FORMAT`` operands are formats (``date +%F``); any other operand of
            ``date`` sets the clock.
        filter_first: the first operand is a program text (jq), not a file, unless
            ``--from-file`` makes it one.
        response_files: an ``@FILE`` word anywhere is a file of more options (binutils'
            ``expandargv`` reads it before any option): asks.
    """

    grammar: Grammar | None
    paths: bool = True
    max_args: int | None = None
    builtin: bool = False
    plus_format: bool = False
    filter_first: bool = False
    response_files: bool = False


_OBSOLETE_COUNT = re.compile(r"-[0-9]+[a-z]*")


def _gnu(name: str) -> Grammar:
    order = "require" if name in REQUIRE_ORDER else PERMUTE
    program = "grep" if name in ("egrep", "fgrep") else name
    obsolete = name in ("head", "tail")

    def parse(args: list[str]) -> Parsed | str:
        if obsolete and args and _OBSOLETE_COUNT.fullmatch(args[0]):
            # head/tail read a first word -NUM[suffixes] whole, before getopt (``-5c``).
            return gnu(_gnu_table(program), args[1:], order, name)
        return gnu(_gnu_table(program), args, order, name)

    return parse


@cache
def _gnu_table(name: str) -> Table:
    return table(gnu_table_text(name))


def _exact(name: str, text: str, order: str = PERMUTE) -> Grammar:
    def parse(args: list[str]) -> Parsed | str:
        return gnu(_text_table(text), args, order, name, abbreviate=False)

    return parse


@cache
def _text_table(text: str) -> Table:
    return table(text)


_PATHS = (
    "cat head tail wc stat du df basename dirname realpath readlink cut nl od hexdump md5sum "
    "sha1sum sha256sum sha512sum b2sum cksum cmp diff comm tac rev paste fold expand unexpand "
    "column grep egrep fgrep ls sort file"
).split()
_NO_PATHS = "whoami id uname printenv seq tr sleep".split()

COMMANDS: dict[str, Spec] = {
    **{name: Spec(_gnu(name)) for name in _PATHS},
    **{name: Spec(_gnu(name), paths=False) for name in _NO_PATHS},
    "strings": Spec(_gnu("strings"), response_files=True),
    "uniq": Spec(_gnu("uniq"), max_args=1),
    "date": Spec(_gnu("date"), paths=False, max_args=0, plus_format=True),
    "hostname": Spec(_gnu("hostname"), paths=False, max_args=0),
    "find": Spec(find_words),
    "xxd": Spec(xxd_words, max_args=1),
    "rg": Spec(_exact("rg", RG)),
    "tree": Spec(_exact("tree", TREE)),
    "jq": Spec(_exact("jq", JQ), filter_first=True),
    "which": Spec(_exact("which", WHICH, "require"), paths=False),
    **{
        name: Spec(_exact(name, text, "require"), paths=False, builtin=True)
        for name, text in BUILTINS.items()
    },
    **dict.fromkeys(("echo", "true", "false", "test", "["), Spec(None, paths=False, builtin=True)),
}
"""The read-only commands (``sed``/``awk``/``xargs``/``env`` can write or run code: absent)."""
