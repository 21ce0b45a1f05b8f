"""Shell events of dialogs and extension UI: questions for the user, and pieces of UI.

A dialog flows like an approval: the shell emits :class:`DialogRequested` with an id, whichever
front end is attached answers with ``shell.answer(id, answer)``, and :class:`DialogResolved` says
how it ended. Their wire shapes (camelCase) are documented in ``docs/rpc.md`` ("Dialogs").
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from agent_core.messages import WireModel
from agent_core.records import field

DialogKind = Literal["select", "confirm", "input", "editor"]
"""What a :class:`DialogRequested` asks: choose options, yes or no, a line, a longer text."""
DialogResolution = Literal["user", "timeout", "aborted", "no_user"]
"""How a dialog ended: answered (or cancelled) by the user, timed out, aborted with the run, or
answered at once because no front end can ask (one-shot and JSON mode)."""


ViewRole = Literal[
    "text", "muted", "dim", "accent", "success", "warning", "error", "bold", "italic", "code"
]
"""A theme role a view's span is drawn in (each front end maps it to its own styles)."""


class ViewSpan(WireModel):
    """A piece of a line in one theme role."""

    text: str
    role: ViewRole = "text"


class MessageView(WireModel):
    """What an extension's message renderer returns: a title and lines of styled spans.

    The shell's own description of a block, never a Textual object: the TUI draws it as a block
    in the transcript, the plain REPL prints :meth:`plain`, JSON and RPC carry it as data.
    """

    title: str | None = None
    lines: list[list[ViewSpan]] = field(default_factory=list)

    @classmethod
    def of(cls, text: str, *, title: str | None = None, role: ViewRole = "text") -> MessageView:
        """A view of plain ``text`` (one line per line of it, all in ``role``)."""
        return cls(
            title=title, lines=[[ViewSpan(text=line, role=role)] for line in text.split("\n")]
        )

    def plain(self) -> str:
        """The view as plain text (its title first)."""
        body = ["".join(span.text for span in line) for line in self.lines]
        return "\n".join(([self.title] if self.title else []) + body)


class DialogOption(WireModel):
    """One choice of a ``select`` dialog (``description``: a line under the label)."""

    label: str
    description: str | None = None


class DialogRequested(WireModel, tag_field="type", tag="dialog_requested"):
    """A question for the user (an extension's or a tool's); answer with ``shell.answer(id, ...)``.

    ``select`` offers ``options`` (``multiple``: any number of them; ``allow_other``: the user
    may type an answer of their own instead), ``confirm`` asks yes or no, ``input`` one line
    (``placeholder``, ``default``), ``editor`` a longer text (``default`` is its first content).
    ``timeout_ms``: when the request resolves by itself (as cancelled) if nobody answers.
    ``source`` names who asks (``extension protected-paths``, ``tool ask_user``).
    """

    type: ClassVar[str] = "dialog_requested"
    id: str
    kind: DialogKind
    title: str
    message: str | None = None
    options: list[DialogOption] = field(default_factory=list)
    multiple: bool = False
    allow_other: bool = False
    placeholder: str | None = None
    default: str | None = None
    timeout_ms: int | None = None
    source: str | None = None
    view: MessageView | None = None
    """An extension's overlay (``ctx.ui.overlay``): a ``select`` whose body is this view
    (``message`` holds its plain text, for front ends that draw no views)."""


class DialogResolved(WireModel, tag_field="type", tag="dialog_resolved"):
    """A dialog ended (see :data:`DialogResolution`); ``cancelled`` when it has no answer.

    The answer: ``values`` (the options chosen, ``select``), ``other`` (the user's own answer to
    a ``select`` that allows one), ``value`` (the text of ``input``/``editor``, or the single
    choice of a ``select``), ``confirmed`` (``confirm``).
    """

    type: ClassVar[str] = "dialog_resolved"
    id: str
    by: DialogResolution = "user"
    cancelled: bool = False
    value: str | None = None
    values: list[str] | None = None
    other: str | None = None
    confirmed: bool | None = None


UiSlot = Literal["footer", "status", "panel", "title", "editor"]
"""Where a front end shows an extension's text: a segment of the footer, a status line, a
panel of lines above the editor, the terminal's title (one line, cleaned; ``None``: pi's own
again), or the editor's text (``editor``: put into the editor once, not kept as state)."""


class UiChanged(WireModel, tag_field="type", tag="ui_changed"):
    """An extension set (or, with ``text`` and ``lines`` both ``None``, cleared) a piece of UI.

    ``key`` is unique per slot (``<extension>.<name>``); ``text`` for ``footer`` and ``status``,
    ``lines`` for ``panel``. The whole current state is ``shell.ui_state()``.
    """

    type: ClassVar[str] = "ui_changed"
    slot: UiSlot
    key: str
    text: str | None = None
    lines: list[str] | None = None

    @property
    def cleared(self) -> bool:
        """The piece is removed."""
        return self.text is None and self.lines is None


class CustomMessageShown(WireModel, tag_field="type", tag="custom_message", kw_only=True):
    """An extension sent a message for the transcript (``pi.send_message``): the entry as
    stored (``custom_type``, ``content``, ``details``) and ``view``, how it is drawn (its
    extension renderer's, or the default one's)."""

    type: ClassVar[str] = "custom_message"
    entry_id: str | None = None
    custom_type: str
    content: str
    details: Any = None
    view: MessageView
    expanded: MessageView | None = None
    """The renderer's expanded view, when it differs (the TUI unfolds to it: Ctrl+O, a click)."""
    source: str | None = None


DIALOG_EVENT_TYPES = (DialogRequested, DialogResolved, UiChanged, CustomMessageShown)
