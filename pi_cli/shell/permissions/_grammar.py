"""Option grammars: a program's options exactly as the program itself parses them.

A table lists *every* option a program has (so abbreviations resolve as the program resolves
them), each with its effect: harmless, its value is a file it reads (the workspace rule
applies), or it writes, runs a program, or otherwise needs a question. :func:`gnu` reads a
command's words against a table as glibc 2.36's ``getopt_long`` does (coreutils, grep,
diffutils, util-linux, file, binutils): short clusters (``-uo FILE``, ``-n5``, ``-e PATTERN``),
required and optional arguments (an optional one only attached: ``-w8``, ``--color=auto``),
``--opt=value`` and ``--opt value``, ``--`` ending options, a long option's unique prefix (an
exact name wins; a prefix matching options that differ is ambiguous and the program refuses),
and the program's order rule (permute, or stop at the first operand). ``abbreviate=False``
serves parsers that match long names exactly (ripgrep's, jq's, tree's).

Anything the parser cannot place (an unknown option, an ambiguous prefix, a missing value)
comes back as a reason string: the caller asks. The tables' text format is :func:`table`'s;
``tests/shell/permissions/test_option_tables.py`` checks every table against the installed
program.
"""

from __future__ import annotations

import re
from typing import NamedTuple

NO_ARG, REQUIRED, OPTIONAL, PAIR = 0, 1, 2, 3

HARMLESS, READS, ASKS = "", "read", "ask"

REASONS = {
    "w": "writes a file",
    "x": "runs a program",
    "sys": "changes the system",
    "follow": "follows symbolic links below its paths (they may lead out of the workspace)",
    "list": "reads the files another file names",
    "sandbox": "turns off the program's own sandbox",
    "time": "changes files' timestamps",
    "decompress": "runs decompression programs",
    "shell": "assigns a shell variable",
    "net": "contacts the network",
    "gpg": "verifies signatures (runs gpg)",
    "pager": "runs a pager or editor",
    "textconv": "runs the repository's textconv or filter programs",
    "git": "changes the repository",
    "stdin": "reads its arguments from standard input",
    "operands": "reads its operands as something else (tests, a program file)",
}
"""Why an option is not read-only, by the key its table entry names (``:!key``)."""


class Option(NamedTuple):
    """One option of a program (aliases share one).

    Attributes:
        key: its name in messages (the first long name, else the letter).
        arg: NO_ARG, REQUIRED or OPTIONAL.
        effect: HARMLESS, READS (its value is a file it reads) or ASKS.
        why: for ASKS, the reason the user and the model read.
        negatable: git only: ``--no-NAME`` exists (no ``PARSE_OPT_NONEG``).
    """

    key: str
    arg: int
    effect: str
    why: str
    negatable: bool

    @property
    def spelled(self) -> str:
        """``--key`` or ``-k``."""
        return ("--" if len(self.key) > 1 else "-") + self.key


class Table:
    """A program's options by short letter and by long name (in the program's order)."""

    __slots__ = ("longs", "numbers", "short")

    def __init__(self) -> None:
        self.short: dict[str, Option] = {}
        self.longs: dict[str, Option] = {}
        self.numbers = False  # git: a -NUM option (OPT_NUMBER_CALLBACK)

    def long_names(self) -> list[str]:
        """Every long name, as the program lists them."""
        return list(self.longs)


_TOKEN = re.compile(
    r"(?P<names>(?:\\.|[^=?+~:|\s])+(?:\|(?:\\.|[^=?+~:|\s])+)*)"
    r"(?P<arg>[=?+])?(?P<noneg>~)?(?::(?P<effect>\S+))?"
)
_ARGS = {None: NO_ARG, "=": REQUIRED, "?": OPTIONAL, "+": PAIR}


def table(text: str) -> Table:
    """Parse a table: whitespace-separated entries ``NAMES[=|?][~][:EFFECT]``.

    NAMES are ``|``-separated aliases (one character: a short option; longer: a long one,
    without its dashes; ``\\`` escapes a character); ``=`` the option requires a value, ``?``
    takes an optional one; ``~`` it cannot be negated (git's ``PARSE_OPT_NONEG``); EFFECT is
    ``r`` (its value is a file it reads), ``w`` (writes), ``x`` (runs a program) or ``!KEY``
    (asks, for the reason ``REASONS[KEY]``); ``+`` the option takes the next two words (jq's
    ``--arg NAME VALUE``; the second is its value). ``#`` as an entry sets git's ``-NUM``.
    """
    out = Table()
    for token in text.split():
        if token == "#":
            out.numbers = True
            continue
        match = _TOKEN.fullmatch(token)
        if match is None:
            raise ValueError(f"bad option table entry {token!r}")
        names = [re.sub(r"\\(.)", r"\1", name) for name in re.split(r"(?<!\\)\|", match["names"])]
        effect, why = _effect(match["effect"])
        longs = [name for name in names if len(name) > 1]
        option = Option(
            (longs or names)[0], _ARGS[match["arg"]], effect, why, match["noneg"] is None
        )
        for name in names:
            target = out.longs if len(name) > 1 else out.short
            if name in target:
                raise ValueError(f"option {name!r} listed twice")
            target[name] = option
    return out


