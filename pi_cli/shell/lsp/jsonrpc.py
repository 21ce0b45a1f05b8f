"""A JSON-RPC 2.0 connection to one language server (requests, notifications, its requests).

Everything runs on the shell's loop. The reader yields to the loop after every message, so a
server that floods notifications slows itself down, not pi's UI.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any

from pi_cli.shell.lsp.framing import FramingError, encode, read_message

log = logging.getLogger("pi_cli")

NotificationHandler = Callable[[str, Any], None]
RequestHandler = Callable[[str, Any], Awaitable[Any]]
METHOD_NOT_FOUND = -32601
REQUEST_CANCELLED = -32800
CONTENT_MODIFIED = -32801


class LspError(Exception):
    """The server answered a request with an error, or the connection is gone."""

    def __init__(self, message: str, code: int = 0) -> None:
        super().__init__(message)
        self.code = code


class ConnectionLost(LspError):
    """The server's stream ended or broke the protocol (``str()`` says how)."""


class Connection:
    """Requests with ids and futures; notifications and server requests go to the handlers.

    Args:
        reader: the server's stdout.
        write: sends bytes to the server's stdin (never raises: a dead pipe is noticed by the
            reader's end of stream).
        on_notification: ``(method, params)`` for each notification (must not raise).
        on_request: answers a request of the server; raise :class:`LspError` to reply with
            an error (unknown methods: ``-32601``).
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        write: Callable[[bytes], None],
        on_notification: NotificationHandler,
        on_request: RequestHandler,
    ) -> None:
        self.reader = reader
        self.write = write
        self.on_notification = on_notification
        self.on_request = on_request
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.closed: str | None = None
        """Why the connection ended (``None`` while it is open)."""
        self.received = 0

    # ------------------------------------------------------------------ sending

    def notify(self, method: str, params: Any = None) -> None:
        """Send a notification (nothing when the connection is closed)."""
        if self.closed is None:
            self.write(encode({"jsonrpc": "2.0", "method": method, "params": params}))

    async def request(self, method: str, params: Any = None, timeout: float | None = None) -> Any:
        """Send a request and await its result.

        Raises:
            LspError: the server's error answer; :class:`ConnectionLost` when it went away.
            TimeoutError: no answer within ``timeout`` (the request is cancelled).
        """
        if self.closed is not None:
            raise ConnectionLost(self.closed)
        request_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        self.write(encode(message))
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except (TimeoutError, asyncio.CancelledError):
            if not future.done():
                self.notify("$/cancelRequest", {"id": request_id})
            raise
        finally:
            self._pending.pop(request_id, None)
            if not future.done():
                future.cancel()

    def _reply(self, request_id: Any, result: Any = None, error: LspError | None = None) -> None:
        if self.closed is not None:
            return
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        if error is not None:
            message["error"] = {"code": error.code or -32603, "message": str(error)}
        else:
            message["result"] = result
        self.write(encode(message))

    # ------------------------------------------------------------------ receiving

    async def run(self) -> None:
        """Read until the stream ends; then every pending request fails with the reason."""
        reason = "the server closed its output"
        try:
            while True:
                message = await read_message(self.reader)
                if message is None:
                    break
                self.received += 1
                self._dispatch(message)
                await asyncio.sleep(0)  # a flood must not starve the loop
        except FramingError as exc:
            reason = f"the server broke the protocol: {exc}"
        except (OSError, ValueError) as exc:
            reason = f"reading from the server failed: {exc}"
        finally:
            self.close(reason)

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                task = asyncio.ensure_future(self._answer(message["id"], method, message))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            else:
                try:
                    self.on_notification(method, message.get("params"))
                except Exception:  # one bad notification must not end the connection
                    log.exception("LSP notification %s failed", method)
            return
        request_id = message.get("id")
        future = self._pending.get(request_id) if isinstance(request_id, int) else None
        if future is None or future.done():
            return  # an answer to a cancelled request, or to nothing we asked
        error = message.get("error")
        if isinstance(error, dict):
            text = str(error.get("message") or "error")[:500]
            code = error.get("code")
            future.set_exception(LspError(text, code if isinstance(code, int) else 0))
        else:
            future.set_result(message.get("result"))

    async def _answer(self, request_id: Any, method: str, message: dict[str, Any]) -> None:
        try:
            result = await self.on_request(method, message.get("params"))
        except LspError as exc:
            self._reply(request_id, error=exc)
        except Exception as exc:  # the server gets an error reply, pi goes on
            log.exception("answering the LSP request %s failed", method)
            self._reply(request_id, error=LspError(f"{type(exc).__name__}: {exc}", -32603))
        else:
            self._reply(request_id, result)

    def close(self, reason: str) -> None:
        """End the connection: pending requests fail with ``reason``."""
        if self.closed is None:
            self.closed = reason
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionLost(reason))
                with suppress(BaseException):
                    future.exception()
        self._pending.clear()
        for task in list(self._tasks):
            task.cancel()
