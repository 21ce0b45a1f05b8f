"""git's two option parsers, read as git 2.39 reads them.

:func:`parse_options` is ``parse-options.c`` (status, grep, branch, tag, ls-files, blame, …):
short clusters (``-iw``, ``-C3``, ``-e PATTERN``), ``-NUM`` where the command has
``OPT_NUMBER_CALLBACK``, a long option's exact name or any unique prefix of it (two different
options sharing the prefix: git refuses it as ambiguous, pi asks), ``--no-NAME`` negations (and
their prefixes) unless the option is ``PARSE_OPT_NONEG`` (``~`` in a table), an option named
``no-NAME`` given as ``--NAME``, ``--opt=value`` and ``--opt value`` for a required value, an
optional value only attached, operands anywhere (git permutes), ``--`` and ``--end-of-options``,
the bare words of ``PARSE_OPT_NODASH`` options (grep's ``(`` and ``)``).

:func:`revision_words` is the revision and diff parser of log/show/diff (``revision.c``'s
``handle_revision_opt`` and ``diff_opt_parse``, which parse-options runs with
``PARSE_OPT_KEEP_UNKNOWN_OPT``: no abbreviation). Long names match exactly; pi reads a short
option only alone (``-p``) or with its value attached (``-n5``, ``-U3``), never a cluster, and a
separate value that starts with ``-`` asks (git might read it as an option).
"""

from __future__ import annotations

from typing import NamedTuple

from pi_cli.shell.permissions._grammar import (
    NO_ARG,
    OPTIONAL,
    Given,
    Option,
    Parsed,
    Table,
    gnu,
)


def parse_options(options: Table, args: list[str], program: str) -> Parsed | str:
    """``args`` as git's parse-options reads them (see the module doc); a string: why not."""
    given: list[Given] = []
    operands: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word in ("--", "--end-of-options"):
            operands.extend(args[index:])
            break
        if word in ("(", ")") and word in options.short:  # PARSE_OPT_NODASH (grep)
            given.append(Given(options.short[word], None, word))
            continue
        if not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        if word.startswith("--"):
            step = _long(options, word, args, index, given, program)
        else:
            step = _short(options, word, args, index, given, program)
        if isinstance(step, str):
            return step
        index = step
    return Parsed(given, operands)


class Resolved(NamedTuple):
    """A long option as git resolved it: negated or not, and its ``=value`` (None: none)."""

    option: Option
    unset: bool
    value: str | None


def resolve_git_long(options: Table, arg: str) -> Resolved | list[str] | None:
    """``parse_long_opt`` on ``arg`` (a word without its ``--``, ``=value`` included): the
    option, or a list of the long names it is ambiguous between, or None (no such option).

    As git does: an exact name (or ``no-NAME``, or ``NAME`` of an option called ``no-NAME``)
    wins; else the options whose name starts with the text before ``=``, and, only when no
    ``=`` follows, negations abbreviated (``--no-ver``, and ``--n``/``--no``/``--no-`` for
    every negatable option).
    """
    head = arg.split("=", 1)[0]
    abbreviated: list[tuple[str, Option, bool]] = []
    for long_name, option in options.longs.items():
        found = _match(long_name, option, arg, head)
        if isinstance(found, Resolved):
            return found
        if found is not None:
            abbreviated.append((long_name, option, found))
    if not abbreviated:
        return None
    if len(abbreviated) > 1:
        return [long_name for long_name, _, _ in abbreviated]
    _, option, unset = abbreviated[0]
    value = None if unset or head == arg else arg[len(head) + 1 :]
    return Resolved(option, unset, value)


