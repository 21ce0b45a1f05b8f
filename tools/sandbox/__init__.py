"""The session's sandbox: where bash commands run, and what keeps them contained.

One :class:`Sandbox` per session (the shell builds it from settings and hands it to the bash
tools). Commands run under a per-session process helper (:mod:`tools.sandbox._proc_helper`),
sandboxed ones inside one long-lived bubblewrap instance: every command of the session joins
the same namespaces (a server one call starts answers ``curl localhost`` in the next).
Unsandboxed commands run under a second helper outside, with the same containment. After each
command :meth:`Sandbox.after_command` undoes what no mount can keep out (:mod:`._watch`).
The process host's and background shells' names the bash tools use are re-exported here."""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import tempfile
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tools._output import DEFAULT_SPILL_CAP
from tools.sandbox import _bwrap
from tools.sandbox._background import BackgroundShell as BackgroundShell
from tools.sandbox._background import BackgroundShells
from tools.sandbox._background import ShellInfo as ShellInfo
from tools.sandbox._bwrap import Layout
from tools.sandbox._explain import failed_paths_explained as failed_paths_explained
from tools.sandbox._git_layout import git_layout
from tools.sandbox._host import KILL_GRACE as KILL_GRACE
from tools.sandbox._host import HelperError as HelperError
from tools.sandbox._host import Job as Job
from tools.sandbox._host import ProcessHost as ProcessHost
from tools.sandbox._layout import DEFAULT_HIDDEN, DEFAULT_PROTECTED, build_layout
from tools.sandbox._watch import Watch

SandboxMode = Literal["auto", "required", "off"]
log = logging.getLogger("pi_cli")
Notify = Callable[[str, Literal["info", "warning", "error"]], None]

__all__ = [
    "DEFAULT_HIDDEN",
    "DEFAULT_PROTECTED",
    "Sandbox",
    "SandboxMode",
    "SandboxStatus",
    "SandboxUnavailable",
]


class SandboxUnavailable(Exception):
    """A command may not run: ``sandbox.mode`` is ``required`` and there is no sandbox."""


@dataclass(frozen=True)
class SandboxStatus:
    """What ``/sandbox`` shows and the permission engine reads (``active``)."""

    active: bool
    """Sandboxed commands really run inside bubblewrap."""
    network: bool
    """Commands inside may use the network."""
    reason: str | None
    """Why the sandbox is not active (None when it is)."""
    mode: SandboxMode
    weaker: tuple[str, ...] = ()
    """What the working bubblewrap configuration lacks compared with the strongest one."""


