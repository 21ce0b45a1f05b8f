"""A conservative parser for the part of bash pi reasons about (rules, the read-only classifier).

It splits a command line into simple commands the way bash would (quotes, escapes, comments,
``|``, ``&&``, ``||``, ``;``, ``&``, newlines, redirections) and refuses what it cannot follow
exactly: command substitution (``$(...)``, backticks), arithmetic, process substitution,
subshells and groups, here-documents, ``case`` clauses, control characters, unterminated quotes.
A refusal is a :class:`ParseError`; callers treat it as "ask". Expansions whose value is known
only when the command runs (``$VAR``, ``${...}``, ``$'...'``, ``{a,b}``, ``~user``) are kept as
words marked ``dynamic``; unquoted glob characters are marked ``glob``.

Not bashlex: importing it costs ~120 ms (its parser tables), and its gaps are crashes, not asks.
"""

from __future__ import annotations

from typing import NamedTuple

SEPARATORS = ("||", "&&", "|&", "|", ";", "&", "\n")
REDIRECTIONS = ("<<<", "<<-", "&>>", "<<", ">>", "<&", ">&", "<>", ">|", "&>", "<", ">")
_UNSUPPORTED = (";;&", ";;", ";&", "(", ")")
_OPERATORS = sorted({*SEPARATORS, *REDIRECTIONS, *_UNSUPPORTED} - {"\n"}, key=len, reverse=True)
_META = frozenset(" \t\n|&;()<>")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME = _NAME_START | frozenset("0123456789")
_SPECIAL_PARAMS = frozenset("0123456789@*#?$!-")
_DQ_ESCAPABLE = frozenset('$`"\\\n')


class ParseError(Exception):
    """The command uses bash that pi does not follow exactly (the message says which part)."""


class Word(NamedTuple):
    """One word of a simple command.

    Attributes:
        text: the value after quote removal (a leading ``~`` / ``~/`` expanded to ``home``).
        start / end: its span in the source text.
        quoted: some part of it was quoted or escaped.
        glob: it has unquoted ``*``, ``?`` or ``[`` (bash expands it against file names).
        dynamic: why its value is only known at run time, or ``None`` when it is static.
    """

    text: str
    start: int
    end: int
    quoted: bool = False
    glob: bool = False
    dynamic: str | None = None


class Redirect(NamedTuple):
    """A redirection: ``op`` (``>``, ``2>``'s ``>`` with ``fd`` ``"2"``...) and its target word."""

    op: str
    target: Word
    fd: str | None = None

    @property
    def touches_file(self) -> bool:
        """False only for a duplication of a descriptor (``2>&1``, ``>&2``, ``<&-``)."""
        target = self.target.text
        return not (self.op in (">&", "<&") and (target.isdigit() or target == "-"))


class SimpleCommand:
    """Words and redirections up to the next separator (``separator``: the one after it).

    Plain classes and NamedTuples here, not dataclasses: this module is on the one-shot's
    start-up path, and each dataclass costs a few tenths of a millisecond to create.
    """

    __slots__ = ("redirects", "separator", "words")

    def __init__(
        self,
        words: list[Word] | None = None,
        redirects: list[Redirect] | None = None,
        separator: str = "",
    ) -> None:
        self.words: list[Word] = words if words is not None else []
        self.redirects: list[Redirect] = redirects if redirects is not None else []
        self.separator = separator

    @property
    def text(self) -> str:
        """The words joined by single spaces (what rules are matched against)."""
        return " ".join(word.text for word in self.words)

    @property
    def static(self) -> bool:
        """No word's value depends on the run (no variables, brace expansion, ``~user``)."""
        return all(word.dynamic is None for word in self.words)


class _Op(NamedTuple):
    op: str
    start: int
    end: int


def parse(source: str, home: str = "") -> list[SimpleCommand]:
    """The simple commands of ``source`` in order; raises :class:`ParseError` when unsure."""
    return _assemble(_Lexer(source, home).tokens())


def _assemble(tokens: list[Word | _Op]) -> list[SimpleCommand]:
    commands: list[SimpleCommand] = []
    current = SimpleCommand()
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if isinstance(token, Word):
            follows = tokens[index] if index < len(tokens) else None
            is_fd = (
                isinstance(follows, _Op)
                and follows.op in REDIRECTIONS
                and follows.start == token.end
                and token.text.isdigit()
                and not token.quoted
            )
            if not is_fd:
                current.words.append(token)
                continue
            assert isinstance(follows, _Op)
            index = _redirect(tokens, index + 1, follows, current, token.text)
            continue
        if token.op in REDIRECTIONS:
            index = _redirect(tokens, index, token, current, None)
        elif token.op in SEPARATORS:
            if not current.words and not current.redirects:
                if token.op == "\n":
                    continue
                raise ParseError(f"syntax error near {token.op!r}")
            current.separator = token.op
            commands.append(current)
            current = SimpleCommand()
        else:
            raise ParseError(f"{token.op!r} (subshells, groups and case clauses are not followed)")
    if current.words or current.redirects:
        commands.append(current)
    elif commands and commands[-1].separator in ("|", "|&", "&&", "||"):
        raise ParseError(f"incomplete command after {commands[-1].separator!r}")
    return commands


def _redirect(
    tokens: list[Word | _Op], index: int, op: _Op, current: SimpleCommand, fd: str | None
) -> int:
    if op.op in ("<<", "<<-"):
        raise ParseError("here-documents are not followed")
    target = tokens[index] if index < len(tokens) else None
    if not isinstance(target, Word):
        raise ParseError(f"redirection {op.op!r} without a target")
    current.redirects.append(Redirect(op.op, target, fd))
    return index + 1


