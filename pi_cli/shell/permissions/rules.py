"""Permission rules in Claude Code's syntax: ``Tool`` or ``Tool(specifier)``.

- ``Bash(npm test:*)``: a simple command that is ``npm test`` or starts with ``npm test ``;
  ``Bash(git * main)``: ``*`` matches anything (a single trailing `` *`` may match nothing);
  ``Bash(ls -la)``: exactly that command. Matched against every simple command of a pipeline
  or chain (see :mod:`.engine`).
- ``Read(path)`` / ``Edit(path)`` (``Write`` is an alias of ``Edit``): gitignore-style patterns;
  ``//abs`` is absolute, ``~/x`` under the home directory, ``/x`` relative to the root of the
  settings file the rule comes from, ``./x`` or ``x`` relative to the working directory (a
  pattern without ``/`` matches that name at any depth). Read rules cover read, grep, find, ls;
  Edit rules cover edit and write.
- ``WebFetch(domain:example.com)``: web_fetch calls to that host (:mod:`.web` says how allow
  and deny rules treat subdomains).
- A bare name (``Bash``, ``read``, ``WebFetch``, ``Task``, ``mcp__github``,
  ``mcp__github__create_issue``) matches every call of that tool; pi's and Claude Code's names
  are both accepted.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal, NamedTuple

from pi_cli.shell.permissions._bash_parse import ParseError, parse

Behavior = Literal["allow", "ask", "deny"]
BEHAVIORS: tuple[Behavior, ...] = ("deny", "ask", "allow")

_TOOLS = {
    "bash": "bash",
    "read": "read",
    "edit": "edit",
    "write": "edit",
    "multiedit": "edit",
    "notebookedit": "edit",
    "grep": "grep",
    "glob": "find",
    "find": "find",
    "ls": "ls",
    "webfetch": "web_fetch",
    "web_fetch": "web_fetch",
    "websearch": "web_search",
    "web_search": "web_search",
    "task": "task",
    "todowrite": "todo_write",
    "todo_write": "todo_write",
    "exitplanmode": "exit_plan_mode",
    "exit_plan_mode": "exit_plan_mode",
    "askuserquestion": "ask_user",
    "ask_user": "ask_user",
    "monitor": "monitor",
}
READ_TOOLS = frozenset({"read", "grep", "find", "ls"})
EDIT_TOOLS = frozenset({"edit", "write"})


class RuleError(ValueError):
    """A rule that cannot be parsed (the message quotes it)."""


class Rule(NamedTuple):
    """One parsed rule.

    Attributes:
        text: as written.
        tool: ``bash``, ``read`` (all readers), ``edit`` (edit and write), ``grep``, ``find``,
            ``ls``, or another tool's exact name (MCP tools).
        specifier: the part in parentheses (``None`` for a bare name or ``(*)``).
        source: where it came from, for messages (``~/.pi/settings.json``, ``--allowed-tools``).
        base: the directory ``/x`` patterns are relative to.
    """

    text: str
    tool: str
    specifier: str | None = None
    source: str = ""
    base: Path = Path()

    def describe(self) -> str:
        """``Bash(rm:*) (from ~/.pi/settings.json)``."""
        return f"{self.text} (from {self.source})" if self.source else self.text

    def covers_tool(self, tool: str) -> bool:
        """Whether this rule is about calls of pi's ``tool``."""
        if self.tool == "read":
            return tool in READ_TOOLS
        if self.tool == "edit":
            return tool in EDIT_TOOLS
        if self.tool.startswith("mcp__") and tool.startswith("mcp__"):
            name = self.tool.removesuffix("__*")
            return tool == name or tool.startswith(name + "__") or _wild(self.tool, tool)
        return self.tool == tool


def parse_rule(text: str, source: str = "", base: Path | None = None) -> Rule:
    """Parse one rule (raises :class:`RuleError`)."""
    stripped = text.strip()
    if not stripped:
        raise RuleError("empty permission rule")
    name, paren, rest = stripped.partition("(")
    name = name.strip()
    specifier: str | None = None
    if paren:
        if not rest.endswith(")"):
            raise RuleError(f"permission rule {text!r} has no closing parenthesis")
        specifier = rest[:-1].strip() or None
        if specifier == "*":
            specifier = None
    if not name or not re.fullmatch(r"[A-Za-z0-9_.*-]+", name):
        raise RuleError(f"permission rule {text!r}: {name!r} is not a tool name")
    tool = _TOOLS.get(name.lower(), name)
    if specifier is not None and tool == "web_fetch":
        from pi_cli.shell.permissions._web import DomainError, parse_domain

        try:
            parse_domain(specifier)
        except DomainError as exc:
            raise RuleError(f"permission rule {text!r}: {exc}") from None
    elif specifier is not None and tool not in ("bash", *READ_TOOLS, "edit"):
        raise RuleError(f"permission rule {text!r}: {name} takes no specifier")
    return Rule(stripped, tool, specifier, source, base or Path.cwd())


def split_rules(value: str) -> list[str]:
    """``"Bash(git log:*) Read,Edit(src/**)"`` -> the three rules (split outside parentheses)."""
    out: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in value:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (ch == "," or ch.isspace()):
            if current:
                out.append("".join(current))
                current = []
            continue
        current.append(ch)
    if current:
        out.append("".join(current))
    return out


def _wild(pattern: str, text: str) -> bool:
    regex = ".*".join(re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(regex, text) is not None


def _normalise(command: str) -> str:
    """A specifier as the words bash would see (quotes removed, spaces collapsed)."""
    if "*" in command:
        return " ".join(command.split())
    try:
        commands = parse(command)
    except ParseError:
        return " ".join(command.split())
    return " ".join(w.text for c in commands for w in c.words) if commands else command


def command_matches(specifier: str, command: str) -> bool:
    """Whether one simple command's text matches a ``Bash(...)`` specifier."""
    if specifier.endswith(":*"):
        prefix = _normalise(specifier[:-2])
        return command == prefix or command.startswith(prefix + " ")
    spec = _normalise(specifier)
    if "*" not in spec:
        return command == spec
    if spec.endswith(" *") and spec.count("*") == 1:
        regex = re.escape(spec[:-2]) + "(?: .*)?"
    else:
        regex = ".*".join(re.escape(part) for part in spec.split("*"))
    return re.fullmatch(regex, command, flags=re.DOTALL) is not None


def path_regex(specifier: str, base: Path, cwd: Path, home: str) -> re.Pattern[str]:
    """The absolute-path regex of a Read/Edit pattern (see the module doc for its forms)."""
    spec = specifier
    if spec.startswith("//"):
        absolute = spec[1:]
    elif spec.startswith("~/") or spec == "~":
        absolute = home + spec[1:]
    elif spec.startswith("/"):
        absolute = str(base) + spec
    else:
        relative = spec[2:] if spec.startswith("./") else spec
        anywhere = "/" not in relative.rstrip("/")
        absolute = str(cwd) + ("/**/" if anywhere else "/") + relative
    if absolute.endswith("/"):
        absolute += "**"
    return re.compile(_glob_regex(os.path.normpath(absolute) if "**" not in absolute else absolute))


def _glob_regex(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("/**/", i):
            out.append("/(?:.*/)?")
            i += 4
        elif pattern.startswith("/**", i) and i + 3 == n:
            out.append("(?:/.*)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) > 0:
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    # A pattern that names a directory covers what is inside it (gitignore semantics).
    return "".join(out) + "(?:/.*)?"
