"""The extensions of one shell: loading (now, or when first needed), calling, disabling.

An extension is ``cached`` (its registrations came from the cache, its code is not imported),
``live`` (loaded), ``failed`` (it raised while loading) or ``disabled`` (a handler raised or
hung). Every call into its code runs on its own thread (:mod:`.worker`) under a deadline that
stops while the handler waits for the user (a dialog); a call that raises or overruns disables
the extension (:meth:`Extensions.fail`): its tools, commands, keys and UI go, the user is told
its name and why, and the run goes on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pi_cli.shell.extensions import output
from pi_cli.shell.extensions.manifest import Manifest
from pi_cli.shell.extensions.names import BUS_PREFIX, DECISION_EVENTS, DERIVED_EVENTS
from pi_cli.shell.extensions.worker import Worker

if TYPE_CHECKING:  # the API's classes load with the first extension loaded, not with the cache
    from pi_cli.shell.context import Level
    from pi_cli.shell.extension_sources import Source
    from pi_cli.shell.extensions.context import (
        ExtensionContext,
        ExtensionHost,
        ExtensionUI,
        HostBridge,
        Invocation,
    )
    from pi_cli.shell.extensions.messages import CustomMessage
    from pi_cli.shell.extensions.registry import ExtensionAPI, Registration

State = Literal["cached", "live", "failed", "disabled"]
DEFAULT_TIMEOUT_S = 30.0


class Recorder:
    """Pieces of UI and notifications set during ``register()``: kept, applied afterwards."""

    def __init__(self, registration: Registration) -> None:
        self.registration = registration

    def set_ui(self, slot: str, key: str, text: str | None, lines: list[str] | None) -> None:
        """Keep a piece (``None`` and ``None``: remove it)."""
        if text is None and lines is None:
            self.registration.ui.pop((slot, key), None)
        else:
            self.registration.ui[(slot, key)] = (text, lines)

    def notify(self, text: str, level: Level) -> None:
        """Keep a notification."""
        self.registration.notices.append((text, level))


class Extension:
    """One extension: its source, thread, registrations and state."""

    def __init__(self, source: Source, started: Callable[[int], None] | None = None) -> None:
        self.source = source
        self.name = source.name
        self.worker = Worker(source.name, started)
        self.manifest: Manifest | None = None
        self.state: State = "cached"
        self.problem: str | None = None
        self.loading: asyncio.Future[bool] | None = None
        self.context: ExtensionContext | None = None
        self._registration: Registration | None = None
        self._ui: ExtensionUI | None = None
        self._api: ExtensionAPI | None = None

    @property
    def registration(self) -> Registration:
        """What it registered (empty until it is loaded: a cached one has its manifest)."""
        if self._registration is None:
            from pi_cli.shell.extensions.registry import Registration

            self._registration = Registration(self.name)
        return self._registration

    @property
    def ui(self) -> ExtensionUI:
        """``pi.ui``: recorded while ``register()`` runs, live afterwards."""
        if self._ui is None:
            from pi_cli.shell.extensions.context import ExtensionUI

            self._ui = ExtensionUI(self.name, Recorder(self.registration))
        return self._ui

    @property
    def api(self) -> ExtensionAPI:
        """The ``pi`` its ``register()`` gets."""
        if self._api is None:
            from pi_cli.shell.extensions.registry import ExtensionAPI

            self._api = ExtensionAPI(self.registration, self.ui)
        return self._api

    @property
    def usable(self) -> bool:
        """Cached or live (not failed, not disabled)."""
        return self.state in ("cached", "live")

    @property
    def events(self) -> list[str]:
        """The events it handles (from the cache until it is loaded)."""
        if self.state == "cached" and self.manifest is not None:
            return self.manifest.events
        return self.registration.events if self.usable else []

    def handlers(self, event: str) -> list[Callable[..., Any]]:
        """Its live handlers of ``event`` (``*`` ones included)."""
        if self.state != "live":
            return []
        found = self.registration.handlers
        if event in DECISION_EVENTS or event in DERIVED_EVENTS or event.startswith(BUS_PREFIX):
            return list(found.get(event, []))
        return [*found.get(event, []), *found.get("*", [])]


_ARITY: dict[Callable[..., Any], int] = {}


def arity(function: Callable[..., Any]) -> int:
    """How many positional arguments ``function`` takes (``*args``: as many as given)."""
    cached = _ARITY.get(function)
    if cached is None:
        try:
            parameters = inspect.signature(function).parameters.values()
        except (TypeError, ValueError):
            return 2
        kinds = [p.kind for p in parameters]
        if inspect.Parameter.VAR_POSITIONAL in kinds:
            cached = 99
        else:
            positional = (
                inspect.Parameter.POSITIONAL_ONLY,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
            )
            cached = sum(kind in positional for kind in kinds)
        _ARITY[function] = cached
    return cached


class CallFailed(Exception):
    """A call into an extension raised or overran (the extension is disabled already)."""


class Extensions:
    """Every extension of one shell.

    Args:
        host: the shell (for the extensions' ``ctx``).
        notify: where notices go.
        on_change: told when the set of tools, commands, keys or UI changed (an extension
            loaded, changed its registrations, or was disabled).
        timeout_s: how long one handler call may take (not counting time in dialogs).
    """

    def __init__(
        self,
        host: ExtensionHost,
        notify: Callable[[str, Level], None],
        on_change: Callable[[Extension], None],
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.host = host
        self._bridge: HostBridge | None = None
        self.notify = notify
        self.on_change = on_change
        self.timeout_s = timeout_s
        self.items: dict[str, Extension] = {}
        self.manifests_changed = False
        self.deliver: Callable[[str, object], None] = lambda name, payload: None
        """``pi.events`` delivery, on pi's loop (set by the dispatcher)."""
        self.show_message: Callable[[Extension, CustomMessage], str] = _no_messages
        """Keeps and draws an extension's custom message, on pi's loop (set by the shell)."""
        output.install()

    @property
    def bridge(self) -> HostBridge:
        """Carries the extensions' calls over to pi's loop."""
        if self._bridge is None:
            from pi_cli.shell.extensions.context import HostBridge

            self._bridge = HostBridge(self.host)
        return self._bridge

    def __iter__(self) -> Any:
        return iter(list(self.items.values()))

    def usable(self) -> list[Extension]:
        """The extensions that are cached or live, in load order."""
        return [ext for ext in self.items.values() if ext.usable]

    # ------------------------------------------------------------------ loading

    def add(self, source: Source, manifest: Manifest | None) -> Extension:
        """Take ``source`` in: from its cached ``manifest`` (not imported), else loaded now."""
        ext = Extension(source, lambda ident: self._capture(ext, ident))
        self.items[source.name] = ext
        if manifest is not None:
            ext.manifest = manifest
            self.on_change(ext)
            return ext
        from pi_cli.shell.extensions import loader

        ext.api.flag_values = dict(self.host.options.extension_flags)
        try:
            ext.worker.run(loader.load, source, ext.api).result(self.timeout_s)
        except concurrent.futures.TimeoutError:
            self.fail(ext, f"loading did not finish within {self.timeout_s:g} s", "failed")
        except BaseException as exc:  # noqa: BLE001 - anything an extension raises at import
            self.fail(ext, f"failed to load: {_describe(exc)}", "failed")
        else:
            self._went_live(ext)
        return ext

    async def ensure(self, ext: Extension) -> bool:
        """Load a cached extension now (once, whoever asks first); True when it is live."""
        if ext.state != "cached":
            return ext.state == "live"
        if ext.loading is None:
            ext.loading = asyncio.ensure_future(self._load(ext))
        return await asyncio.shield(ext.loading)

    async def _load(self, ext: Extension) -> bool:
        from pi_cli.shell.extensions import loader

        self.bridge.bind()
        ext.api.flag_values = dict(self.host.options.extension_flags)
        future = ext.worker.run(loader.load, ext.source, ext.api)
        try:
            await asyncio.wait_for(asyncio.wrap_future(future), self.timeout_s)
        except TimeoutError:
            self.fail(ext, f"loading did not finish within {self.timeout_s:g} s", "failed")
            return False
        except Exception as exc:  # noqa: BLE001 - anything an extension raises at import
            self.fail(ext, f"failed to load: {_describe(exc)}", "failed")
            return False
        self._went_live(ext)
        return True

    def _went_live(self, ext: Extension) -> None:
        from pi_cli.shell.extensions.context import ExtensionContext, LiveSink

        ext.state = "live"
        ext.manifest = Manifest.of(ext.registration, ext.source.stamp)
        self.manifests_changed = True
        sink = LiveSink(ext.name, self.bridge)
        ext.ui.sink, ext.ui.bridge = sink, self.bridge
        ext.context = ExtensionContext(ext.name, self.bridge, ext.ui)
        ext.context.show_message = lambda message: self.show_message(ext, message)
        ext.api.context = ext.context
        for text, level in ext.registration.notices:
            self.notify(text, level)  # type: ignore[arg-type]
        ext.registration.notices.clear()
        ext.api.changed = lambda: self.bridge.call(self.on_change, ext)
        ext.api.events.emitter = self._emitter()
        self.on_change(ext)

    def _emitter(self) -> Callable[[str, object], None]:
        return lambda name, payload: self.bridge.call(self.deliver, name, payload)

    def _capture(self, ext: Extension, ident: int) -> None:
        """What the extension's thread prints becomes its notices (:mod:`.output`)."""
        from pi_cli.shell.events import Notice

        def show(line: str, stream: str) -> None:
            level: Level = "warning" if stream == "stderr" else "info"
            notice = Notice(text=line, level=level, source=f"extension {ext.name}")
            self.bridge.call(self.bridge.host.emit, notice)

        output.capture_thread(ident, show)

    # ------------------------------------------------------------------ calling

    def start_call(
        self, ext: Extension, function: Callable[..., Any], *args: Any
    ) -> tuple[concurrent.futures.Future[Any], Invocation]:
        """Begin ``function(*args)`` on the extension's thread; a function that takes one more
        argument gets the extension's ``ctx`` too (``handler(event, ctx)``)."""
        from pi_cli.shell.extensions.context import INVOCATION, Invocation

        self.bridge.bind()
        invocation = Invocation(deadline=time.monotonic() + self.timeout_s)
        given = (*args, ext.context)[: min(arity(function), len(args) + 1)]
        future = ext.worker.run(function, *given, values=((INVOCATION, invocation),))
        return future, invocation

    async def call(
        self, ext: Extension, label: str, function: Callable[..., Any], *args: Any
    ) -> Any:
        """Call into the extension and wait (see the module doc); raises :class:`CallFailed`."""
        future, invocation = self.start_call(ext, function, *args)
        wrapped = asyncio.wrap_future(future)
        try:
            while True:
                remaining = invocation.deadline - time.monotonic()
                done, _ = await asyncio.wait({wrapped}, timeout=max(remaining, 0.0))
                if done:
                    return wrapped.result()
                if invocation.dialogs_open:  # waiting for the user: no deadline meanwhile
                    invocation.deadline = time.monotonic() + self.timeout_s
                    continue
                future.cancel()
                self.fail(ext, f"{label} did not finish within {self.timeout_s:g} s")
                raise CallFailed(label)
        except asyncio.CancelledError:
            future.cancel()  # the run was aborted: a coroutine stops, a sync call is left
            raise
        except CallFailed:
            raise
        except Exception as exc:
            self.fail(ext, f"{label} raised {_describe(exc)}")
            raise CallFailed(label) from exc

    def fire(self, ext: Extension, label: str, function: Callable[..., Any], *args: Any) -> None:
        """Call without waiting (a notification); failures are handled all the same."""

        async def guarded() -> None:
            try:
                await self.call(ext, label, function, *args)
            except CallFailed:
                pass

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (the shell is being built): nothing can run it
        task = loop.create_task(guarded())
        _TASKS.add(task)
        task.add_done_callback(_TASKS.discard)

    # ------------------------------------------------------------------ failing

    def fail(self, ext: Extension, why: str, state: State = "disabled") -> None:
        """Disable ``ext``: it is told nothing more, its tools, commands, keys and UI go."""
        if not ext.usable:
            return
        ext.state, ext.problem = state, why
        ext.worker.stop()
        self.notify(f"Extension {ext.name} {why}; it is disabled ({ext.source.label}).", "error")
        self.on_change(ext)

    async def aclose(self, reason: Literal["exit", "reload"] = "exit") -> None:
        """Tell the live extensions pi stops or reloads them (briefly), then stop their threads."""
        from pi_cli.shell.extensions.api import SessionShutdownEvent

        for ext in self.usable():
            for handler in ext.handlers("session_shutdown"):
                event = SessionShutdownEvent(reason)
                try:
                    await asyncio.wait_for(self.call(ext, "session_shutdown", handler, event), 2.0)
                except (CallFailed, TimeoutError):
                    pass
        for ext in self.items.values():
            ext.worker.stop()


_TASKS: set[asyncio.Task[None]] = set()


def _no_messages(sender: Extension, message: CustomMessage) -> str:
    raise RuntimeError("custom messages are not shown here")


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
