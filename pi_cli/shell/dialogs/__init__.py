"""Dialogs: a question for the user goes out as an event, its answer comes back into the shell.

Whoever asks (an extension, a tool such as ``ask_user``) calls :meth:`DialogBroker.ask` (or the
shortcuts :meth:`~DialogBroker.confirm`, :meth:`~DialogBroker.select`,
:meth:`~DialogBroker.input`, :meth:`~DialogBroker.editor`). The broker knows no front end: it
emits a :class:`~pi_cli.shell.events.dialogs.DialogRequested` with an id and waits; whichever
front end is attached (TUI, plain REPL, RPC, ACP, a ``pi serve`` client) answers through
``shell.answer(id, answer)``, and a :class:`~pi_cli.shell.events.dialogs.DialogResolved` says how
it ended. It never hangs a run that nobody can answer:

- ``asking="none"`` (one-shot, JSON mode): answered at once, cancelled, ``by="no_user"``;
- ``asking="remote"`` (RPC, ACP): cancelled after the request's ``timeout_ms``, else after the
  remote default (``permissions.approvalTimeoutS``; ``None`` waits, as ``pi serve`` does);
- ``asking="interactive"`` (TUI, plain REPL): after the request's own ``timeout_ms`` if it has
  one, else when the user answers;
- an abort (Esc) cancels the task waiting, and the request ends ``by="aborted"``.

Questions are asked one at a time, in the order they were asked.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pi_cli.shell.dialogs.answers import (
    MAX_TEXT,
    DialogAnswer,
    OptionSpec,
    option_of,
    parse_answer,
    resolved_event,
)
from pi_cli.shell.events import ShellEvent
from pi_cli.shell.events.dialogs import (
    DialogKind,
    DialogOption,
    DialogRequested,
    UiChanged,
    UiSlot,
)

if TYPE_CHECKING:
    from pi_cli.shell.config.settings import Settings

__all__ = [
    "Asking",
    "DialogAnswer",
    "DialogBroker",
    "DialogOption",
    "OptionSpec",
    "parse_answer",
]

Asking = Literal["none", "interactive", "remote"]
"""Who can answer: nobody (one-shot, JSON), a person at this terminal, a remote client."""
MAX_TITLE = 2000
MAX_OPTIONS = 200
MAX_PANEL_LINES = 200


@dataclass
class _Pending:
    request: DialogRequested
    future: asyncio.Future[DialogAnswer]


@dataclass
class DialogBroker:
    """The pending dialogs of one shell.

    Args:
        emit: sends events to the front ends.
        asking: who can answer (set by the front end, like the approvals' broker).
        remote_timeout_s: how long a remote client may take when the request sets no timeout
            (``None``: wait for ever).
    """

    emit: Callable[[ShellEvent], None]
    asking: Asking = "none"
    remote_timeout_s: float | None = 120.0
    _pending: dict[str, _Pending] = field(default_factory=dict)
    _lock: asyncio.Lock | None = None
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _ui: dict[tuple[UiSlot, str], UiChanged] = field(default_factory=dict)
    editor_text: Callable[[], str] | None = None
    """The attached front end's editor text (the TUI and the plain REPL set it; RPC reads "",
    as the TypeScript pi does)."""

    def read_editor(self) -> str:
        """What the user has typed in the editor now ("" when no front end can say)."""
        if self.editor_text is None:
            return ""
        try:
            return str(self.editor_text())[:MAX_TEXT]
        except Exception:  # noqa: BLE001 - a front end going away: nothing typed
            return ""

    @classmethod
    def of(
        cls, emit: Callable[[ShellEvent], None], asking: Asking, settings: Settings
    ) -> DialogBroker:
        """The broker of a shell: remote clients get ``permissions.approvalTimeoutS``."""
        return cls(emit, asking, settings.permissions.approval_timeout_s)

    @property
    def can_ask(self) -> bool:
        """Whether a person can answer (``False`` in one-shot and JSON mode)."""
        return self.asking != "none"

    @property
    def pending(self) -> list[DialogRequested]:
        """Requests waiting for an answer, oldest first."""
        return [p.request for p in self._pending.values()]

    def knows(self, request_id: str) -> bool:
        """``request_id`` is a dialog waiting for its answer."""
        return request_id in self._pending

    def request(
        self,
        kind: DialogKind,
        title: str,
        *,
        message: str | None = None,
        options: Sequence[OptionSpec] = (),
        multiple: bool = False,
        allow_other: bool = False,
        placeholder: str | None = None,
        default: str | None = None,
        timeout_s: float | None = None,
        source: str | None = None,
    ) -> DialogRequested:
        """A checked request with a fresh id (raises ValueError for a malformed one)."""
        if not isinstance(title, str) or not title.strip():
            raise ValueError("a dialog needs a title")
        parsed = [option_of(o) for o in options]
        if kind == "select":
            if not parsed and not allow_other:
                raise ValueError("a select dialog needs options")
            if len(parsed) > MAX_OPTIONS:
                raise ValueError(f"a select dialog takes at most {MAX_OPTIONS} options")
            labels = [o.label for o in parsed]
            if len(set(labels)) != len(labels) or not all(label.strip() for label in labels):
                raise ValueError("a select dialog's option labels must be distinct and not empty")
        if timeout_s is not None and not timeout_s > 0:
            raise ValueError("a dialog's timeout must be positive")
        return DialogRequested(
            id=f"dialog-{next(self._ids)}",
            kind=kind,
            title=title[:MAX_TITLE],
            message=message[:MAX_TEXT] if message else None,
            options=parsed if kind == "select" else [],
            multiple=multiple and kind == "select",
            allow_other=allow_other and kind == "select",
            placeholder=placeholder,
            default=default,
            timeout_ms=int(timeout_s * 1000) if timeout_s is not None else None,
            source=source,
        )

    async def ask(self, request: DialogRequested) -> DialogAnswer:
        """Emit ``request`` and wait for its answer (see the module doc for when it ends)."""
        if not self.can_ask:
            self.emit(request)
            return self._resolve(request, DialogAnswer.none("no_user"))
        if self._lock is None:
            self._lock = asyncio.Lock()
        timeout = request.timeout_ms / 1000 if request.timeout_ms is not None else None
        if timeout is None and self.asking == "remote":
            timeout = self.remote_timeout_s
            if timeout is not None:
                request = request.model_copy(update={"timeout_ms": int(timeout * 1000)})
        async with self._lock:
            future: asyncio.Future[DialogAnswer] = asyncio.get_running_loop().create_future()
            self._pending[request.id] = _Pending(request, future)
            try:
                self.emit(request)
                try:
                    answer = await asyncio.wait_for(asyncio.shield(future), timeout)
                except TimeoutError:
                    answer = DialogAnswer.none("timeout")
                except asyncio.CancelledError:
                    self._resolve(request, DialogAnswer.none("aborted"))
                    raise
            finally:
                self._pending.pop(request.id, None)
                if not future.done():
                    future.cancel()
            return self._resolve(request, answer)

    def answer(self, request_id: str, answer: object) -> bool:
        """Answer a pending dialog; False if it is unknown or already answered.

        Raises:
            ValueError: the answer does not fit the question (an unknown option...).
        """
        pending = self._pending.get(request_id)
        if pending is None or pending.future.done():
            return False
        pending.future.set_result(parse_answer(pending.request, answer))
        return True

    def cancel_all(self) -> None:
        """Cancel every pending dialog (the front end that could answer went away)."""
        for pending in list(self._pending.values()):
            if not pending.future.done():
                pending.future.set_result(DialogAnswer(cancelled=True))

    def set_ui(
        self, slot: UiSlot, key: str, text: str | None = None, lines: Sequence[str] | None = None
    ) -> None:
        """Set (or, with neither ``text`` nor ``lines``, clear) a piece of UI; emits
        :class:`UiChanged` when it changed."""
        event = UiChanged(
            slot=slot,
            key=key,
            text=text[:MAX_TEXT] if text is not None else None,
            lines=[line[:MAX_TEXT] for line in lines[:MAX_PANEL_LINES]]
            if lines is not None
            else None,
        )
        if slot == "editor":  # an action, not state: a later front end is not re-told
            self.emit(event)
            return
        current = self._ui.get((slot, key))
        if event.cleared:
            if current is None:
                return
            del self._ui[(slot, key)]
        elif current == event:
            return
        else:
            self._ui[(slot, key)] = event
        self.emit(event)

    def ui_state(self) -> list[UiChanged]:
        """Every piece of UI set now (a front end attaching later shows these first)."""
        return list(self._ui.values())

    def _resolve(self, request: DialogRequested, answer: DialogAnswer) -> DialogAnswer:
        self.emit(resolved_event(request, answer))
        return answer

    # ------------------------------------------------------------------ shortcuts

    async def confirm(
        self,
        title: str,
        message: str | None = None,
        *,
        timeout_s: float | None = None,
        source: str | None = None,
    ) -> bool:
        """Yes or no; ``False`` when cancelled or nobody can answer."""
        request = self.request(
            "confirm", title, message=message, timeout_s=timeout_s, source=source
        )
        answer = await self.ask(request)
        return not answer.cancelled and answer.confirmed

    async def select(
        self,
        title: str,
        options: Sequence[OptionSpec],
        *,
        message: str | None = None,
        multiple: bool = False,
        allow_other: bool = False,
        timeout_s: float | None = None,
        source: str | None = None,
    ) -> DialogAnswer:
        """Choose among ``options`` (several with ``multiple``, an own answer with
        ``allow_other``): the :class:`DialogAnswer` (``cancelled`` when there is none)."""
        request = self.request(
            "select", title, message=message, options=options, multiple=multiple,
            allow_other=allow_other, timeout_s=timeout_s, source=source,
        )  # fmt: skip
        return await self.ask(request)

    async def input(
        self,
        title: str,
        *,
        message: str | None = None,
        placeholder: str | None = None,
        default: str | None = None,
        timeout_s: float | None = None,
        source: str | None = None,
    ) -> str | None:
        """One line of text; ``None`` when cancelled or nobody can answer."""
        request = self.request(
            "input", title, message=message, placeholder=placeholder, default=default,
            timeout_s=timeout_s, source=source,
        )  # fmt: skip
        return (await self.ask(request)).value

    async def editor(
        self,
        title: str,
        *,
        default: str | None = None,
        timeout_s: float | None = None,
        source: str | None = None,
    ) -> str | None:
        """A longer text (``default`` fills it first); ``None`` when cancelled."""
        request = self.request("editor", title, default=default, timeout_s=timeout_s, source=source)
        return (await self.ask(request)).value
