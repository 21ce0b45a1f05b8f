"""``ctx``: what an extension's handlers may use of the shell, from the extension's own thread.

Every call goes over to pi's event loop (:class:`HostBridge`): the extension never touches the
shell from its thread. Text an extension shows (notifications, UI, dialog titles) is cleaned of
terminal escape sequences first (:mod:`pi_cli.shell.text.terminal`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import json
import threading
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from pi_cli.shell.dialogs import DialogAnswer, OptionSpec
from pi_cli.shell.events import Notice
from pi_cli.shell.extensions import messages
from pi_cli.shell.extensions.control import ShellControls
from pi_cli.shell.text.terminal import clean

if TYPE_CHECKING:
    from agent_core import Message
    from pi_cli.shell.context import Level
    from pi_cli.shell.dialogs import DialogBroker
    from pi_cli.shell.events import ShellEvent
    from pi_cli.shell.extensions.messages import CustomMessage
    from pi_cli.shell.input_policy import Intent
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.session.store import SessionStore

T = TypeVar("T")
MAX_UI_TEXT = 4000
MAX_EDITOR_TEXT = 100_000


class ExtensionHost(Protocol):
    """The shell as extensions reach it (the CodingAgent satisfies it)."""

    @property
    def cwd(self) -> Path: ...
    @property
    def options(self) -> ShellOptions: ...
    @property
    def dialogs(self) -> DialogBroker: ...
    @property
    def session(self) -> SessionStore: ...
    @property
    def messages(self) -> Sequence[Message]: ...
    @property
    def model_id(self) -> str: ...
    @property
    def thinking(self) -> str: ...
    def emit(self, event: ShellEvent) -> None: ...
    def abort(self) -> None: ...
    def context_usage(self) -> tuple[int, int]: ...
    def submit(self, text: str, intent: Intent = "auto") -> Any: ...


@dataclass
class Invocation:
    """One handler call in flight: its deadline stops while it waits for the user."""

    deadline: float
    dialogs_open: int = 0


INVOCATION: contextvars.ContextVar[Invocation | None] = contextvars.ContextVar(
    "pi_extension_invocation", default=None
)


class HostBridge:
    """Runs calls on the shell's loop for extension threads (directly when already there)."""

    def __init__(self, host: ExtensionHost) -> None:
        self.host = host
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None

    def bind(self) -> None:
        """Remember the running loop as the shell's (called on it, before extension code runs)."""
        loop = asyncio.get_running_loop()
        if self.loop is not loop:
            self.loop, self._thread = loop, threading.get_ident()

    def _here(self) -> bool:
        return self.loop is None or threading.get_ident() == self._thread or self.loop.is_closed()

    def call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` on the shell's loop; its result."""
        if self._here():
            return function(*args)
        assert self.loop is not None
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def run() -> None:
            try:
                future.set_result(function(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the calling thread
                future.set_exception(exc)

        self.loop.call_soon_threadsafe(run)
        return future.result()

    async def ask(self, make: Callable[[], Awaitable[T]]) -> T:
        """Await ``make()`` on the shell's loop from an extension's loop."""
        if self._here():
            return await make()
        assert self.loop is not None

        async def run() -> T:
            return await make()

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(run(), self.loop))


def _checked(custom_type: object, data: object, what: str) -> Any:
    """``data`` as plain JSON values, for an entry of ``custom_type`` (ValueError if not)."""
    if not isinstance(custom_type, str) or not custom_type.strip():
        raise ValueError("custom_type must be a non-empty string")
    try:
        return json.loads(json.dumps(data))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{what} must be JSON: {exc}") from None


def _text(value: object, limit: int = MAX_UI_TEXT) -> str:
    return clean(str(value))[:limit]


class UiSink(Protocol):
    """Where an extension's pieces of UI and notifications go (recorded or live)."""

    def set_ui(self, slot: str, key: str, text: str | None, lines: list[str] | None) -> None: ...
    def notify(self, text: str, level: Level) -> None: ...


class ExtensionUI:
    """``pi.ui`` / ``ctx.ui``: dialogs, notifications and pieces of UI in every front end.

    Dialogs are answered by whichever front end is attached (TUI, plain REPL, RPC, ACP where
    it can); with none (``pi -p``, JSON mode) they return "no answer" at once: check
    :attr:`has_ui` first when the answer matters. Keys of pieces are the extension's own.
    """

    def __init__(self, name: str, sink: UiSink, bridge: HostBridge | None = None) -> None:
        self.name = name
        self.sink = sink
        self.bridge = bridge

    @property
    def has_ui(self) -> bool:
        """Someone can answer a dialog."""
        return self.bridge is not None and self.bridge.host.dialogs.can_ask

    # ------------------------------------------------------------------ pieces

    def notify(self, text: str, level: Literal["info", "warning", "error"] = "info") -> None:
        """A notification (a notice in the transcript; pi's ``notify`` over RPC)."""
        self.sink.notify(_text(text), level if level in ("info", "warning", "error") else "info")

    def set_footer(self, key: str, text: str | None) -> None:
        """A segment of the footer (``None`` removes it)."""
        self.sink.set_ui("footer", self._key(key), _text(text, 200) if text else None, None)

    def set_status(self, key: str, text: str | None) -> None:
        """A status line under the editor (``None`` removes it)."""
        self.sink.set_ui("status", self._key(key), _text(text, 400) if text else None, None)

    def set_panel(self, key: str, lines: Sequence[str] | None) -> None:
        """A panel of lines above the editor (``None`` removes it)."""
        shown = [_text(line, 400) for line in lines[:200]] if lines is not None else None
        self.sink.set_ui("panel", self._key(key), None, shown)

    def set_title(self, title: str | None) -> None:
        """The terminal's title (one line, cleaned of escape sequences, at most 200 characters;
        ``None``: pi's own again). Over RPC: ``setTitle``."""
        text = " ".join(clean(str(title)).split())[:200] if title is not None else None
        self.sink.set_ui("title", "title", text or None, None)

    def set_editor_text(self, text: str) -> None:
        """Put ``text`` into the editor (replacing what is there), for the user to edit and send.
        Over RPC: ``set_editor_text``. For handlers, not ``register()``."""
        if self.bridge is None:
            raise RuntimeError("set_editor_text is for handlers, not register()")
        self.sink.set_ui("editor", self._key("editor"), clean(str(text))[:MAX_EDITOR_TEXT], None)

    def get_editor_text(self) -> str:
        """What is in the editor now ("" over RPC, in one-shot mode, and in ``register()``)."""
        bridge = self.bridge
        if bridge is None:
            return ""
        return bridge.call(bridge.host.dialogs.read_editor)

    def _key(self, key: str) -> str:
        return f"{self.name}.{_text(key, 100)}"

    # ------------------------------------------------------------------ dialogs

    async def select(
        self,
        title: str,
        options: Sequence[OptionSpec],
        *,
        message: str | None = None,
        multiple: bool = False,
        allow_other: bool = False,
        timeout: float | None = None,
    ) -> DialogAnswer:
        """Choose among ``options`` (several with ``multiple``; ``allow_other``: an answer of
        one's own). The answer's ``value`` is the choice (``None``: cancelled); ``values``
        the choices, ``other`` the own answer."""
        clean_options = [o if not isinstance(o, str) else _text(o, 400) for o in options]
        return await self.ask(
            lambda d: d.select(
                _text(title), clean_options, message=_text(message) if message else None,
                multiple=multiple, allow_other=allow_other, timeout_s=timeout, source=self._who,
            )
        )  # fmt: skip

    async def confirm(
        self, title: str, message: str | None = None, *, timeout: float | None = None
    ) -> bool:
        """Yes or no (``False`` when cancelled, timed out or nobody can answer)."""
        text = _text(message) if message else None
        return await self.ask(
            lambda d: d.confirm(_text(title), text, timeout_s=timeout, source=self._who)
        )

    async def input(
        self,
        title: str,
        placeholder: str | None = None,
        *,
        default: str | None = None,
        timeout: float | None = None,
    ) -> str | None:
        """One line of text (``None`` when cancelled)."""
        return await self.ask(
            lambda d: d.input(
                _text(title), placeholder=placeholder, default=default, timeout_s=timeout,
                source=self._who,
            )
        )  # fmt: skip

    async def editor(
        self, title: str, default: str | None = None, *, timeout: float | None = None
    ) -> str | None:
        """A longer text (``default`` fills it first); ``None`` when cancelled."""
        return await self.ask(
            lambda d: d.editor(_text(title), default=default, timeout_s=timeout, source=self._who)
        )

    overlay = messages.overlay
    """``await overlay(view, options=("Close",), timeout=None)``: a modal of the extension's own
    lines; the option chosen, ``None`` when dismissed (see ``docs/extensions.md``)."""

    @property
    def _who(self) -> str:
        return f"extension {self.name}"

    async def ask(self, ask: Callable[[DialogBroker], Awaitable[T]]) -> T:
        """Ask through the shell's dialogs (from a handler: no time limit while it waits)."""
        if self.bridge is None:
            raise RuntimeError("dialogs are for handlers, not register()")
        bridge = self.bridge
        invocation = INVOCATION.get()
        if invocation is not None:
            invocation.dialogs_open += 1  # the user may take their time: no handler timeout
        try:
            return await bridge.ask(lambda: ask(bridge.host.dialogs))
        finally:
            if invocation is not None:
                invocation.dialogs_open -= 1


class ExtensionContext(ShellControls):
    """``ctx``: the session and the shell as a handler sees them (and the controls of
    :class:`~.control.ShellControls`)."""

    def __init__(self, name: str, bridge: HostBridge, ui: ExtensionUI) -> None:
        self.name = name
        self.bridge = bridge
        self.ui = ui
        self.show_message: Callable[[CustomMessage], str] | None = None
        """Keeps and shows a custom message, on pi's loop (set by the runtime)."""

    def _bridge(self) -> HostBridge:
        return self.bridge

    @property
    def host(self) -> ExtensionHost:
        """The shell (internal: use the members below)."""
        return self.bridge.host

    @property
    def cwd(self) -> Path:
        """The working directory."""
        return self.host.cwd

    @property
    def has_ui(self) -> bool:
        """Someone can answer a dialog (``False`` in ``pi -p`` and JSON mode)."""
        return self.ui.has_ui

    @property
    def model(self) -> str:
        """The model in use (``provider/id``)."""
        return self.host.model_id

    @property
    def thinking(self) -> str:
        """The thinking level."""
        return self.host.thinking

    @property
    def session_id(self) -> str:
        """The session's id."""
        return self.bridge.call(lambda: self.host.session.session_id)

    @property
    def session_file(self) -> str | None:
        """The session's file (``None`` with ``--no-session``)."""
        return self.bridge.call(lambda: str(p) if (p := self.host.session.path) else None)

    @property
    def messages(self) -> list[Message]:
        """The conversation the model sees (a copy)."""
        return self.bridge.call(lambda: [m.model_copy(deep=True) for m in self.host.messages])

    def context_usage(self) -> tuple[int, int]:
        """(tokens in the context, context window)."""
        return self.bridge.call(self.host.context_usage)

    def abort(self) -> None:
        """Abort the run (as Esc does)."""
        self.bridge.call(self.host.abort)

    def send(self, text: str, deliver_as: Literal["auto", "steer", "follow_up"] = "auto") -> None:
        """Send ``text`` as the user would (while a run is live: a steer or a follow-up)."""
        self.bridge.call(self.host.submit, str(text), deliver_as)

    def append_entry(self, custom_type: str, data: Any) -> str:
        """Keep ``data`` (JSON) in the session as a custom entry; returns its id."""
        plain = _checked(custom_type, data, "entry data")
        session = self.bridge.call(lambda: self.host.session)
        return self.bridge.call(
            lambda: session.append("custom", customType=custom_type, data=plain)
        )

    def send_message(self, custom_type: str, content: str, *, details: Any = None) -> str:
        """Show a message in the transcript, kept as a ``custom_message`` entry (see
        :meth:`~.registry.ExtensionAPI.send_message`); returns its id."""
        from pi_cli.shell.extensions.messages import MAX_CONTENT_CHARS, CustomMessage

        plain = _checked(custom_type, details, "message details")
        if self.show_message is None:
            raise RuntimeError("messages are for handlers, not register()")
        message = CustomMessage(custom_type, clean(str(content))[:MAX_CONTENT_CHARS], plain)
        return self.bridge.call(self.show_message, message)

    def entries(self, custom_type: str | None = None) -> list[Any]:
        """The data of the custom entries on the current branch (``custom_type``: only those)."""

        def read() -> list[Any]:
            session = self.host.session
            refs = [ref for ref in session.path_to() if ref.type == "custom"]
            return [
                entry.get("data")
                for entry in session.iter_entries(refs)
                if custom_type is None or entry.get("customType") == custom_type
            ]

        return self.bridge.call(read)


class LiveSink:
    """A live extension's UI: straight to the shell, on its loop."""

    def __init__(self, name: str, bridge: HostBridge) -> None:
        self.name = name
        self.bridge = bridge

    def set_ui(self, slot: str, key: str, text: str | None, lines: list[str] | None) -> None:
        """Set a piece (on the shell's loop)."""
        dialogs = self.bridge.host.dialogs
        self.bridge.call(dialogs.set_ui, slot, key, text, lines)

    def notify(self, text: str, level: Level) -> None:
        """A notice with the extension as its source."""
        notice = Notice(text=text, level=level, source=f"extension {self.name}")
        self.bridge.call(self.bridge.host.emit, notice)
