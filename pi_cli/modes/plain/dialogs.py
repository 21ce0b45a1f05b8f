"""The plain REPL's dialogs: an extension's or a tool's question, asked on the input line.

``confirm`` takes y/n; ``select`` lists the options numbered and takes a number (several,
comma-separated, when it allows more than one) or, when it allows one, an answer of the user's
own; ``input`` one line (its default already typed); ``editor`` several lines (Esc then Enter, or
Alt+Enter, ends). Ctrl+C or Ctrl+D cancels.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from pi_cli.shell import DialogAnswer, clean, say

if TYPE_CHECKING:
    from rich.console import Console

    from pi_cli.shell import DialogRequested, FrontShell


class DialogAsker(Protocol):
    """What :func:`answer_dialog` needs of the plain REPL."""

    shell: FrontShell
    console: Console
    asking: str | None


CANCELLED = DialogAnswer(cancelled=True)


def describe(request: DialogRequested) -> list[str]:
    """The lines printed before the question: title, message, numbered options."""
    source = f" ({clean(request.source)})" if request.source else ""
    lines = [f"? {clean(request.title)}{source}"]
    if request.message:
        lines.extend(f"  {clean(line)}" for line in request.message.splitlines())
    for number, option in enumerate(request.options, 1):
        detail = f" — {clean(option.description)}" if option.description else ""
        lines.append(f"  {number}. {clean(option.label)}{detail}")
    if request.allow_other:
        lines.append("  (or type an answer of your own)")
    return lines


def prompt_text(request: DialogRequested) -> str:
    """The input line's prompt for ``request``."""
    if request.kind == "confirm":
        return "[y]es / [n]o › "
    if request.kind == "select":
        several = "numbers, comma-separated" if request.multiple else "a number"
        own = " or your own answer" if request.allow_other else ""
        return f"{several}{own} › "
    if request.kind == "editor":
        return "(Esc Enter ends) › "
    return f"{clean(request.placeholder)} › " if request.placeholder else "› "


def parse_line(text: str, request: DialogRequested) -> DialogAnswer | None:
    """The answer a typed line gives ``request``; ``None`` when it is unclear (ask again)."""
    stripped = text.strip()
    if request.kind == "confirm":
        word = stripped.lower()
        if word in ("y", "yes", "n", "no"):
            return DialogAnswer(confirmed=word.startswith("y"))
        return None
    if request.kind in ("input", "editor"):
        return DialogAnswer(text=text)
    if not stripped:
        return None
    labels = [option.label for option in request.options]
    parts = [p.strip() for p in stripped.split(",")] if request.multiple else [stripped]
    if all(re.fullmatch(r"\d+", p) and 1 <= int(p) <= len(labels) for p in parts):
        return DialogAnswer(values=tuple(dict.fromkeys(labels[int(p) - 1] for p in parts)))
    by_label = {label.casefold(): label for label in labels}
    if all(p.casefold() in by_label for p in parts):
        return DialogAnswer(values=tuple(dict.fromkeys(by_label[p.casefold()] for p in parts)))
    if request.allow_other:
        return DialogAnswer(other=stripped)
    return None


async def ask_dialog(
    request: DialogRequested,
    input: Input | None = None,
    output: Output | None = None,
    echo: bool = True,
    ready: Callable[[], None] | None = None,
) -> DialogAnswer:
    """Ask ``request`` until the answer is clear; Ctrl+C or Ctrl+D cancel. ``ready`` is
    called each time the prompt is up (it reads keys from then on)."""
    if echo:
        for line in describe(request):
            say(line)
    session: PromptSession[str] = PromptSession(input=input, output=output)
    multiline = request.kind == "editor"
    default = request.default or "" if request.kind in ("input", "editor") else ""
    while True:
        try:
            text = await session.prompt_async(
                prompt_text(request), default=default, multiline=multiline, pre_run=ready
            )
        except (EOFError, KeyboardInterrupt):
            return CANCELLED
        answer = parse_line(text, request)
        if answer is not None:
            return answer


async def answer_dialog(
    repl: DialogAsker, request: DialogRequested, io: tuple[Input | None, Output | None]
) -> None:
    """Ask one dialog on the REPL's input line (``repl.asking`` names it while its prompt is
    up) and hand the answer to the shell."""
    from rich.text import Text

    if not repl.shell.dialogs.knows(request.id):
        return  # answered meanwhile (abort, timeout)
    for line in describe(request):
        repl.console.print(Text(line, style="bold yellow" if line.startswith("?") else ""))
    try:
        answer = await ask_dialog(
            request, *io, echo=False, ready=lambda: setattr(repl, "asking", request.id)
        )
    finally:
        repl.asking = None
    try:
        repl.shell.answer(request.id, answer)
    except ValueError as exc:  # cannot happen with parse_line's answers; say so anyway
        repl.console.print(Text(f"  {exc}", style="red"))
