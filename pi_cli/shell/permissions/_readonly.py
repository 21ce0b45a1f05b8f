"""The adversarial read-only classifier for bash commands.

A command is read-only only when it parses (:mod:`.bash_parse`), has no redirection, and every
simple command of its pipelines and chains is a known reader whose options cannot write or run
code and whose path arguments (globs expanded, symlinks resolved) lie inside the workspace.
Everything else is "not proven read-only": the caller asks. ``git`` counts only with the safety
overrides pi adds to the command itself (:data:`GIT_SAFE`), since a repository's own config can
make ``git status`` or ``git diff`` run programs.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from pi_cli.shell.permissions._bash_parse import ParseError, SimpleCommand, Word, parse
from pi_cli.shell.permissions._grammar import ASKS, READS, Parsed
from pi_cli.shell.permissions._readers import COMMANDS, Spec
from pi_cli.shell.permissions.git_readonly import GitPlan, git_plan
from pi_cli.shell.permissions.workspace import Workspace, real

MAX_GLOB_MATCHES = 500
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_DOT_GLOB = re.compile(r"(?:^|/)\.[^/]*[*?\[]")


class Verdict(NamedTuple):
    """The classifier's answer: ``command`` is the text to run (pi's git overrides added)."""

    read_only: bool
    reason: str
    command: str | None = None


class Context:
    """What classification needs to know.

    Attributes:
        workspace: where paths must lie.
        home: ``~`` for tilde expansion.
        search_path: ``PATH`` of the tool environment (a reader found inside the workspace,
            e.g. via ``PATH=.``, is not trusted).
        git_filters: whether the git repository at a directory configures filter programs.
        path_blocked: whether a resolved path is covered by a Read deny/ask rule.
    """

    def __init__(
        self,
        workspace: Workspace,
        home: str | None = None,
        search_path: str | None = None,
        git_filters: Callable[[Path], bool] = lambda _: False,
        path_blocked: Callable[[Path], bool] = lambda _: False,
    ) -> None:
        self.workspace = workspace
        self.home = os.path.expanduser("~") if home is None else home
        self.search_path = search_path
        self.git_filters = git_filters
        self.path_blocked = path_blocked


def classify(command: str, ctx: Context) -> Verdict:
    """Whether ``command`` is proven read-only inside the workspace (see the module doc)."""
    try:
        commands = parse(command, ctx.home)
    except ParseError as exc:
        return Verdict(False, f"cannot be analysed: {exc}")
    if not commands:
        return Verdict(False, "empty command")
    return classify_commands(commands, command, ctx)


def classify_commands(commands: list[SimpleCommand], source: str, ctx: Context) -> Verdict:
    """:func:`classify` for an already parsed command line (``source`` is its text)."""
    cwd = ctx.workspace.cwd
    insertions: list[tuple[int, str]] = []
    previous = ""
    for command in commands:
        checked = _check_command(command, cwd, previous, ctx)
        if isinstance(checked, str):
            return Verdict(False, checked)
        cwd, added = checked
        insertions.extend(added)
        previous = command.separator
    rewritten = source
    for position, text in sorted(insertions, reverse=True):
        rewritten = rewritten[:position] + text + rewritten[position:]
    return Verdict(True, "read-only", rewritten if insertions else None)


def _check_command(
    command: SimpleCommand, cwd: Path, previous: str, ctx: Context
) -> tuple[Path, list[tuple[int, str]]] | str:
    """One simple command: the directory after it and pi's git insertions, or why pi asks."""
    if command.redirects:
        return f"redirection in {command.text!r}"
    if not command.words:
        return "empty command"
    name = command.words[0]
    if _ASSIGNMENT.match(name.text) and not name.quoted:
        return f"environment assignment {name.text!r} before the command"
    if name.dynamic or name.glob or "/" in name.text:
        return f"command {name.text!r} is not a plain command name"
    if name.text == "cd":
        in_pipe = previous in ("|", "|&") or command.separator in ("|", "|&", "&")
        moved = None if in_pipe else _cd(command.words[1:], cwd, ctx)
        if moved is None:
            return f"{command.text!r} changes to a directory pi cannot follow"
        return moved, []
    spec = COMMANDS.get(name.text)
    insertions: list[tuple[int, str]] = []
    if spec is None and name.text != "git":
        return f"{name.text!r} is not a known read-only command"
    if spec is None:
        plan = git_plan(command.words, cwd, ctx.workspace, ctx.git_filters)
        if isinstance(plan, str):
            return plan
        problem = _check_paths(plan.paths, plan.cwd, ctx, command.text)
        insertions = _git_insertions(plan)
    else:
        problem = _check_args(spec, command.words[1:], cwd, ctx, command.text)
    return problem or _located(name.text, ctx) or (cwd, insertions)


