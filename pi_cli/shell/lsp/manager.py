"""The shell's language servers: one per language group, started at the first file of that
language the model reads or edits, asked for diagnostics after changes.

Nothing here blocks a turn for long: a server starts in the background; an edit waits for
diagnostics at most ``lsp.diagnosticsWaitMs`` (a server still starting is reported as such).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from pi_cli.shell.config.settings import LspSettings
from pi_cli.shell.context import Level
from pi_cli.shell.events.lsp import (
    Diagnostic,
    DiagnosticsReported,
    FileDiagnostics,
    LspStatusChanged,
)
from pi_cli.shell.lsp import diagnostics as diag
from pi_cli.shell.lsp.config import ServerTable
from pi_cli.shell.lsp.documents import Document, Published, file_stamp
from pi_cli.shell.lsp.server import LanguageServer, Launch

log = logging.getLogger("pi_cli")
BASELINE_WAIT_S = 30.0
"""How long a file opened on a read waits for its first diagnostics (in the background)."""
Target = tuple[LanguageServer, Path, str]


class LspManager:
    """Every language server of one shell (see the module docstring)."""

    def __init__(
        self,
        settings: LspSettings,
        table: ServerTable,
        cwd: Path,
        launch: Launch,
        emit: Callable[[LspStatusChanged], None],
        notify: Callable[[str, Level], None],
    ) -> None:
        self.settings = settings
        self.table = table
        self.cwd = cwd
        self.launch = launch
        self.emit = emit
        self.notify = notify
        self.servers: dict[str, LanguageServer] = {}
        self.known: dict[Path, Counter[diag.Key]] = {}
        """Per file, the problems the model knows of (there before, or reported)."""
        self._tasks: set[asyncio.Future[None]] = set()
        self._said: dict[str, str] = {}
        self.closed = False

    # ------------------------------------------------------------------ servers

    def target(self, path: Path) -> Target | None:
        """The server for ``path`` (created and started if needed) and its languageId."""
        if self.closed or not self.settings.enabled:
            return None
        found = self.table.spec_for(path)
        if found is None:
            return None
        spec, language = found
        server = self.servers.get(spec.name)
        if server is None:
            server = LanguageServer(
                spec,
                self.launch,
                self.cwd,
                self.settings.startup_timeout_s,
                self.settings.request_timeout_s,
                lambda: self._changed(),
            )
            self.servers[spec.name] = server
            self._changed()
        server.ensure()
        return server, path, language

    @property
    def running(self) -> bool:
        """A server is starting or ready."""
        return any(s.state in ("starting", "ready", "restarting") for s in self.servers.values())

    def ready(self) -> list[LanguageServer]:
        """The servers that answer requests now."""
        return [s for s in self.servers.values() if s.state == "ready"]

    def _changed(self) -> None:
        for server in self.servers.values():
            said = f"{server.state}:{server.error}"
            if server.state == "failed" and self._said.get(server.spec.name) != said:
                self.notify(
                    f"Language server {server.spec.name} failed: {server.error}. pi goes on "
                    "without it (/lsp).",
                    "warning",
                )
            self._said[server.spec.name] = said
        self.emit(self.status_event())

    def status_event(self) -> LspStatusChanged:
        """Every started server's state."""
        return LspStatusChanged(servers=[s.status() for s in self.servers.values()])

    def footer(self) -> str:
        """``LSP python✓ typescript…`` ("" when no server was started)."""
        marks = {"ready": "✓", "starting": "…", "restarting": "…", "failed": "✗", "stopped": "-"}
        parts = [f"{name}{marks[s.state]}" for name, s in self.servers.items()]
        return "LSP " + " ".join(parts) if parts else ""

    def retire(self, name: str) -> None:
        """Stop and forget the server ``name`` (its plugin was taken out); its files get none."""
        server = self.servers.pop(name, None)
        if server is not None:
            self._spawn(asyncio.ensure_future(server.stop()))
            self._changed()

    def _spawn(self, work: asyncio.Future[None] | asyncio.Task[None]) -> None:
        self._tasks.add(work)
        work.add_done_callback(self._tasks.discard)

    async def idle(self) -> None:
        """Wait until the background work of reads (opening files, first diagnostics) is done."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # ------------------------------------------------------------------ reads

    def touch(self, path: Path) -> None:
        """The model read ``path``: start its server; open it there to learn its problems."""
        target = self.target(path)
        if target is not None:
            self._spawn(asyncio.ensure_future(self._open(*target)))

    async def _open(self, server: LanguageServer, path: Path, language: str) -> None:
        if not await server.wait_ready(server.startup_timeout_s):
            return
        doc = server.sync(path, language)
        if doc is not None and path not in self.known:
            await self._learn(server, doc, BASELINE_WAIT_S)

    async def _learn(self, server: LanguageServer, doc: Document, wait: float) -> None:
        """Remember ``doc``'s problems as known, once its diagnostics are in."""
        version = doc.version
        deadline = asyncio.get_running_loop().time() + wait
        published = await server.wait_diagnostics(doc, deadline)
        if published is not None and path_unchanged(doc, version) and doc.path not in self.known:
            self.known[doc.path] = Counter(map(diag.key, self._convert(server, doc, published)))

    # ------------------------------------------------------------------ edits

    async def before_edit(self, paths: Iterable[Path]) -> None:
        """Before an edit or write: the server has the file as it is now, its problems known."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.diagnostics_wait_ms / 1000
        waits = []
        for path in paths:
            if file_stamp(path) is None and not path.exists():
                self.known[path] = Counter()  # a new file: every problem in it is new
            target = self.target(path)
            if target is None or path in self.known:
                continue
            server, _, language = target
            if server.state != "ready":
                continue
            doc = server.sync(path, language)
            if doc is not None:
                waits.append(self._learn(server, doc, max(0.0, deadline - loop.time())))
        if waits:
            await asyncio.gather(*waits)

    async def after_edit(
        self, call_id: str, tool_name: str, paths: Iterable[Path]
    ) -> tuple[DiagnosticsReported, list[str]] | None:
        """After an edit or write: the diagnostics of the changed files (None: no server)."""
        targets = [t for t in map(self.target, paths) if t is not None]
        if not targets or not self.settings.diagnostics:
            return None
        return await self.diagnose(call_id, tool_name, targets)

    async def diagnose(
        self, call_id: str, tool_name: str, targets: list[Target]
    ) -> tuple[DiagnosticsReported, list[str]]:
        """Send the files' new text and wait (bounded) for their diagnostics.

        Returns the report and the servers still starting."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + self.settings.diagnostics_wait_ms / 1000
        servers = list(dict.fromkeys(server for server, _, _ in targets))
        seqs = {server: server.seq for server in servers}
        starting: list[str] = []
        for server in servers:
            if not await server.wait_ready(max(0.0, deadline - loop.time())):
                if server.state in ("starting", "restarting"):
                    starting.append(server.spec.name)
        docs: list[tuple[LanguageServer, Document]] = []
        for server, path, language in targets:
            doc = server.sync(path, language) if server.state == "ready" else None
            if doc is not None:
                docs.append((server, doc))
        published = await asyncio.gather(*(s.wait_diagnostics(d, deadline) for s, d in docs))
        files: list[FileDiagnostics] = []
        pending: list[str] = []
        for (server, doc), result in zip(docs, published, strict=True):
            if result is None:
                pending.append(server.spec.name)
            else:
                files.append(self._report(server, doc, result))
        changed = {path for _, path, _ in targets}
        for server in servers:
            files += self._elsewhere(server, changed, seqs[server])
        report = DiagnosticsReported(
            tool_call_id=call_id,
            tool_name=tool_name,
            files=diag.cap(files, self.settings.max_diagnostics),
            pending=sorted(set(pending)),
            waited_ms=int((loop.time() - start) * 1000),
        )
        return report, starting

    def _report(
        self, server: LanguageServer, doc: Document, published: Published
    ) -> FileDiagnostics:
        now = self._convert(server, doc, published)
        item = diag.compare(now, self.known.get(doc.path), server.spec.name, self._shown(doc.path))
        self.known[doc.path] = Counter(map(diag.key, now))
        return item

    def _elsewhere(
        self, server: LanguageServer, changed: set[Path], since: int
    ) -> list[FileDiagnostics]:
        """Other open files of ``server`` whose diagnostics changed: their new problems."""
        found = []
        for path, doc in server.documents.items():
            published = server.published.get(path)
            if path in changed or published is None or published.seq <= since:
                continue
            if path not in self.known or server.fresh(doc) is None:
                continue
            item = self._report(server, doc, published)
            if item.new_count:
                found.append(item)
        return found

    def _convert(
        self, server: LanguageServer, doc: Document, published: Published
    ) -> list[Diagnostic]:
        return diag.convert(
            published.items, doc.path, self._shown(doc.path), doc.text, server.encoding
        )

    def _shown(self, path: Path) -> str:
        return self.table.relative(path) or str(path)

    # ------------------------------------------------------------------ bash

    def before_bash(self) -> None:
        """Before a command: servers have the open files as they are now (hand edits)."""
        for server in self.ready():
            for path in server.changed_on_disk():
                doc = server.documents[path]
                server.sync(path, doc.language_id)

    async def after_bash(
        self, call_id: str, extra: Iterable[Path] = ()
    ) -> tuple[DiagnosticsReported, list[str]] | None:
        """After a command: diagnostics of the open files it changed (and of ``extra`` files
        of a running server's language, which the checkpoints saw change)."""
        targets: list[Target] = []
        for server in self.ready():
            for path in server.changed_on_disk():
                targets.append((server, path, server.documents[path].language_id))
        seen = {path for _, path, _ in targets}
        for path in extra:
            found = self.table.spec_for(path) if path not in seen else None
            running = self.servers.get(found[0].name) if found else None
            if found is not None and running is not None and running.state == "ready":
                targets.append((running, path, found[1]))
        if not targets or not self.settings.diagnostics:
            return None
        return await self.diagnose(call_id, "bash", targets)

    # ------------------------------------------------------------------ shutdown

    async def aclose(self) -> None:
        """Stop every server (politely, then their process trees); once."""
        self.closed = True
        for task in list(self._tasks):
            task.cancel()
        servers = list(self.servers.values())
        await asyncio.gather(*(s.stop() for s in servers), return_exceptions=True)


def path_unchanged(doc: Document, version: int) -> bool:
    """``doc`` still has the version it had (no edit came in between)."""
    return doc.version == version
