"""Rules: ``.claude/rules/*.md`` and ``.pi/rules/*.md`` of the project and of the user.

Claude Code's format: every ``.md`` file under a rules directory (subdirectories included) is a
rule. One without ``paths`` in its front matter is loaded always, beside ``AGENTS.md``; one with
``paths`` (a list of globs, or one string; ``globs`` is read the same way, as rule files in the
wild use it) is *path-scoped*: it reaches the model only when a tool touches a matching file
(:mod:`pi_cli.shell.memory`). Globs are relative to the project folder (where pi runs, whose
``.pi/settings.json`` and trust apply) and follow Claude Code's (picomatch) semantics: ``*`` and ``?`` stay within one path
segment, ``**`` spans segments, ``{a,b}`` alternates, ``[abc]`` is a class; ``*.md`` matches
only at the root, ``**/*.md`` anywhere.

Project rules load only in a trusted folder (they are instructions a clone could plant: they
are among what the trust question names); the user's (``~/.claude/rules``, ``$PI_HOME/rules``) always. Each rule is capped
(:data:`MAX_RULE_BYTES`), there are at most :data:`MAX_RULES` per directory, and terminal escape
sequences and control characters are removed from their text.
"""

from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Literal

from pi_cli.shell.config.trust import RULE_DIRS
from pi_cli.shell.paths import pi_home
from pi_cli.shell.prompt.frontmatter import FrontmatterError, parse_document
from pi_cli.shell.text.terminal import clean

MAX_RULE_BYTES = 16 * 1024
"""A rule's text beyond this is cut (with a note saying so)."""
MAX_RULES = 200
"""Rule files read per directory (the first, in name order)."""
MAX_SCANNED = 5000
"""Entries of a rules folder looked at (the rest of a huge tree is not walked)."""
MAX_GLOBS = 64
MAX_GLOB_CHARS = 512
"""Globs per rule and characters per glob (longer ones are dropped)."""
RuleScope = Literal["project", "user"]


@dataclass(frozen=True)
class Rule:
    """One rule file."""

    path: Path
    body: str
    """The text after the front matter, cleaned and capped."""
    patterns: tuple[str, ...] = ()
    """Globs of the files it is about; empty: it always applies."""
    scope: RuleScope = "project"

    @property
    def always(self) -> bool:
        """It has no ``paths``: loaded with the context files."""
        return not self.patterns

    @cached_property
    def _regexes(self) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(glob_regex(p)) for p in self.patterns)

    def matches(self, relative: str) -> bool:
        """``relative`` (a ``/``-separated path from the project root) is one of its files."""
        return any(regex.fullmatch(relative) for regex in self._regexes)


@dataclass
class RuleSet:
    """The rules of one shell, and what could not be loaded."""

    rules: list[Rule] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    root: Path = Path()
    """The project folder the globs are relative to."""
    trusted: bool = False
    """The project's rules were read (the folder is trusted)."""

    @property
    def always(self) -> list[Rule]:
        """Rules without ``paths``."""
        return [r for r in self.rules if r.always]

    @property
    def scoped(self) -> list[Rule]:
        """Rules with ``paths``."""
        return [r for r in self.rules if not r.always]

    def matching(self, path: Path) -> list[Rule]:
        """The path-scoped rules about ``path`` (absolute, or relative to the root)."""
        absolute = path if path.is_absolute() else self.root / path
        try:
            relative = Path(os.path.normpath(absolute)).relative_to(self.root).as_posix()
        except ValueError:
            return []  # outside the project: no project glob is about it
        return [r for r in self.scoped if r.matches(relative)]


def rule_dirs(cwd: Path, trusted: bool) -> list[tuple[Path, RuleScope]]:
    """Where rules are read from, user ones first (project ones only if ``trusted``)."""
    dirs: list[tuple[Path, RuleScope]] = [
        (Path.home() / ".claude" / "rules", "user"),
        (pi_home() / "rules", "user"),
    ]
    if trusted:
        dirs += [(cwd / folder, "project") for folder in RULE_DIRS]
    return dirs


def load_rules(cwd: Path, trusted: bool) -> RuleSet:
    """Every rule the shell in ``cwd`` has (the project's only if ``trusted``)."""
    found = RuleSet(root=cwd, trusted=trusted)
    seen: set[Path] = set()
    for directory, scope in rule_dirs(cwd, trusted):
        for path in _rule_files(directory, found.problems):
            real = path.resolve()
            if real in seen:
                continue  # ~/.claude/rules linked into ~/.pi/rules, or one file linked twice
            seen.add(real)
            rule = _read_rule(path, scope, found.problems)
            if rule is not None:
                found.rules.append(rule)
    return found


