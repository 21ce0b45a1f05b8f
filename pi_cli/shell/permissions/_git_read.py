"""Whether ``git SUB ARGS`` only reads: its words against the subcommand's option table.

Each read-only subcommand has a table (:mod:`._git_tables`) read by the parser git uses for it
(:mod:`._git_grammar`); an option that is not in it, an ambiguous prefix, or an option that
writes, runs a program or verifies a signature asks. Subcommands that also change things
(``branch``, ``tag``, ``config``, ``stash``, ``reflog``, ``worktree``, ``remote``) are read-only
only in their listing forms.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import NamedTuple

from pi_cli.shell.permissions._git_grammar import parse_options, revision_words
from pi_cli.shell.permissions._git_tables import DIFF, LOG, PARSE_OPTIONS, REV_LIST, REV_PARSE
from pi_cli.shell.permissions._grammar import ASKS, READS, Parsed, Table, gnu, table

_DIFF_SAFE = "--no-textconv --no-ext-diff"


class GitRead:
    """A read-only git subcommand: the paths it reads, the flags pi adds after word
    ``safe_after`` of its arguments (0: right after the subcommand)."""

    def __init__(self, paths: list[str], safe_flags: str = "", safe_after: int = 0) -> None:
        self.paths = paths
        self.safe_flags = safe_flags
        self.safe_after = safe_after


class _Sub(NamedTuple):
    text: str
    parser: str  # "options", "revision" or "exact"
    safe: str = ""


_SUBS: dict[str, _Sub] = {
    **{name: _Sub(text, "options") for name, text in PARSE_OPTIONS.items()},
    "blame": _Sub(PARSE_OPTIONS["blame"], "options", "--no-textconv"),
    "grep": _Sub(PARSE_OPTIONS["grep"], "options", "--no-textconv"),
    "log": _Sub(LOG, "revision", _DIFF_SAFE),
    "whatchanged": _Sub(LOG, "revision", _DIFF_SAFE),
    "show": _Sub(LOG, "revision", _DIFF_SAFE),
    "rev-list": _Sub(REV_LIST, "revision"),
    "diff": _Sub(DIFF, "revision", _DIFF_SAFE),
    "rev-parse": _Sub(REV_PARSE, "exact"),
    "stash list": _Sub(LOG, "revision", _DIFF_SAFE),
    "stash show": _Sub(DIFF, "revision", _DIFF_SAFE),
    "reflog": _Sub(LOG, "revision", _DIFF_SAFE),
    "reflog show": _Sub(LOG, "revision", _DIFF_SAFE),
    "remote get-url": _Sub("push all", "options"),
}
_NESTED = {"stash": ("list", "show"), "worktree": ("list",), "reflog": ("show",)}
_NESTED |= {"remote": ("get-url",)}
_OPTIONAL_NESTED = frozenset({"reflog", "remote"})


@cache
def _table(text: str) -> Table:
    return table(text)


def read_git(sub: str, args: list[str]) -> GitRead | str:
    """How ``git sub args`` reads (the paths it names), or why pi asks."""
    skip = 0
    if sub in _NESTED:
        if args and args[0] in _NESTED[sub]:
            sub, skip = f"{sub} {args[0]}", 1
        elif sub not in _OPTIONAL_NESTED:
            return f"git {sub} that changes the repository (pi reads only its listing forms)"
    spec = _SUBS.get(sub)
    if spec is None:
        return f"git {sub} is not a read-only git command"
    parsed = _parse(spec, args[skip:], sub)
    if isinstance(parsed, str):
        return f"{parsed} (pi's table of its options cannot place it)"
    values: list[str] = []
    for given in parsed.options:
        option = given.option
        if option.effect == ASKS and not given.unset:
            return f"git {sub} {given.word} ({option.spelled}) {option.why}"
        if option.effect == READS and given.value is not None and not given.unset:
            values.append(given.value)
    problem = _SHAPES[sub](parsed) if sub in _SHAPES else None
    if problem:
        return problem
    return GitRead([*values, *_operand_paths(sub, parsed)], spec.safe, skip)


def _parse(spec: _Sub, args: list[str], sub: str) -> Parsed | str:
    options = _table(spec.text)
    if spec.parser == "options":
        return parse_options(options, args, sub)
    if spec.parser == "revision":
        return revision_words(options, args, sub)
    return gnu(options, args, "permute", f"git {sub}", abbreviate=False)


def _operand_paths(sub: str, parsed: Parsed) -> list[str]:
    operands = [operand for operand in parsed.operands if operand != "--"]
    if sub in ("config", "remote get-url"):
        return []  # key names, a remote's name
    if sub == "grep" and not any(given.option.key in ("e", "file") for given in parsed.options):
        return operands[1:]  # the first is the pattern
    return operands


def _keys(parsed: Parsed) -> set[str]:
    return {given.option.key for given in parsed.options if not given.unset}


_LISTING = frozenset({"list", "contains", "no-contains", "merged", "no-merged", "points-at"})
_LISTING |= {"with", "without"}


def _branch(parsed: Parsed) -> str | None:
    if parsed.operands and not _keys(parsed) & _LISTING:
        return "git branch that creates, renames or deletes branches"
    return None


def _tag(parsed: Parsed) -> str | None:
    if parsed.operands and not _keys(parsed) & _LISTING:
        return "git tag that creates or deletes tags"
    return None


_CONFIG_READS = frozenset({"get", "get-all", "get-regexp", "get-urlmatch", "list"})
_CONFIG_READS |= {"get-color", "get-colorbool"}


def _config(parsed: Parsed) -> str | None:
    if not _keys(parsed) & _CONFIG_READS:
        return "git config that writes configuration (pi reads only --get, --list, ...)"
    return None


def _remote(parsed: Parsed) -> str | None:
    if parsed.operands:
        return "git remote that changes or contacts remotes"
    return None


def _get_url(parsed: Parsed) -> str | None:
    if len(parsed.operands) != 1:
        return "git remote get-url takes one remote name"
    return None


def _reflog(parsed: Parsed) -> str | None:
    if parsed.operands and parsed.operands[0] in ("expire", "delete", "exists"):
        return "git reflog that expires or deletes entries"
    return None


_SHAPES: dict[str, Callable[[Parsed], str | None]] = {
    "branch": _branch,
    "tag": _tag,
    "config": _config,
    "remote": _remote,
    "remote get-url": _get_url,
    "reflog": _reflog,
}
