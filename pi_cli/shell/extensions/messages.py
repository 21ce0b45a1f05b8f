"""Custom messages for the transcript (``pi.send_message``) and their renderers.

A renderer (``pi.register_message_renderer(custom_type, renderer)``) is ``renderer(message,
expanded) -> MessageView | str | list[str]``: the shell's own description of a block (a title and
lines of spans in theme roles), never a front end's object. What it returns is cleaned of
terminal escape sequences and capped (:data:`MAX_VIEW_LINES` lines of :data:`MAX_LINE_CHARS`
characters); a renderer that raises, overruns or returns something else is reported, its
extension disabled, and the message drawn by :func:`default_view`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_cli.shell.events.dialogs import MessageView, ViewSpan
from pi_cli.shell.text.terminal import clean

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from typing import Protocol, TypeVar

    from pi_cli.shell.dialogs import DialogAnswer, DialogBroker

    T = TypeVar("T")

    class Asker(Protocol):
        """What of ``ctx.ui`` an overlay uses (:class:`~.context.ExtensionUI`)."""

        name: str

        async def ask(self, ask: Callable[[DialogBroker], Awaitable[T]]) -> T: ...


MAX_VIEW_LINES = 200
"""Lines of a view kept (a last line says how many more there were)."""
MAX_LINE_CHARS = 1000
"""Characters of one line kept (all its spans together)."""
MAX_SPANS = 50
"""Spans of one line kept."""
MAX_CONTENT_CHARS = 100_000
"""Characters of a custom message's ``content`` kept."""


@dataclass(frozen=True)
class CustomMessage:
    """What a renderer receives: the message as its extension sent it."""

    custom_type: str
    content: str
    details: Any = None


def default_view(message: CustomMessage) -> MessageView:
    """How a message is drawn with no renderer (or a failed one): its type, then its text."""
    return capped(MessageView.of(message.content, title=f"[{message.custom_type}]"))


def to_view(result: object) -> MessageView:
    """A renderer's result as a clean, capped view; ``TypeError`` for anything else."""
    if isinstance(result, MessageView):
        view = result
    elif isinstance(result, str):
        view = MessageView.of(result)
    elif isinstance(result, list) and all(isinstance(line, str) for line in result):
        view = MessageView.of("\n".join(result))
    else:
        raise TypeError(f"a renderer returns a MessageView or text, not {type(result).__name__}")
    return capped(view)


def capped(view: MessageView) -> MessageView:
    """``view`` cleaned of escape sequences, one span per line break, and within the caps."""
    lines: list[list[ViewSpan]] = []
    for line in view.lines:
        lines.extend(_split(line))
    extra = len(lines) - MAX_VIEW_LINES
    if extra > 0:
        lines = lines[: MAX_VIEW_LINES - 1]
        lines.append([ViewSpan(text=f"… {extra + 1} more lines", role="muted")])
    title = " ".join(clean(view.title).split())[:200] if view.title else None
    return MessageView(title=title or None, lines=[_cap_line(line) for line in lines])


def _split(line: list[ViewSpan]) -> list[list[ViewSpan]]:
    """A line whose spans hold line breaks, as several lines."""
    out: list[list[ViewSpan]] = [[]]
    for span in line[: MAX_SPANS * 4]:
        parts = clean(span.text).replace("\r", "").split("\n")
        for index, part in enumerate(parts):
            if index:
                out.append([])
            if part:
                out[-1].append(ViewSpan(text=part.replace("\t", "    "), role=span.role))
        if len(out) > MAX_VIEW_LINES + 1:
            break
    return out


def _cap_line(line: list[ViewSpan]) -> list[ViewSpan]:
    kept: list[ViewSpan] = []
    room = MAX_LINE_CHARS
    for span in line[:MAX_SPANS]:
        if room <= 0:
            break
        kept.append(ViewSpan(text=span.text[:room], role=span.role))
        room -= len(span.text)
    return kept


async def overlay(
    ui: Asker,
    view: MessageView | str | list[str],
    options: Sequence[str] = ("Close",),
    *,
    timeout: float | None = None,
) -> str | None:
    """``ctx.ui.overlay``: a ``select`` dialog whose body is ``view`` (cleaned and capped);
    the option chosen, ``None`` when dismissed (Esc), timed out or nobody can answer."""
    shown = to_view(view)
    labels = [" ".join(clean(str(option)).split())[:200] for option in options] or ["Close"]
    title = shown.title or f"{ui.name}"

    async def ask(dialogs: DialogBroker) -> DialogAnswer:
        request = dialogs.request(
            "select", title, message=shown.plain(), options=labels, timeout_s=timeout,
            source=f"extension {ui.name}",
        )  # fmt: skip
        return await dialogs.ask(request.model_copy(update={"view": shown}))

    answer = await ui.ask(ask)
    return None if answer.cancelled else answer.value