def _rule_files(directory: Path, problems: list[str]) -> list[Path]:
    if not directory.is_dir():
        return []
    try:
        found = itertools.islice(directory.rglob("*.md"), MAX_SCANNED)  # a huge tree: bounded
        files = sorted(p for p in found if p.is_file())
    except OSError as exc:
        problems.append(f"Cannot list rules in {directory}: {exc.strerror or exc}")
        return []
    if len(files) > MAX_RULES:
        problems.append(f"{directory}: {len(files)} rule files, only the first {MAX_RULES} read.")
    return files[:MAX_RULES]


def _read_rule(path: Path, scope: RuleScope, problems: list[str]) -> Rule | None:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_RULE_BYTES + 1)
    except OSError as exc:
        problems.append(f"Cannot read rule {path}: {exc.strerror or exc}")
        return None
    text = raw[:MAX_RULE_BYTES].decode("utf-8", "replace")
    try:
        document = parse_document(text)
        patterns = _patterns(document.fields.get("paths", document.fields.get("globs")))
        body = document.body
    except FrontmatterError:
        patterns, body = _lenient(text)  # unquoted `- **/*.ts` is a YAML alias, but common
    body = clean(body).strip()
    if len(raw) > MAX_RULE_BYTES:
        body += f"\n\n[rule cut at {MAX_RULE_BYTES // 1024} KB: read {path} for the rest]"
    if patterns is None:
        problems.append(f"Rule {path}: `paths` is not a list of globs; loaded for every file.")
        patterns = ()
    return Rule(path, body, patterns, scope)


def _patterns(value: object) -> tuple[str, ...] | None:
    """Globs from a front matter value (None: not globs)."""
    if value is None:
        return ()
    if isinstance(value, str):
        globs = _split_commas(value)
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        globs = [p for v in value if (p := clean(v).strip())]
    else:
        return None
    return tuple(g for g in globs[:MAX_GLOBS] if len(g) <= MAX_GLOB_CHARS)


def _split_commas(value: str) -> list[str]:
    """``"a/*.ts, {b,c}/*"`` -> two globs (commas inside braces belong to the glob)."""
    parts, depth, current = [], 0, ""
    for char in clean(value):
        depth += (char == "{") - (char == "}")
        if char == "," and depth <= 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return [p.strip().strip("\"'") for p in parts if p.strip().strip("\"'")]


_KEY = re.compile(r"(paths|globs)\s*:\s*(.*)")


def _lenient(text: str) -> tuple[tuple[str, ...], str]:
    """The front matter read line by line when it is not YAML: ``paths:`` with a scalar or a
    ``- item`` list (items taken literally)."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").split("\n")
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if not lines or lines[0].rstrip() != "---" or end is None:
        return (), text
    patterns: list[str] = []
    in_list = False
    for line in lines[1:end]:
        if (key := _KEY.fullmatch(line.strip())) is not None:
            in_list = not key.group(2)
            patterns += _split_commas(key.group(2))
        elif in_list and line.strip().startswith("- "):
            patterns.append(line.strip()[2:].strip().strip("\"'"))
        elif line and not line[0].isspace():
            in_list = False
    kept = tuple(p for p in patterns[:MAX_GLOBS] if p and len(p) <= MAX_GLOB_CHARS)
    return kept, "\n".join(lines[end + 1 :])


def glob_regex(pattern: str) -> str:
    """A picomatch-style glob as a regular expression over ``/``-separated relative paths."""
    pattern = pattern.strip().removeprefix("./")
    pattern = re.sub(r"\*{3,}", "**", pattern)  # runs of stars and of ``**/`` say no more
    pattern = re.sub(r"(?:\*\*/)+", "**/", pattern)  # than one: and cannot backtrack long
    return _translate(pattern, 0, len(pattern))


def _translate(pattern: str, start: int, end: int) -> str:
    out: list[str] = []
    i = start
    while i < end:
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*" if i == start or pattern[i - 1] == "/" else "[^/]*/")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[" and (close := pattern.find("]", i + 2, end)) > 0:
            body = pattern[i + 1 : close].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body[:1] in "!^" else body) + "]")
            i = close + 1
        elif char == "{" and (close := _matching_brace(pattern, i, end)) > 0:
            options = _split_top(pattern, i + 1, close)
            out.append("(?:" + "|".join(_translate(pattern, a, b) for a, b in options) + ")")
            i = close + 1
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)


def _matching_brace(pattern: str, start: int, end: int) -> int:
    depth = 0
    for i in range(start, end):
        depth += (pattern[i] == "{") - (pattern[i] == "}")
        if depth == 0:
            return i
    return -1


def _split_top(pattern: str, start: int, end: int) -> list[tuple[int, int]]:
    """The comma-separated spans of a brace group's inside (nested groups kept whole)."""
    spans, depth, begin = [], 0, start
    for i in range(start, end):
        depth += (pattern[i] == "{") - (pattern[i] == "}")
        if pattern[i] == "," and depth == 0:
            spans.append((begin, i))
            begin = i + 1
    spans.append((begin, end))
    return spans