class Sandbox:
    """The sandbox and process containment of one session.

    Args:
        workspace: the working directory (writable inside).
        mode: ``auto`` (sandbox where it works, one notice where not), ``required`` (no bash
            without it), ``off``.
        network: commands inside may use the network (default: loopback only).
        writable: more writable directories (``sandbox.writable``, ``--add-dir``).
        hidden: more paths not visible inside (``PI_HOME``, the user's read deny rules).
        protected: read-only even inside the workspace (relative to it, or absolute).
        keep_background: background shells outlive pi (``--keep-bashes``).
        output_cap: largest full-output file of a command, in bytes.
        notify: tells the user something (the shell's notice); called at most once per fact.
        quarantine: where a protected path a command created is moved (out of the sandbox's
            reach: the shell passes one in ``PI_HOME``); default: the session's directory.
    """

    def __init__(
        self,
        workspace: str | Path,
        *,
        mode: SandboxMode = "auto",
        network: bool = False,
        writable: Sequence[str | Path] = (),
        hidden: Sequence[str | Path] = (),
        protected: Sequence[str] = DEFAULT_PROTECTED,
        keep_background: bool = False,
        output_cap: int = DEFAULT_SPILL_CAP,
        notify: Notify | None = None,
        bwrap: str | None = None,
        quarantine: str | Path | None = None,
    ) -> None:
        self.workspace = Path(os.path.abspath(workspace))
        self.mode: SandboxMode = mode
        self.network = network
        self.writable = [Path(os.path.abspath(os.path.expanduser(p))) for p in writable]
        self.hidden = [Path(os.path.abspath(os.path.expanduser(p))) for p in hidden]
        self.protected = list(protected)
        self.keep_background = keep_background
        self.output_cap = output_cap
        self.notify = notify
        self._bwrap = bwrap
        self._probe: _bwrap.Probe | None = None
        self._failure: str | None = None  # bubblewrap was found but the sandbox did not start
        self._temp: Path | None = None
        self._hosts: dict[bool, ProcessHost] = {}
        self._placeholders: list[Path] = []
        self._manifest: Path | None = None
        self._quarantine = Path(quarantine) if quarantine is not None else None
        self._watch: Watch | None = None
        self.layout: Layout | None = None
        """What the running sandbox shows (for the "failed because of the sandbox" note)."""
        self._ids = itertools.count(1)
        self._said_unavailable = False
        self._probing = asyncio.Lock()
        self._probe_lock = threading.Lock()
        self.used = False
        """A bash tool runs on this sandbox (set by the tool): :meth:`prestart` starts it."""
        self.extra_writable: Callable[[], Sequence[Path]] = lambda: ()
        """More writable directories, read when the sandbox starts (the workspace's extra
        directories: the shell's permission control exists only after the tools)."""
        self.skip: Callable[[], str | None] = lambda: None
        """A reason to run without the sandbox now (the yolo mode), ignored when required."""
        self.shells = BackgroundShells()
        """The background shells (``bash`` with ``background: true``)."""

    # ------------------------------------------------------------------ state

    @property
    def status(self) -> SandboxStatus:
        """Probes bubblewrap the first time (a few milliseconds)."""
        if self.mode == "off":
            return SandboxStatus(False, True, "sandbox.mode is off", self.mode)
        skipped = self.skip() if self.mode == "auto" else None
        if skipped is not None:
            return SandboxStatus(False, True, skipped, self.mode)
        probe = self._probed()
        reason = probe.reason or self._failure
        if reason is not None:
            return SandboxStatus(False, True, reason, self.mode)
        return SandboxStatus(True, self.network, None, self.mode, probe.weaker)

    @property
    def active(self) -> bool:
        """Sandboxed commands run inside bubblewrap (what the permission engine asks)."""
        return self.status.active

    @property
    def placeholders(self) -> tuple[Path, ...]:
        """What pi created inside git directories for the sandbox while it runs (missing
        read-only entries: empty directories, ``commondir`` holding ``.``); nothing in the
        project itself."""
        return tuple(self._placeholders)

    def _probed(self) -> _bwrap.Probe:
        with self._probe_lock:  # the shell's build thread and the event loop's worker
            if self._probe is None:
                self._probe = _bwrap.probe(self._bwrap)
            return self._probe

    def _say(self, text: str, level: Literal["info", "warning", "error"] = "warning") -> None:
        if self.notify is not None:
            self.notify(text, level)

    @property
    def temp_dir(self) -> Path:
        """This session's directory for full-output files and logs (writable inside too)."""
        if self._temp is None:
            self._temp = Path(tempfile.mkdtemp(prefix="pi-session-"))
            # An embedder that never calls aclose() leaves no empty directory behind either.
            weakref.finalize(self, _remove_if_empty, self._temp)
        return self._temp

    def spill_dir(self, sandboxed: bool) -> Path | None:
        """Where a command's full-output file goes: visible inside when it ran inside."""
        return self.temp_dir if sandboxed or self._temp is not None else None

    def next_id(self, background: bool) -> str:
        """A new job id: ``bash_N`` for a background shell, ``cN`` for a foreground command."""
        number = next(self._ids)
        return f"bash_{number}" if background else f"c{number}"

    def writable_roots(self) -> list[Path]:
        """Where sandboxed commands may write (for the "failed because of the sandbox" hint)."""
        own = [self._temp] if self._temp is not None else []  # not created just to be named
        return [self.workspace, *self._writable(), Path("/tmp"), *own]

    def _writable(self) -> list[Path]:
        extra = [Path(os.path.abspath(p)) for p in self.extra_writable()]
        return [*self.writable, *(p for p in extra if p not in self.writable)]

    def environment(self, base: Mapping[str, str] | None, sandboxed: bool) -> dict[str, str]:
        """A command's environment: ``base`` (or ``os.environ``); inside, temp files go to /tmp."""
        env = dict(os.environ if base is None else base)
        if sandboxed:
            for name in ("TMPDIR", "TMP", "TEMP"):
                env[name] = "/tmp"
            env["PI_SANDBOX"] = "1"
        return env

    # ------------------------------------------------------------------ hosts

    async def host(self, sandboxed: bool) -> tuple[ProcessHost, bool]:
        """The helper to run a command with, and whether it really is sandboxed.

        Raises:
            SandboxUnavailable: ``required`` mode without a sandbox, or an unsandboxed call
                in ``required`` mode.
            HelperError: the helper cannot start.
        """
        if self.mode == "required" and not sandboxed:
            raise SandboxUnavailable(
                'sandbox.mode is "required": commands may not run outside the sandbox'
            )
        async with self._probing:
            if self._probe is None and self.mode != "off":
                # A few subprocess runs: off the event loop, which keeps serving keys meanwhile.
                await asyncio.to_thread(self._probe_now)
        inside = sandboxed and self.mode != "off" and self.status.active
        if sandboxed and not inside and self.mode == "required":
            raise SandboxUnavailable(
                f'sandbox.mode is "required" but the sandbox is not available: '
                f"{self.status.reason}. Install bubblewrap (package bubblewrap) or change "
                "sandbox.mode in settings."
            )
        if inside:
            try:
                return await self._ensure(True), True
            except HelperError as exc:
                if self.mode == "required":
                    raise SandboxUnavailable(f"the sandbox did not start: {exc}") from None
                self._failure = f"the sandbox did not start: {exc}"
                self._say(f"{self._failure}; commands run without it.")
        elif sandboxed and self.mode == "auto" and not self._said_unavailable:
            self._said_unavailable = True
            self._say(f"No sandbox for bash commands: {self.status.reason}.")
        return await self._ensure(False), False

    async def _ensure(self, inside: bool) -> ProcessHost:
        host = self._hosts.get(inside) or self._new_host(inside)
        if not host.alive and inside:
            host.prefix = self._bwrap_prefix()
        await host.ensure()
        return host

    def _new_host(self, inside: bool) -> ProcessHost:
        prefix: list[str] = []
        if inside:
            prefix = self._bwrap_prefix()
        # Only a kept shell's output goes there (after pi has gone): no directory otherwise.
        keep = self.keep_background
        base = self.temp_dir if inside or keep else Path(tempfile.gettempdir())
        log_dir = base / ("kept-in" if inside else "kept-out")
        host = ProcessHost(prefix, log_dir, keep=self.keep_background)
        self._hosts[inside] = host
        return host

    def _bwrap_prefix(self) -> list[str]:
        _bwrap.sweep_placeholders()  # what a killed pi created, before it looks real
        git = git_layout(self.workspace, os.environ)
        layout = build_layout(
            self.workspace,
            writable=[*self._writable(), self.temp_dir],
            hidden=self.hidden,
            protected=self.protected,
            network=self.network,
            env=os.environ,
            git=git,
        )
        created = _bwrap.create_entries(git.create_dirs, git.create_files)
        self._placeholders += [p for p in created if p not in self._placeholders]
        if created and self._manifest is None:
            self._manifest = _bwrap.record_placeholders(self._placeholders)
        if self._watch is None:
            quarantine = self._quarantine or self.temp_dir / "quarantine"
            self._watch = Watch(self.workspace, layout.protected, git, quarantine)
        self.layout = layout
        return _bwrap.command(self._probed(), layout, die_with_parent=not self.keep_background)

    async def after_command(self, sandboxed: bool) -> list[str]:
        """Undo what a command may have armed outside the sandbox (see
        :mod:`tools.sandbox._watch`): a note for the model per thing undone. After a command
        run outside (approved), what it made is accepted instead."""
        watch = self._watch
        if watch is None or not watch.quick():
            return []
        if not sandboxed:
            watch.accept_present()
            if not watch.quick():
                return []
        try:
            return await asyncio.to_thread(watch.check)
        except OSError as exc:  # never fails a command: say it instead
            return [f"[pi: checking what the command created failed: {exc}]"]

    def kept_report(self) -> list[str]:
        """For ``--keep-bashes`` at exit: each running shell, where its output goes, how to stop it."""
        lines = []
        for shell in self.shells.all():
            if shell.state != "running":
                continue
            output = shell.host.log_dir / f"{shell.id}.log"
            init = shell.host.init_pid()
            stop = f"kill -KILL {init} (the sandbox)" if init else f"kill -TERM -{shell.job.pid}"
            lines.append(f"{shell.id} ({shell.command}): output -> {output}; stop: {stop}")
        return lines

    @property
    def started(self) -> bool:
        """A process helper runs (inside the sandbox or outside)."""
        return any(host.alive for host in self._hosts.values())

    def prestart(self) -> None:
        """Start the process helper (inside the sandbox when it is on) now, once, so the first
        bash call does not wait for it (a second interpreter: 30-60 ms). The shell calls this
        when it is built and again when a run begins.

        On the main thread (the event loop's, which a sandbox started with ``--die-with-parent``
        must not outlive) the helper is spawned at once and its handshake read when the first
        command needs it. On another thread (a TUI building its shell off its loop) only the
        bubblewrap probe runs; the next call, from the loop, spawns it. Never raises: a failure
        is said when a command needs the helper.
        """
        if not self.used or self._hosts:
            return
        try:
            if self.mode != "off":
                self._probe_now()
            if threading.current_thread() is not threading.main_thread():
                return
            inside = self.mode != "off" and self.status.active
            if self.mode == "required" and not inside:
                return  # commands refuse to run: nothing to start
            host = self._new_host(inside)
            try:
                host.start_early()
            except HelperError:
                self._hosts.pop(inside, None)
        except Exception:  # an early start is an optimisation: the first command starts it again
            log.debug("starting the process helper early failed", exc_info=True)

    def _probe_now(self) -> None:
        if self._probe is None:
            probe = self._probed()
            if probe.ok and probe.weaker:
                self._say("Sandbox active with weaker isolation: " + "; ".join(probe.weaker))

    async def aclose(self) -> None:
        """Stop every command (kept background shells excepted: they are reported through
        ``notify``); remove what pi created. Never raises: a shutdown must go on (the helpers
        also stop by themselves when pi exits)."""
        kept = self.kept_report() if self.keep_background else []
        if kept:
            self._say("Background shells kept running after pi exits:\n  " + "\n  ".join(kept))
        try:
            await self._close()
        except Exception:
            log.exception("closing the sandbox failed")

    async def _close(self) -> None:
        await self.shells.aclose(keep=self.keep_background)
        for host in self._hosts.values():
            await host.aclose()
        self._hosts.clear()
        if self._watch is not None and self._watch.quick():  # the last command's leftovers
            for note in self._watch.check():
                self._say(note.removeprefix("[pi: ").removesuffix("]"))
        _bwrap.remove_placeholders(self._placeholders)
        if self._manifest is not None:
            with suppress(OSError):
                self._manifest.unlink()
        if self._temp is not None:
            # Full-output files stay (the transcript points at them); an empty directory goes.
            with suppress(OSError):
                self._temp.rmdir()

    def describe(self) -> str:
        """The text of ``/sandbox``: state, reason, network, writable, hidden and protected."""
        from tools.sandbox._text import describe

        return describe(self)


def _remove_if_empty(path: Path) -> None:
    with suppress(OSError):
        path.rmdir()
