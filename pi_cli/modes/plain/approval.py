"""The plain REPL's questions: approve a tool call, trust a folder, send an unknown command as a
prompt (prompt-toolkit prompts); the approvals and dialogs waiting, asked in turn."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from pi_cli.modes.plain.dialogs import DialogAsker, answer_dialog
from pi_cli.shell import (
    ApprovalAnswer,
    DialogRequested,
    PermissionResolved,
    clean,
    one_line,
    say,
)

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer

    from pi_cli.shell import PermissionRequested, TrustCheck, UnknownCommand

KEYS = {"y": "allow_once", "s": "allow_session", "a": "allow_always", "n": "deny"}
LABELS = {
    "allow_once": "[y] allow once",
    "allow_session": "[s] allow for this session",
    "allow_always": "[a] always",
    "deny": "[n] deny (n <reason> tells the model why)",
}


def approval_prompt(request: PermissionRequested) -> str:
    """The question line for ``request`` (its own words for options, when it brings them)."""
    words = request.labels or {}
    keys = {choice: key for key, choice in KEYS.items()}
    own = {o: f"[{keys[o]}] {clean(words[o])}" for o in words if o in keys}
    if "deny" in own:
        own["deny"] += " (n <words> tells the model why)"
    choices = " · ".join(own.get(option, LABELS[option]) for option in request.options)
    rules = request.rules.get("user") or []
    always = f" (always saves {', '.join(rules)})" if "allow_always" in request.options else ""
    return f"{choices}{clean(always)} › "


def parse_answer(text: str, request: PermissionRequested) -> ApprovalAnswer | None:
    """``y``/``s``/``a``/``n [reason]`` (also ``yes``, ``no``, ``deny: reason``); None if unclear."""
    stripped = text.strip()
    word, _, rest = stripped.partition(" ")
    word = word.lower().rstrip(":")
    key = {"yes": "y", "no": "n", "deny": "n", "always": "a", "session": "s"}.get(word, word)
    choice = KEYS.get(key)
    if choice is None or choice not in request.options:
        return None
    return ApprovalAnswer(choice, message=rest.strip() if choice == "deny" else "")


async def ask_approval(
    request: PermissionRequested, input: Input | None = None, output: Output | None = None
) -> ApprovalAnswer | None:
    """Ask until the answer is clear; Ctrl+D denies, Ctrl+C returns ``None``: the user wants the
    run stopped (as Ctrl+C does everywhere else in the REPL), not only this call denied."""
    session: PromptSession[str] = PromptSession(input=input, output=output)
    while True:
        try:
            text = await session.prompt_async(approval_prompt(request))
        except EOFError:
            return ApprovalAnswer("deny")
        except KeyboardInterrupt:
            return None
        answer = parse_answer(text, request)
        if answer is None:
            continue
        if answer.choice != "allow_always":
            return answer
        try:
            where = await session.prompt_async("save to [p]roject or [u]ser settings? › ")
        except EOFError:
            return ApprovalAnswer("deny")
        except KeyboardInterrupt:
            return None
        project = where.strip().lower().startswith("p")
        return ApprovalAnswer("allow_always", "project" if project else "user")


async def ask_unknown_command(
    unknown: UnknownCommand, input: Input | None = None, output: Output | None = None
) -> str | None:
    """Ask what to do with a line written as a command none is called: ``"send"`` it as a prompt,
    the corrected line (``1`` picks the first command it is close to...), or ``None``: back
    into the input line to edit it."""
    session: PromptSession[str] = PromptSession(input=input, output=output)
    picks = " · ".join(
        f"[{i}] {unknown.corrected(name)}" for i, name in enumerate(unknown.close, 1)
    )
    question = f"{clean(unknown.question)} [y]es · [n]o, edit it{' · ' + picks if picks else ''} › "
    try:
        text = await session.prompt_async(question)
    except (EOFError, KeyboardInterrupt):
        return None
    word = text.strip().lower()
    if word in ("y", "yes"):
        return "send"
    if word.isdigit() and 1 <= int(word) <= len(unknown.close):
        return unknown.corrected(unknown.close[int(word) - 1])
    return None


async def ask_trust(
    check: TrustCheck, input: Input | None = None, output: Output | None = None
) -> bool:
    """Show what this folder's configuration would run and ask whether to trust it."""
    session: PromptSession[str] = PromptSession(input=input, output=output)
    changed = " changed since you trusted it and" if check.changed else ""
    say(f"This folder ({one_line(check.root)}){changed} has configuration that runs code or "
        "uses your keys:")  # fmt: skip
    for item in check.items:
        say(f"  - {one_line(item)}")
    while True:
        try:
            text = await session.prompt_async("Trust this folder? [y]es / [n]o (remembered) › ")
        except (EOFError, KeyboardInterrupt):
            return False
        word = text.strip().lower()
        if word in ("y", "yes", "n", "no"):
            return word.startswith("y")


ALLOWED = {
    "allow_once": "allowed once",
    "allow_session": "allowed for this session",
    "allow_always": "allowed, and saved as a rule",
}


class QuestionAsker(DialogAsker, Protocol):
    """What :func:`answer_waiting` needs of the plain REPL."""

    questions: list[PermissionRequested | DialogRequested]
    io: tuple[Input | None, Output | None]

    async def drained(self) -> None: ...
    def abort(self, buffer: Buffer | None) -> None: ...


async def answer_waiting(repl: QuestionAsker) -> None:
    """Ask each pending approval and dialog in turn (the run waits; typed text is kept)."""
    from rich.text import Text

    while repl.questions:
        await repl.drained()  # the question comes after what it is about
        request = repl.questions.pop(0)
        if isinstance(request, DialogRequested):
            await answer_dialog(repl, request, repl.io)
            continue
        if request not in repl.shell.permissions.pending:
            continue  # answered meanwhile (abort, timeout)
        if repl.shell.settings.notifications != "off":
            repl.console.bell()  # the terminal flags it (a tab, a dock icon) when not in front
        asked, resolved = await _ask_until_resolved(repl, request)
        if resolved is not None:  # withdrawn: a timeout or an abort is said by the renderer
            if resolved.by == "user":  # another client of the session answered first
                verdict = "allowed" if resolved.allowed else "denied"
                style = "green" if resolved.allowed else "red"
                repl.console.print(Text(f"  {verdict} by another client", style=style))
            continue
        answer = asked
        if answer is None:  # Ctrl+C: stop the run (its pending approvals end "aborted")
            repl.questions.clear()
            repl.abort(None)
            return
        repl.shell.answer(request.id, answer)
        if answer.choice != "deny":  # a denial is said by the call's result
            repl.console.print(Text(f"  {ALLOWED[answer.choice]}", style="green"))


async def _ask_until_resolved(
    repl: QuestionAsker, request: PermissionRequested
) -> tuple[ApprovalAnswer | None, PermissionResolved | None]:
    """Ask ``request``; the question is withdrawn when it is resolved meanwhile (another client
    of a ``pi serve`` session answered it, it timed out, the run was aborted)."""
    resolved: asyncio.Future[PermissionResolved] = asyncio.get_running_loop().create_future()

    def listen(event: object) -> None:
        if isinstance(event, PermissionResolved) and event.id == request.id:
            if not resolved.done():
                resolved.set_result(event)

    unsubscribe = repl.shell.subscribe(listen)
    ask = asyncio.ensure_future(ask_approval(request, *repl.io))
    try:
        racing: set[asyncio.Future[Any]] = {ask, resolved}
        await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
    finally:
        unsubscribe()
    if ask.done():
        resolved.cancel()
        return ask.result(), None
    ask.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await ask
    return None, resolved.result()