def _match(long_name: str, option: Option, arg: str, head: str) -> Resolved | bool | None:
    """One option against ``arg``: exact (Resolved), abbreviated (whether negated), None."""
    name, named_unset = long_name, False
    while True:
        exact = _exact(name, arg)
        if exact is not None:
            return Resolved(option, named_unset, exact or None) if exact != "!" else None
        if name.startswith(head):
            return named_unset
        if not option.negatable:
            return None
        if "no-".startswith(arg):
            return not named_unset
        if arg.startswith("no-"):
            exact = _exact(name, arg[3:])
            if exact is not None:
                return Resolved(option, not named_unset, exact or None) if exact != "!" else None
            return (not named_unset) if name.startswith(arg[3:]) else None
        if not name.startswith("no-"):
            return None
        name, named_unset = name[3:], True


def _exact(name: str, arg: str) -> str | None:
    """``arg`` names ``name`` exactly: "" (no value), its value after ``=``, or "!" when it
    starts with ``name`` and goes on with something else; None: it does not start with it."""
    if not arg.startswith(name):
        return None
    rest = arg[len(name) :]
    if not rest:
        return ""
    return rest[1:] if rest[0] == "=" else "!"


def _long(
    options: Table, word: str, args: list[str], index: int, given: list[Given], program: str
) -> int | str:
    found = resolve_git_long(options, word[2:])
    name = word[2:].split("=", 1)[0]
    if found is None:
        return f"git {program} has no option --{name}"
    if isinstance(found, list):
        could = ", ".join("--" + each for each in found)
        return f"--{name} is ambiguous for git {program} (could be {could})"
    option, unset, value = found
    eq = value is not None or word.endswith("=")
    if unset or option.arg == NO_ARG:
        if eq:
            return f"git {program} {word} takes no value"
        given.append(Given(option, None, word, unset))
        return index
    if eq:
        given.append(Given(option, value or "", word))
        return index
    if option.arg == OPTIONAL:
        given.append(Given(option, None, word))
        return index
    if index >= len(args):
        return f"git {program} {option.spelled} needs a value"
    given.append(Given(option, args[index], word))
    return index + 1


def _short(
    options: Table, word: str, args: list[str], index: int, given: list[Given], program: str
) -> int | str:
    position = 1
    while position < len(word):
        letter = word[position]
        if letter.isdigit() and options.numbers:
            end = position
            while end < len(word) and word[end].isdigit():
                end += 1
            position = end  # -NUM (OPT_NUMBER_CALLBACK): every digit, then more letters
            continue
        position += 1
        option = options.short.get(letter)
        if option is None:
            return f"git {program} has no option -{letter}"
        if option.arg == NO_ARG:
            given.append(Given(option, None, word))
            continue
        rest = word[position:]
        if rest or option.arg == OPTIONAL:
            given.append(Given(option, rest or None, word))
            return index
        if index >= len(args):
            return f"git {program} -{letter} needs a value"
        given.append(Given(option, args[index], word))
        return index + 1
    return index


def revision_words(options: Table, args: list[str], program: str) -> Parsed | str:
    """``args`` as log/show/diff read them (exact long names; see the module doc)."""
    for position, word in enumerate(args):
        if word in ("--", "--end-of-options"):
            break
        if word.startswith("-") and not word.startswith("--") and len(word) > 2:
            if word[1:].isdigit() and options.numbers:
                continue
            option = options.short.get(word[1])
            if option is None or option.arg == NO_ARG:
                return f"git {program} reads {word} as several options; give them one by one"
        previous = args[position - 1] if position else ""
        if word.startswith("-") and _takes_next(options, previous):
            return f"git {program} {previous} {word}: a value that reads as an option"
    numbers = [word for word in args if word[1:].isdigit() and word.startswith("-")]
    words = [word for word in args if word not in numbers] if options.numbers else args
    return gnu(options, words, "permute", f"git {program}", abbreviate=False)


def _takes_next(options: Table, word: str) -> bool:
    if word.startswith("--"):
        option = options.longs.get(word[2:])
    elif word.startswith("-") and len(word) == 2:
        option = options.short.get(word[1])
    else:
        return False
    return option is not None and option.arg not in (NO_ARG, OPTIONAL)
