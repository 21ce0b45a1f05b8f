"""One session's WebSocket, from a client: commands out, responses and events in, in order.

:class:`SessionLink` reads every line on a task; a response is handed to whoever waits for it,
other lines are turned into shell events (:mod:`.decode`) by a second task, which waits for the
first listener (so a front end draws what it attached to before the live lines move anything)
and lets the proxy update its mirror before listeners see each event (:meth:`_track`). A
command may ask for its answer in order with the events (``ordered``): what it produced is then
in the mirror when its caller goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_cli.server.client.decode import Decoder
from pi_cli.shell import Listener, Notice, ShellEvent

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

log = logging.getLogger("pi_cli.server")
RESYNC = frozenset({"session_changed", "compaction_end", "agent_end", "reloaded"})
"""Lines after which the proxy fetches what no event carried, before listeners see them
(``reloaded``: the extensions' keys, which the front end binds again on that event)."""

CLOSED = "the server connection closed"


class RemoteError(Exception):
    """The server refused a command (its message)."""


class SessionLink:
    """The connection part of the proxy (see the module docstring)."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._ids = itertools.count(1)
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._ordered: set[str] = set()  # answered in order with the events
        self._listeners: list[Listener] = []
        self._subscribed = asyncio.Event()  # lines wait for the first listener (see subscribe)
        self._decoder = Decoder()
        self._lines: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closed = asyncio.Event()
        self.close_reason = ""

    def _track(self, event: ShellEvent) -> None:
        """The proxy's mirror follows ``event`` (before listeners see it)."""

    async def _resync(self) -> None:
        """The proxy fetches what no event carried (before listeners see the line)."""

    def _closed(self) -> None:
        """The connection ended (the proxy wakes who waits for it)."""

    def start(self) -> None:
        """Begin reading (after the first listener, or at once: events wait for one)."""
        for work in (self._read(), self._dispatch()):
            task = asyncio.ensure_future(work)
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                text = message if isinstance(message, str) else message.decode("utf-8", "replace")
                try:
                    data = json.loads(text)
                except ValueError:
                    continue
                if not isinstance(data, dict):
                    continue
                answer = data.get("type") == "response" and str(data.get("id")) in self._waiting
                if answer and str(data.get("id")) not in self._ordered:
                    self._answered(data)
                else:
                    self._lines.put_nowait(data)
        except Exception as exc:  # noqa: BLE001 - any end of the connection ends the proxy
            self.close_reason = f"{type(exc).__name__}: {exc}"
        finally:
            code, reason = self.ws.close_code, self.ws.close_reason
            if reason:
                self.close_reason = reason
            elif code not in (None, 1000) and not self.close_reason:
                self.close_reason = f"closed ({code})"
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(RemoteError(CLOSED))
            self._waiting.clear()
            self._lines.put_nowait(None)

    def _answered(self, data: dict[str, Any]) -> None:
        future = self._waiting.pop(str(data.get("id")))
        if future.done():
            return
        if data.get("success"):
            future.set_result(data.get("data"))
        else:
            future.set_exception(RemoteError(str(data.get("error") or "the command failed")))

    async def _dispatch(self) -> None:
        await self._subscribed.wait()
        while (data := await self._lines.get()) is not None:
            kind = data.get("type")
            if kind == "response" and str(data.get("id")) in self._waiting:
                self._ordered.discard(str(data.get("id")))
                self._answered(data)
                continue
            if kind in RESYNC:
                with contextlib.suppress(RemoteError):
                    await self._resync()  # before listeners redraw from the mirror
            for event in self._decoder.events(data):
                self._track(event)
                self._emit(event)
        self.closed.set()
        self._closed()
        if self.close_reason:
            self._emit(Notice(text=f"Detached from the server: {self.close_reason}", level="error"))

    def _emit(self, event: ShellEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a listener's bug must not stop the others (logged)
                log.exception("listener failed")

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event. Lines are taken (and the mirror moves) from the first listener
        on, on the loop's next turn: a front end draws the conversation as it was attached
        (``messages``) in the same step as it subscribes, then the run's lines follow."""
        self._listeners.append(listener)
        self._subscribed.set()
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def send(self, command: dict[str, Any]) -> None:
        """Send a command whose answer nobody waits for (a failure becomes a notice)."""
        task = asyncio.ensure_future(self._send_reporting(command))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send_reporting(self, command: dict[str, Any]) -> None:
        try:
            await self.request(command)
        except RemoteError as exc:
            self._emit(Notice(text=f"{command['type']}: {exc}", level="error"))

    async def request(self, command: dict[str, Any], ordered: bool = False) -> Any:
        """Send ``command`` and return its response's data (raises :class:`RemoteError`).

        ``ordered``: the answer is taken after the events sent before it reached listeners
        (an input handled: what it produced is in the mirror when the caller goes on)."""
        if self.closed.is_set():
            raise RemoteError("the server connection is closed")
        request_id = f"c{next(self._ids)}"
        if ordered:
            self._ordered.add(request_id)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        try:
            await self.ws.send(json.dumps({**command, "id": request_id}))
        except Exception as exc:  # noqa: BLE001 - ConnectionClosed and friends: one message
            self._waiting.pop(request_id, None)
            raise RemoteError(f"the server connection closed ({exc})") from None
        return await future

    async def _answer(self, request_id: str, command: dict[str, Any]) -> None:
        # An answer has no response line when it counts; only a refusal answers (by the id).
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = future
        try:
            await self.ws.send(json.dumps({**command, "id": request_id}))
        except Exception:  # noqa: BLE001 - the connection is gone: the dispatcher says so
            self._waiting.pop(request_id, None)
            return
        try:
            await asyncio.wait_for(future, 30)
        except RemoteError as exc:  # refused: answered by another client first (it says how)
            if str(exc) != CLOSED:  # a closed connection is said once, by the dispatcher
                self._emit(Notice(text=str(exc), level="warning"))
        except TimeoutError:
            pass
        self._waiting.pop(request_id, None)

    async def aclose(self) -> None:
        """Leave the session (its run goes on in the server)."""
        with contextlib.suppress(Exception):
            await self.ws.close()
        for task in list(self._tasks):
            task.cancel()
        self.closed.set()
