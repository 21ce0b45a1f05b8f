"""One language server: its process, the LSP handshake, open documents, published diagnostics.

States: ``starting`` (spawned, ``initialize`` not answered), ``ready``, ``failed`` (could not
start, or ended: :attr:`LanguageServer.error` says how), ``restarting`` (after a crash, at the
next use, at most ``max_restarts`` times), ``stopped`` (pi shut it down).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from pi_cli.shell.events.lsp import LspServerStatus, LspState
from pi_cli.shell.lsp.capabilities import ANSWERED_WITH_NULL, CLIENT_CAPABILITIES
from pi_cli.shell.lsp.config import ServerSpec
from pi_cli.shell.lsp.documents import Document, Published, file_stamp, read_text
from pi_cli.shell.lsp.jsonrpc import METHOD_NOT_FOUND, Connection, LspError
from pi_cli.shell.lsp.positions import path_of, uri_of
from pi_cli.shell.lsp.process import ServerProcess

log = logging.getLogger("pi_cli")
Launch = Callable[[ServerSpec], Awaitable[ServerProcess]]
MAX_KEPT_DIAGNOSTICS = 1000
"""Diagnostics kept per file (a server may publish tens of thousands)."""
SHUTDOWN_WAIT = 0.5


class StartError(Exception):
    """The server could not be started (the message says why, for the user)."""


class LanguageServer:
    """A server for one language group of one workspace (see the module docstring)."""

    def __init__(
        self,
        spec: ServerSpec,
        launch: Launch,
        cwd: Path,
        startup_timeout_s: float,
        request_timeout_s: float,
        on_change: Callable[[], None],
    ) -> None:
        self.spec = spec
        self.launch = launch
        self.cwd = cwd
        self.startup_timeout_s = spec.startup_timeout_s or startup_timeout_s
        self.request_timeout_s = request_timeout_s
        self.on_change = on_change
        self.state: LspState = "starting"
        self.error: str | None = None
        self.process: ServerProcess | None = None
        self.connection: Connection | None = None
        self.capabilities: dict[str, Any] = {}
        self.encoding = "utf-16"
        self.documents: dict[Path, Document] = {}
        self.published: dict[Path, Published] = {}
        self.seq = 0
        self.restarts = 0
        self.progress: dict[str, str] = {}
        self._started: asyncio.Task[None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._news = asyncio.Event()
        self._stopping = False

    # ------------------------------------------------------------------ lifecycle

    def ensure(self) -> asyncio.Task[None] | None:
        """Start it (once), or again after a crash while restarts are left."""
        if self._stopping:
            return None
        if self._started is None:
            self._started = asyncio.ensure_future(self._start())
        elif self.state == "failed" and self.process is not None and self._may_restart():
            self.restarts += 1
            self.state, self.error = "restarting", None
            self.on_change()
            self._started = asyncio.ensure_future(self._start())
        return self._started

    def _may_restart(self) -> bool:
        # Only a server that was running (it crashed) restarts; one that never started does not.
        return self.capabilities != {} and self.restarts < self.spec.max_restarts

    async def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait (at most ``timeout``) until it is ready; False if it failed or is still starting."""
        task = self.ensure()
        if task is None:
            return False
        if not task.done():
            with suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), timeout)
        return self.state == "ready"

    async def _start(self) -> None:
        self.documents.clear()
        self.capabilities = {}
        try:
            self.process = await self.launch(self.spec)
            await self._initialize(self.process)
        except StartError as exc:
            self._fail(str(exc))
        except (OSError, ValueError, LspError) as exc:
            self._fail(f"could not start: {exc}")
        except Exception as exc:  # a helper error, anything: the server fails, pi goes on
            log.exception("starting the language server %s failed", self.spec.name)
            self._fail(f"could not start: {type(exc).__name__}: {exc}")
        else:
            self.state = "ready"
            self.on_change()

    async def _initialize(self, process: ServerProcess) -> None:
        connection = Connection(process.reader, process.write, self._notified, self._asked)
        self.connection = connection
        self._reader = asyncio.ensure_future(self._read(connection, process))
        try:
            result = await connection.request(
                "initialize", self._init_params(), timeout=self.startup_timeout_s
            )
        except TimeoutError:
            raise StartError(
                f"no answer to initialize within {self.startup_timeout_s:g}s "
                f"(lsp.startupTimeoutS){self._stderr(process)}"
            ) from None
        except LspError as exc:
            with suppress(TimeoutError):  # its exit status, if it is exiting
                await asyncio.wait_for(process.job.exited.wait(), 1.0)
            raise StartError(self._ended(process) if process.exited else str(exc)) from None
        result = result if isinstance(result, dict) else {}
        capabilities = result.get("capabilities")
        self.capabilities = capabilities if isinstance(capabilities, dict) else {"": True}
        encoding = self.capabilities.get("positionEncoding") or result.get("offsetEncoding")
        self.encoding = encoding if encoding in ("utf-8", "utf-16", "utf-32") else "utf-16"
        connection.notify("initialized", {})
        if self.spec.settings is not None:
            connection.notify("workspace/didChangeConfiguration", {"settings": self.spec.settings})

    def _init_params(self) -> dict[str, Any]:
        root = uri_of(self.cwd)
        return {
            # null: inside the sandbox pi's pid means nothing, and the helper ends the server.
            "processId": None,
            "clientInfo": {"name": "pi"},
            "rootUri": root,
            "rootPath": str(self.cwd),
            "workspaceFolders": [{"uri": root, "name": self.cwd.name}],
            "initializationOptions": self.spec.init_options,
            "capabilities": CLIENT_CAPABILITIES,
            "trace": "off",
        }

    async def _read(self, connection: Connection, process: ServerProcess) -> None:
        await connection.run()
        if self._stopping or self.process is not process:
            return
        # The stream ended: the server exited or broke the protocol. Give its exit a moment.
        with suppress(TimeoutError):
            await asyncio.wait_for(process.job.exited.wait(), 1.0)
        process.kill()
        reason = self._ended(process) if process.exited else connection.closed or "it stopped"
        if self.state != "ready":
            return  # starting: _start reports it (its initialize fails now); failed: said
        self._fail(reason)

    def _ended(self, process: ServerProcess) -> str:
        return f"{process.exit_text()}{self._stderr(process)}"

    @staticmethod
    def _stderr(process: ServerProcess) -> str:
        tail = process.stderr_tail(300)
        return f": {tail}" if tail else ""

    def _fail(self, reason: str) -> None:
        self.state, self.error = "failed", reason
        if self.connection is not None:
            self.connection.close(reason)
        if self.process is not None:
            self.process.kill()
        self._wake()
        self.on_change()

    async def stop(self) -> None:
        """Shut it down politely (``shutdown``, ``exit``), then end its process tree."""
        self._stopping = True
        task, process, connection = self._started, self.process, self.connection
        if task is not None and not task.done():
            task.cancel()
            with suppress(BaseException):
                await task
        if connection is not None and connection.closed is None and self.state == "ready":
            with suppress(Exception):
                await connection.request("shutdown", None, timeout=SHUTDOWN_WAIT)
                connection.notify("exit")
        if process is not None:
            process.close_stdin()
            if not await process.wait_gone(SHUTDOWN_WAIT):
                process.kill()
                await process.wait_gone(3.0)
        if connection is not None:
            connection.close("pi stopped the server")
        if self._reader is not None:
            self._reader.cancel()
        self.state = "stopped"

    def status(self) -> LspServerStatus:
        """Its state for ``/lsp``, the footer and the wire."""
        progress = next(iter(self.progress.values()), None)
        return LspServerStatus(
            name=self.spec.name,
            state=self.state,
            files=self.spec.globs,
            command=" ".join([self.spec.command, *self.spec.args]),
            source=self.spec.source,
            error=self.error,
            sandboxed=bool(self.process and self.process.sandboxed),
            progress=progress,
        )

    # ------------------------------------------------------------------ the server's messages

    def _notified(self, method: str, params: Any) -> None:
        if method == "textDocument/publishDiagnostics" and isinstance(params, dict):
            self._publish(params)
        elif method == "$/progress" and isinstance(params, dict):
            self._progress(params)

    def _publish(self, params: dict[str, Any]) -> None:
        uri, items = params.get("uri"), params.get("diagnostics")
        path = path_of(uri) if isinstance(uri, str) else None
        if path is None or not isinstance(items, list):
            return
        version = params.get("version")
        self.seq += 1
        kept = [item for item in items[:MAX_KEPT_DIAGNOSTICS] if isinstance(item, dict)]
        self.published[path] = Published(
            kept, version if isinstance(version, int) else None, self.seq, time.monotonic()
        )
        self._wake()

    def _wake(self) -> None:
        self._news.set()
        self._news = asyncio.Event()

    def _progress(self, params: dict[str, Any]) -> None:
        token, value = str(params.get("token")), params.get("value")
        if not isinstance(value, dict):
            return
        kind = value.get("kind")
        if kind == "end":
            self.progress.pop(token, None)
        elif kind in ("begin", "report"):
            title = value.get("title") or self.progress.get(token, "")
            percent = value.get("percentage")
            text = str(title)[:40] + (f" {percent}%" if isinstance(percent, int) else "")
            self.progress[token] = text
        else:
            return
        self.on_change()

    async def _asked(self, method: str, params: Any) -> Any:
        if method == "workspace/configuration":
            items = params.get("items") if isinstance(params, dict) else None
            return [self._setting(item) for item in items or []]
        if method == "workspace/workspaceFolders":
            return [{"uri": uri_of(self.cwd), "name": self.cwd.name}]
        if method == "workspace/applyEdit":
            return {"applied": False, "failureReason": "pi changes files only through its tools"}
        if method == "window/showDocument":
            return {"success": False}
        if method in ANSWERED_WITH_NULL:
            return None
        raise LspError(f"pi does not handle {method}", METHOD_NOT_FOUND)

    def _setting(self, item: Any) -> Any:
        section = item.get("section") if isinstance(item, dict) else None
        value = self.spec.settings
        for part in section.split(".") if isinstance(section, str) and section else []:
            value = value.get(part) if isinstance(value, dict) else None
        return value

    # ------------------------------------------------------------------ documents

    def sync(self, path: Path, language_id: str) -> Document | None:
        """Give the server ``path``'s text from disk: open it, or send the new text if it
        changed (a file that cannot be read is closed). Needs a ready server."""
        connection = self.connection
        if self.state != "ready" or connection is None:
            return None
        doc = self.documents.get(path)
        read = read_text(path)
        if read is None:
            if doc is not None:
                connection.notify("textDocument/didClose", {"textDocument": {"uri": doc.uri}})
                del self.documents[path]
            return None
        text, stamp = read
        if doc is None:
            uri = uri_of(path)
            doc = Document(path, uri, language_id, 1, text, stamp, self.seq)
            self.documents[path] = doc
            item = {"uri": uri, "languageId": language_id, "version": 1, "text": text}
            connection.notify("textDocument/didOpen", {"textDocument": item})
        elif text != doc.text:
            doc.version += 1
            doc.text, doc.stamp, doc.sent_seq = text, stamp, self.seq
            connection.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": doc.uri, "version": doc.version},
                    "contentChanges": [{"text": text}],
                },
            )
            connection.notify("textDocument/didSave", {"textDocument": {"uri": doc.uri}})
        else:
            doc.stamp = stamp
        return doc

    def changed_on_disk(self) -> list[Path]:
        """Open documents whose file changed since the server got its text."""
        return [path for path, doc in self.documents.items() if file_stamp(path) != doc.stamp]

    def watched_change(self, changes: list[tuple[Path, int]]) -> None:
        """``workspace/didChangeWatchedFiles`` (1 created, 2 changed, 3 deleted)."""
        if self.connection is not None and self.state == "ready" and changes:
            events = [{"uri": uri_of(path), "type": kind} for path, kind in changes]
            self.connection.notify("workspace/didChangeWatchedFiles", {"changes": events})

    def fresh(self, doc: Document) -> Published | None:
        """The diagnostics published for ``doc``'s current version, if they are in."""
        published = self.published.get(doc.path)
        if published is None or published.seq <= doc.sent_seq:
            return None
        if published.version is not None and published.version < doc.version:
            return None
        return published

    async def wait_diagnostics(self, doc: Document, deadline: float) -> Published | None:
        """Wait until ``doc``'s diagnostics are in (then ``settle_ms`` for more), or deadline."""
        loop = asyncio.get_running_loop()
        while (published := self.fresh(doc)) is None:
            left = deadline - loop.time()
            if left <= 0 or self.state != "ready":
                return None
            with suppress(TimeoutError):
                await asyncio.wait_for(self._news.wait(), left)
        settle = self.spec.settle_ms / 1000
        while settle > 0:  # more may follow (syntax first, then semantic errors)
            left = min(settle, deadline - loop.time())
            if left <= 0:
                break
            try:
                await asyncio.wait_for(self._news.wait(), left)
            except TimeoutError:
                break
            current = self.published.get(doc.path)
            if current is not None and current.seq != published.seq:
                published = current
        return published

    async def request(self, method: str, params: Any) -> Any:
        """A request to the ready server (raises LspError, TimeoutError)."""
        connection = self.connection
        if self.state != "ready" or connection is None:
            raise LspError(f"the {self.spec.name} language server is {self.state}")
        return await connection.request(method, params, timeout=self.request_timeout_s)