def _effect(code: str | None) -> tuple[str, str]:
    if code is None:
        return HARMLESS, ""
    if code == "r":
        return READS, ""
    if code in ("w", "x"):
        return ASKS, REASONS[code]
    if code.startswith("!") and code[1:] in REASONS:
        return ASKS, REASONS[code[1:]]
    raise ValueError(f"bad option effect {code!r}")


class Given(NamedTuple):
    """An option as given: the option, the value it took (None: none), how it was written."""

    option: Option
    value: str | None
    word: str
    unset: bool = False


class Parsed(NamedTuple):
    """Options and operands of one command, in order."""

    options: list[Given]
    operands: list[str]


PERMUTE, REQUIRE_ORDER = "permute", "require"


def resolve_long(options: Table, name: str) -> Option | list[Option] | None:
    """glibc's long-name resolution: the exact name, else the options ``name`` is a prefix of
    (one: that option; several that differ: the ambiguity, as a list); None: no such option."""
    exact = options.longs.get(name)
    if exact is not None:
        return exact
    found: list[Option] = []
    for candidate, option in options.longs.items():
        if candidate.startswith(name) and option not in found:
            found.append(option)
    if not found:
        return None
    return found[0] if len(found) == 1 else found


def gnu(
    options: Table, args: list[str], order: str, program: str, *, abbreviate: bool = True
) -> Parsed | str:
    """Parse ``args`` as glibc's ``getopt_long`` does (``order``: PERMUTE, or REQUIRE_ORDER
    for an optstring starting with ``+``); ``abbreviate``: unique prefixes name options."""
    given: list[Given] = []
    operands: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word == "--":
            operands.extend(args[index:])
            break
        if not word.startswith("-") or word == "-":
            operands.append(word)
            if order == REQUIRE_ORDER:
                operands.extend(args[index:])
                break
            continue
        if word.startswith("--"):
            problem = _gnu_long(options, word, args, index, given, (program, abbreviate))
        else:
            problem = _gnu_short(options, word, args, index, given, program)
        if isinstance(problem, str):
            return problem
        index = problem
    return Parsed(given, operands)


def _gnu_long(
    options: Table,
    word: str,
    args: list[str],
    index: int,
    given: list[Given],
    how: tuple[str, bool],
) -> int | str:
    program, abbreviate = how
    name, eq, value = word[2:].partition("=")
    found = resolve_long(options, name) if abbreviate else options.longs.get(name)
    if found is None:
        return f"{program} has no option --{name}"
    if isinstance(found, list):
        could = ", ".join(option.spelled for option in found)
        return f"--{name} is ambiguous for {program} (could be {could})"
    if eq:
        if found.arg == NO_ARG:
            return f"{program} {found.spelled} takes no value"
        given.append(Given(found, value, word))
        return index
    if found.arg in (REQUIRED, PAIR):
        return _separate(found, word, args, index, given, program)
    given.append(Given(found, None, word))
    return index


def _separate(
    option: Option, word: str, args: list[str], index: int, given: list[Given], program: str
) -> int | str:
    """An option's value in the next word (PAIR: the next two; the second is the value)."""
    count = 2 if option.arg == PAIR else 1
    if index + count > len(args):
        return f"{program} {option.spelled} needs a value"
    given.append(Given(option, args[index + count - 1], word))
    return index + count


def _gnu_short(
    options: Table, word: str, args: list[str], index: int, given: list[Given], program: str
) -> int | str:
    position = 1
    while position < len(word):
        letter = word[position]
        position += 1
        option = options.short.get(letter)
        if option is None:
            return f"{program} has no option -{letter}"
        if option.arg == NO_ARG:
            given.append(Given(option, None, word))
            continue
        rest = word[position:]
        if rest and option.arg != PAIR:
            given.append(Given(option, rest, word))
        elif option.arg in (REQUIRED, PAIR):
            return _separate(option, word, args, index, given, program)
        else:
            given.append(Given(option, None, word))
        return index
    return index
