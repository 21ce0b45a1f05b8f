"""The words of ``pi review`` and ``/review``, parsed (one table for both)."""

from __future__ import annotations

from dataclasses import dataclass

from pi_cli.shell.review.report import FAIL_ON
from pi_cli.shell.review.target import looks_like_rev

FORMATS = ("human", "json", "sarif")
VALUE_FLAGS = {
    "--base": "base",
    "--model": "model",
    "-m": "model",
    "--focus": "focus",
    "--fail-on": "fail_on",
    "--format": "format",
    "--output": "output",
    "-o": "output",
    "--provider": "provider",
    "--api-base": "api_base",
    "--api-key": "api_key",
    "--api-key-file": "api_key_file",
    "--max-cost": "max_cost",
    "--max-turns": "max_turns",
}
"""Options with a value (``--flag VALUE`` or ``--flag=VALUE``) and where it goes."""
SWITCHES = {
    "--json": ("format", "json"),
    "--sarif": ("format", "sarif"),
    "--branch": ("branch", True),
    "--uncommitted": ("uncommitted", True),
    "--trust": ("trust", True),
    "--help": ("help", True),
    "-h": ("help", True),
}
SLASH_ONLY = frozenset({"base", "model", "focus", "fail_on", "format", "branch", "uncommitted"})
"""What ``/review`` accepts (the connection, budgets and output file are the session's)."""
REVIEW_USAGE = """\
pi review [TARGET] [--base REF | --branch] [--focus TEXT] [--model PROVIDER/MODEL]
          [--json | --sarif | --format human|json|sarif] [--output FILE]
          [--fail-on critical|high|medium|low|info|none] [--max-cost USD] [--max-turns N]

TARGET: nothing (the uncommitted changes, untracked files included), a commit (HEAD~1,
abc1234) or a range (main..topic, main...topic). --branch reviews the current branch
against its base (its upstream, origin/HEAD, main or master); --base REF names the base.
Exit codes: 0 reviewed, 9 a finding at or above --fail-on, 2 bad arguments or target,
1 the reviewer failed, 5 a budget stopped it, 6 no valid answer, 130 interrupted."""


class ReviewUsageError(ValueError):
    """The words do not make a review (the message says why)."""


@dataclass
class ReviewArgs:
    """A review as asked for."""

    target: str | None = None
    base: str | None = None
    branch: bool = False
    uncommitted: bool = False
    model: str | None = None
    focus: str | None = None
    fail_on: str = "none"
    format: str = "human"
    output: str | None = None
    provider: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    api_key_file: str | None = None
    max_cost: str | None = None
    max_turns: str | None = None
    trust: bool = False
    help: bool = False


def _split(word: str) -> tuple[str, str | None]:
    flag, eq, value = word.partition("=")
    return (flag, value) if eq and flag.startswith("--") else (word, None)


def parse_review_args(words: list[str], *, slash: bool = False) -> ReviewArgs:
    """``words`` as a review (raises :class:`ReviewUsageError`)."""
    args = ReviewArgs()
    index = 0
    while index < len(words):
        flag, inline = _split(words[index])
        index += 1
        if flag in VALUE_FLAGS:
            name = VALUE_FLAGS[flag]
            if inline is None:
                if index >= len(words):
                    raise ReviewUsageError(f"{flag} needs a value")
                inline = words[index]
                index += 1
            _allowed(name, flag, slash)
            setattr(args, name, inline)
        elif flag in SWITCHES and inline is None:
            name, value = SWITCHES[flag]
            _allowed(name, flag, slash)
            setattr(args, name, value)
        elif flag.startswith("-") and flag != "-":
            raise ReviewUsageError(f"unknown option {flag}")
        elif args.target is None and looks_like_rev(flag):
            args.target = flag
        else:
            raise ReviewUsageError(f"{flag!r}: one TARGET (a commit or a range) at most")
    _check(args)
    return args


def _allowed(name: str, flag: str, slash: bool) -> None:
    if slash and name not in SLASH_ONLY and name != "help":
        raise ReviewUsageError(f"{flag} is for `pi review` (here the session's settings apply)")


def _check(args: ReviewArgs) -> None:
    chosen = [args.target is not None, args.branch or args.base is not None, args.uncommitted]
    if sum(chosen) > 1:
        raise ReviewUsageError("give one of TARGET, --branch/--base or --uncommitted")
    if args.fail_on not in FAIL_ON:
        raise ReviewUsageError(f"--fail-on {args.fail_on}: one of {', '.join(FAIL_ON)}")
    if args.format not in FORMATS:
        raise ReviewUsageError(f"--format {args.format}: one of {', '.join(FORMATS)}")
    if args.focus is not None and len(args.focus) > 2000:
        raise ReviewUsageError("--focus: at most 2000 characters")
    if args.base is not None and not looks_like_rev(args.base):
        raise ReviewUsageError(f"--base {args.base!r}: not a branch or commit name")


def review_accepts(words: list[str]) -> bool:
    """``pi review ...`` is the review command (else the words are a prompt: ``pi review my
    code please`` asks the model)."""
    try:
        parse_review_args(words)
    except ReviewUsageError:
        return any(word.startswith("-") for word in words)  # a bad flag: say what is wrong
    return True