def _git_insertions(plan: GitPlan) -> list[tuple[int, str]]:
    out = [(plan.after_git, " " + plan.global_flags)]
    if plan.sub_flags:
        out.append((plan.after_sub, " " + plan.sub_flags))
    return out


def _located(name: str, ctx: Context) -> str | None:
    spec = COMMANDS.get(name)
    if spec is not None and spec.builtin:
        return None
    found = shutil.which(name, path=ctx.search_path)
    if found is None:
        return f"{name!r} is not found on PATH"
    if not os.path.isabs(found) or ctx.workspace.contains(real(found)):
        return f"{name!r} resolves to {found}, inside the workspace (not a trusted reader)"
    return None


def _cd(args: list[Word], cwd: Path, ctx: Context) -> Path | None:
    if len(args) != 1 or args[0].dynamic or args[0].glob or args[0].text.startswith("-"):
        return None
    target = real(args[0].text, cwd)
    return target if ctx.workspace.contains(target) and target.is_dir() else None


def _check_args(spec: Spec, args: list[Word], cwd: Path, ctx: Context, text: str) -> str | None:
    if spec.grammar is None:
        return None  # echo, test, true, false: no options, no files
    words = _words(args, cwd)
    if isinstance(words, str):
        return f"{words} in {text!r}"
    if spec.response_files and any(word.startswith("@") for word in words):
        return f"an @FILE word reads more options from a file, in {text!r}"
    parsed = spec.grammar(words)
    if isinstance(parsed, str):
        return f"{parsed} (pi's table of its options cannot place it), in {text!r}"
    values: list[str] = []
    for given in parsed.options:
        option = given.option
        if option.effect == ASKS:
            return f"option {given.word} ({option.spelled}) {option.why}, in {text!r}"
        if option.effect == READS and given.value is not None:
            values.append(given.value)
    operands = _operands(spec, parsed)
    if isinstance(operands, str):
        return f"{operands}, in {text!r}"
    return _check_paths([*values, *operands] if spec.paths else values, cwd, ctx, text)


def _words(args: list[Word], cwd: Path) -> list[str] | str:
    """The words the program receives (globs expanded as bash expands them)."""
    words: list[str] = []
    for word in args:
        if word.dynamic:
            return f"{word.text!r} is only known when it runs ({word.dynamic})"
        expanded = _expand(word, cwd)
        if isinstance(expanded, str):
            return expanded
        words.extend(expanded)
    return words


def _operands(spec: Spec, parsed: Parsed) -> list[str] | str:
    operands = parsed.operands
    if spec.plus_format:
        operands = [operand for operand in operands if not operand.startswith("+")]
    if spec.filter_first and operands:
        if not any(given.option.key == "from-file" for given in parsed.options):
            operands = operands[1:]
    if spec.max_args is not None and len(operands) > spec.max_args:
        return "an operand that is written or set (an output file, the clock, the host name)"
    return operands


def _expand(word: Word, cwd: Path) -> list[str] | str:
    """The file names a glob word stands for (itself when nothing matches, as bash does)."""
    if not word.glob:
        return [word.text]
    pattern = word.text
    base = None if os.path.isabs(pattern) else str(cwd)
    matches = glob.glob(pattern, root_dir=base)
    if len(matches) > MAX_GLOB_MATCHES:
        return f"glob {pattern!r} matches too many files"
    if any(match.startswith("-") for match in matches):
        return f"glob {pattern!r} matches a file name that reads as an option"
    if _DOT_GLOB.search(pattern):
        # bash before 5.2 (no globskipdots) expands ".*" to "." and ".." too.
        matches.append(os.path.join(os.path.dirname(pattern), ".."))
    return matches or [pattern]


def _check_paths(paths: list[str], cwd: Path, ctx: Context, text: str) -> str | None:
    for path in paths:
        if not path:
            continue
        resolved = real(path, cwd)
        if not ctx.workspace.contains(resolved):
            return f"{text!r} reaches {resolved}, outside the workspace"
        if ctx.path_blocked(resolved):
            return f"{text!r} reads {resolved}, which a Read rule guards"
    return None