class _Lexer:
    def __init__(self, source: str, home: str) -> None:
        self.s = source
        self.n = len(source)
        self.home = home
        self.i = 0

    def tokens(self) -> list[Word | _Op]:
        out: list[Word | _Op] = []
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if c in " \t":
                self.i += 1
            elif c == "\n":
                out.append(_Op("\n", self.i, self.i + 1))
                self.i += 1
            elif c == "#":  # a comment: only at the start of a word, which is where we are
                end = s.find("\n", self.i)
                self.i = self.n if end < 0 else end
            elif c == "\\" and s.startswith("\\\n", self.i):
                self.i += 2  # line continuation between words
            elif (op := self._operator()) is not None:
                out.append(_Op(op, self.i, self.i + len(op)))
                self.i += len(op)
            else:
                out.append(self._word())
        return out

    def _operator(self) -> str | None:
        for op in _OPERATORS:
            if self.s.startswith(op, self.i):
                return op
        return None

    def _word(self) -> Word:
        s, start = self.s, self.i
        parts: list[str] = []
        quoted = glob = False
        dynamic: str | None = None
        while self.i < self.n:
            c = s[self.i]
            if c in _META:
                break
            if ord(c) < 32 and c != "\t" or c == "\x7f":
                raise ParseError(f"control character {c!r}")
            if c in "'\"\\$`" or (c == "~" and self.i == start):
                text, was_quoted, why = self._special(c)
                parts.append(text)
                quoted, dynamic = quoted or was_quoted, dynamic or why
                continue
            if c in "*?[":
                glob = True
            elif c in "{}":
                dynamic = dynamic or "brace expansion"
            elif c == "~" and s[self.i - 1] in "=:":
                dynamic = dynamic or "tilde expansion"
            parts.append(c)
            self.i += 1
        return Word("".join(parts), start, self.i, quoted, glob, dynamic)

    def _special(self, c: str) -> tuple[str, bool, str | None]:
        """A quote, escape, expansion or leading tilde at ``self.i``: (its text, whether it
        quoted, why the word is not a literal); moves past it."""
        s = self.s
        if c == "'":
            end = s.find("'", self.i + 1)
            if end < 0:
                raise ParseError("unterminated single quote")
            text = s[self.i + 1 : end]
            self._check_controls(text)
            self.i = end + 1
            return text, True, None
        if c == '"':
            text, why = self._double_quoted()
            return text, True, why
        if c == "\\":
            return self._escaped()
        if c == "$":
            text, why = self._dollar(in_quotes=False)
            return text, False, why
        if c == "`":
            raise ParseError("command substitution (backticks)")
        text, why = self._tilde()
        return text, False, why

    def _escaped(self) -> tuple[str, bool, str | None]:
        """A backslash outside quotes: the next character taken literally (a line continuation
        is nothing; a backslash at the very end is itself)."""
        s = self.s
        if self.i + 1 >= self.n:
            self.i += 1
            return "\\", False, None
        if s[self.i + 1] == "\n":
            self.i += 2
            return "", False, None
        self._check_controls(s[self.i + 1])
        self.i += 2
        return s[self.i - 1], True, None

    @staticmethod
    def _check_controls(text: str) -> None:
        for ch in text:
            if (ord(ch) < 32 and ch not in "\t\n") or ch == "\x7f":
                raise ParseError(f"control character {ch!r}")

    def _double_quoted(self) -> tuple[str, str | None]:
        s = self.s
        self.i += 1
        parts: list[str] = []
        dynamic: str | None = None
        while self.i < self.n:
            c = s[self.i]
            if c == '"':
                self.i += 1
                return "".join(parts), dynamic
            if c == "\\" and self.i + 1 < self.n and s[self.i + 1] in _DQ_ESCAPABLE:
                if s[self.i + 1] != "\n":
                    parts.append(s[self.i + 1])
                self.i += 2
            elif c == "$":
                text, why = self._dollar(in_quotes=True)
                parts.append(text)
                dynamic = dynamic or why
            elif c == "`":
                raise ParseError("command substitution (backticks)")
            else:
                self._check_controls(c)
                parts.append(c)
                self.i += 1
        raise ParseError("unterminated double quote")

    def _dollar(self, *, in_quotes: bool) -> tuple[str, str | None]:
        s, i = self.s, self.i
        nxt = s[i + 1] if i + 1 < self.n else ""
        if nxt == "(":
            raise ParseError("command substitution or arithmetic ($(...))")
        if nxt == "{":
            end = s.find("}", i + 2)
            if end < 0:
                raise ParseError("unterminated ${...}")
            inner = s[i + 2 : end]
            if any(ch in inner for ch in "$`'\"(\\"):
                raise ParseError("nested expansion inside ${...}")
            self.i = end + 1
            return s[i : end + 1], "parameter expansion"
        if nxt in ("'", '"') and not in_quotes:
            raise ParseError(f"${nxt}...{nxt} quoting is not followed")
        if nxt in _NAME_START:
            j = i + 2
            while j < self.n and s[j] in _NAME:
                j += 1
            self.i = j
            return s[i:j], "variable"
        if nxt and nxt in _SPECIAL_PARAMS:
            self.i = i + 2
            return s[i : i + 2], "special parameter"
        self.i = i + 1
        return "$", None  # a lone dollar is literal

    def _tilde(self) -> tuple[str, str | None]:
        s, i = self.s, self.i
        j = i + 1
        while j < self.n and s[j] not in _META and s[j] != "/":
            j += 1
        self.i = j
        if j == i + 1 and self.home:
            return self.home, None
        return s[i:j], "tilde expansion"
