"""The shell's extensions: found, loaded (or taken from the cache), and woven into the shell.

:class:`ShellExtensions` is ``shell.extensions``. It puts the extensions' tools into the shell's
tool lists (next to pi's own, through the same permission gate), their commands into the slash
command registry, their key bindings where front ends find them (:meth:`keys`), their UI into
the dialog broker's pieces; the shell's hooks get their tool stage, the agent their context
transform and request middleware, the input their transform. Front ends ask it for key bindings,
run one (:meth:`run_key`) and complete a command's argument (:meth:`complete`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pi_cli.shell import extension_sources as discovery
from pi_cli.shell.commands import CommandResult, SlashCommand
from pi_cli.shell.extension_sources import read_cache, write_cache
from pi_cli.shell.extensions import _showing
from pi_cli.shell.extensions._util import candidates, user_keys
from pi_cli.shell.extensions.dispatch import Dispatcher
from pi_cli.shell.extensions.manifest import Manifest
from pi_cli.shell.extensions.provider import ProviderHooks, Route
from pi_cli.shell.extensions.runtime import CallFailed, Extension, Extensions
from pi_cli.shell.extensions.tool import ExtensionTool, validated
from pi_cli.shell.text.terminal import clean

if TYPE_CHECKING:
    from pydantic import BaseModel

    from agent_core import AbortSignal, StreamFn, Tool
    from agent_core.tool import OnToolUpdate
    from pi_cli.shell.commands import SlashCommandRegistry
    from pi_cli.shell.context import Level
    from pi_cli.shell.extensions.context import ExtensionHost

COMPLETION_WAIT_S = 0.5


@dataclass(frozen=True)
class ExtensionKey:
    """A key binding an extension registered (front ends bind it; users remap its id)."""

    id: str
    keys: str
    description: str
    extension: str


class ShellExtensions:
    """Every extension of one shell, and how the shell and front ends reach them.

    Args:
        host: the shell.
        commands: the slash command registry.
        set_tools: replaces the shell's extension tools (pi's own stay).
        notify: notices.
        timeout_s: the bound of one handler call.
        route: a model spec -> its stream function (a request handler's ``model``).
    """

    def __init__(
        self,
        host: ExtensionHost,
        commands: SlashCommandRegistry,
        set_tools: Callable[[list[Tool]], None],
        notify: Callable[[str, Level], None],
        timeout_s: float,
        route: Route | None = None,
    ) -> None:
        self.host = host
        self.commands = commands
        self.set_tools = set_tools
        self.notify = notify
        self.runtime = Extensions(host, notify, self._changed, timeout_s)
        self.runtime.show_message = functools.partial(_showing.show, self.runtime)
        self.dispatcher = Dispatcher(self.runtime, host.cwd)
        self.provider = ProviderHooks(self.dispatcher, route)
        self.reserved_tools: frozenset[str] = frozenset()
        self.reserved_commands: frozenset[str] = frozenset()
        self._tools: dict[str, ExtensionTool] = {}
        self._commands: dict[str, str] = {}  # command name -> extension
        self._ui: set[tuple[str, str]] = set()
        self.version = 0
        """Bumped whenever tools, commands, keys or UI of extensions changed (front ends)."""
        self.routed: dict[str, tuple[StreamFn, str]] = {}
        """Models requests were routed to by a handler (their clients are closed at the end)."""
        self._loading = False
        self.undo: list[Callable[[], None]] = []
        """What :meth:`detach` undoes of the weaving into the shell (set by the attach step)."""

    # ------------------------------------------------------------------ loading

    def load(self, sources: list[discovery.Source], fresh: bool = False) -> None:
        """Take ``sources`` in (cached ones are not imported, unless ``fresh``: ``/reload``);
        writes the cache when it changed."""
        cache = read_cache()
        cached = cache.get("extensions") if isinstance(cache.get("extensions"), dict) else {}
        self._loading = True  # woven once at the end, not once per extension
        try:
            for source in sources:
                entry = cached.get(source.label) if isinstance(cached, dict) and not fresh else None
                self.runtime.add(source, Manifest.parse(entry, source.stamp))
        finally:
            self._loading = False
        self._changed(None)
        self.save_manifests(cache)

    def save_manifests(self, cache: dict[str, Any] | None = None) -> None:
        """Write the live extensions' registrations to the cache (if any changed)."""
        if not self.runtime.manifests_changed:
            return
        cache = cache if cache is not None else read_cache()
        entries = cache.get("extensions")
        entries = dict(entries) if isinstance(entries, dict) else {}
        for ext in self.runtime:
            if ext.manifest is not None and ext.state == "live":
                entries[ext.source.label] = ext.manifest.wire()
            elif ext.state == "failed":
                entries.pop(ext.source.label, None)
        cache["extensions"] = entries
        write_cache(cache)
        self.runtime.manifests_changed = False

    @property
    def any(self) -> bool:
        """Any extension is cached or live."""
        return bool(self.runtime.usable())

    # ------------------------------------------------------------------ weaving in

    def _changed(self, ext: Extension | None) -> None:
        """An extension loaded, changed its registrations, or was disabled: re-weave it."""
        if self._loading:
            return
        self._weave_tools()
        self._weave_commands()
        self._weave_ui()
        self.version += 1

    def _weave_tools(self) -> None:
        tools: dict[str, ExtensionTool] = {}
        for ext in self.runtime.usable():
            specs = ext.registration.tools if ext.state == "live" else {}
            cached = ext.manifest.tools if ext.state == "cached" and ext.manifest else []
            for spec in specs.values():
                tools[spec.name] = ExtensionTool(ext.name, self._run_tool, spec=spec)
            for entry in cached:
                tools[str(entry["name"])] = ExtensionTool(ext.name, self._run_tool, cached=entry)
        for name in [n for n in tools if n in self.reserved_tools]:
            self.notify(
                f"Extension tool {name} is not added: pi has a tool of that name.", "warning"
            )
            del tools[name]
        self._tools = tools
        self.set_tools(list(tools.values()))

    def _weave_commands(self) -> None:
        for name in self._commands:
            self.commands.unregister(name)
        self._commands = {}
        for ext in self.runtime.usable():
            for command in self._command_specs(ext):
                name = str(command["name"])
                if name in self.reserved_commands or name in self._commands:
                    self.notify(f"Extension {ext.name}: /{name} is taken; not added.", "warning")
                    continue
                self._commands[name] = ext.name
                self.commands.register(
                    SlashCommand(
                        name,
                        str(command.get("description") or f"({ext.name})"),
                        self._command_handler(ext.name, name),
                        usage=str(command.get("usage") or ""),
                        source="extension",
                        while_running=bool(command.get("whileRunning")),
                        complete=self._completer(ext.name, name)
                        if command.get("completes")
                        else None,
                    )
                )

    @staticmethod
    def _command_specs(ext: Extension) -> list[dict[str, Any]]:
        if ext.state == "cached" and ext.manifest is not None:
            return ext.manifest.commands
        return [
            {"name": c.name, "description": c.description, "usage": c.usage,
             "whileRunning": c.while_running, "completes": c.complete is not None}
            for c in ext.registration.commands.values()
        ]  # fmt: skip

    def _weave_ui(self) -> None:
        wanted: dict[tuple[str, str], tuple[str | None, list[str] | None]] = {}
        for ext in self.runtime.usable():
            if ext.state == "cached" and ext.manifest is not None:
                for piece in ext.manifest.ui:
                    wanted[(str(piece["slot"]), str(piece["key"]))] = (
                        piece.get("text"),
                        piece.get("lines"),
                    )
            else:
                wanted.update(ext.registration.ui)
        dialogs = self.host.dialogs
        for slot, key in self._ui - set(wanted):
            dialogs.set_ui(slot, key)  # type: ignore[arg-type]
        for (slot, key), (text, lines) in wanted.items():
            dialogs.set_ui(slot, key, text, lines)  # type: ignore[arg-type]
        self._ui = set(wanted)

    # ------------------------------------------------------------------ tools

    async def _run_tool(
        self,
        tool: ExtensionTool,
        call_id: str,
        args: BaseModel,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None,
    ) -> Any:
        from agent_core import ToolError

        ext = self.runtime.items.get(tool.extension)
        if ext is None or not await self.runtime.ensure(ext):
            raise ToolError(
                f"Extension {tool.extension} is not available ({ext.problem if ext else 'gone'})"
            )
        spec = ext.registration.tools.get(tool.name)
        if spec is None:
            raise ToolError(f"Extension {ext.name} no longer has a tool {tool.name}")
        real = validated(spec, args)
        try:
            return await self.runtime.call(ext, f"tool {tool.name}", spec.execute, real)
        except CallFailed as exc:
            raise ToolError(f"Extension {ext.name} failed: {ext.problem}") from exc

    # ------------------------------------------------------------------ commands

    def _command_handler(self, extension: str, name: str) -> Any:
        async def handler(shell: Any, args: str) -> CommandResult:
            ext = self.runtime.items.get(extension)
            if ext is None or not await self.runtime.ensure(ext):
                return CommandResult(output=f"Extension {extension} is not available.", error=True)
            spec = ext.registration.commands.get(name)
            if spec is None:
                return CommandResult(
                    output=f"Extension {extension} has no /{name} now.", error=True
                )
            try:
                result = await self.runtime.call(ext, f"/{name}", spec.handler, args)
            except CallFailed:
                return CommandResult(output=f"/{name} failed: {ext.problem}", error=True)
            return CommandResult(output=clean(str(result)) if result is not None else None)

        return handler

    def _completer(self, extension: str, name: str) -> Callable[[str], list[tuple[str, str]]]:
        def complete(typed: str) -> list[tuple[str, str]]:
            return self.complete(extension, name, typed)

        return complete

    def complete(self, extension: str, name: str, typed: str) -> list[tuple[str, str]]:
        """Candidates for ``/name``'s argument (waits briefly; ``[]`` while the extension
        loads or when its completer fails or is slow)."""
        ext = self.runtime.items.get(extension)
        if ext is None or not ext.usable:
            return []
        if ext.state == "cached":
            self.dispatcher._fire_later(self.runtime.ensure(ext))  # ready for the next key
            return []
        spec = ext.registration.commands.get(name)
        if spec is None or spec.complete is None:
            return []
        future = ext.worker.run(spec.complete, typed)
        try:
            found = future.result(COMPLETION_WAIT_S)
        except concurrent.futures.TimeoutError:
            future.cancel()
            return []
        except Exception as exc:  # noqa: BLE001 - a completer's bug: said once, no candidates
            self.runtime.fail(ext, f"completing /{name} raised {type(exc).__name__}: {exc}")
            return []
        return candidates(found)

    def command_origins(self) -> dict[str, tuple[str, str]]:
        """Each extension command's name -> (its extension's file or entry point, its origin:
        ``user``, ``project``, ``setting`` or ``package``)."""
        found: dict[str, tuple[str, str]] = {}
        for name, owner in self._commands.items():
            ext = self.runtime.items.get(owner)
            if ext is not None:
                source = ext.source
                found[name] = (
                    str(source.path) if source.path else str(source.entry),
                    source.origin,
                )
        return found

    # ------------------------------------------------------------------ keys

    def keys(self) -> list[ExtensionKey]:
        """The key bindings of the usable extensions (ids ``<extension>.<name>``), with the
        user's keys from ``$PI_HOME/keybindings.json`` where they remapped one."""
        overrides = user_keys()
        return [
            ExtensionKey(k.id, overrides.get(k.id, k.keys), k.description, k.extension)
            for k in self._registered_keys()
        ]

    def _registered_keys(self) -> list[ExtensionKey]:
        found: list[ExtensionKey] = []
        for ext in self.runtime.usable():
            if ext.state == "cached" and ext.manifest is not None:
                found.extend(
                    ExtensionKey(
                        str(k["id"]), str(k["keys"]), str(k.get("description") or ""), ext.name
                    )
                    for k in ext.manifest.keys
                )
            else:
                found.extend(
                    ExtensionKey(k.id, k.keys, k.description, ext.name)
                    for k in ext.registration.keys.values()
                )
        return found

    async def run_key(self, key_id: str) -> None:
        """Run the handler of the binding ``key_id`` (loading its extension first)."""
        from pi_cli.shell.extensions.api import KeyEvent

        owner = next((k.extension for k in self.keys() if k.id == key_id), None)
        ext = self.runtime.items.get(owner) if owner else None
        if ext is None or not await self.runtime.ensure(ext):
            return
        spec = ext.registration.keys.get(key_id)
        if spec is not None:
            try:
                await self.runtime.call(ext, f"key {key_id}", spec.handler, KeyEvent(key_id))
            except CallFailed:
                pass

    def start_key(self, key_id: str) -> None:
        """:meth:`run_key` as a task (from a front end's key handler)."""
        self.dispatcher._fire_later(self.run_key(key_id))

    # ------------------------------------------------------------------ the end

    def begin(self) -> None:
        """A front end attached on its loop: tell ``session_start`` handlers now."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: the first input starts them
        self.dispatcher._fire_later(self.dispatcher.start())

    async def aclose(self, reason: Literal["exit", "reload"] = "exit") -> None:
        """``session_shutdown`` to the live extensions, stop their threads, close the clients of
        models requests were routed to."""
        from pi_cli.shell.models.setup import aclose_stream_fn

        await self.runtime.aclose(reason)
        for stream_fn, _ in self.routed.values():
            await aclose_stream_fn(stream_fn)
        self.routed.clear()

    async def detach(self) -> None:
        """Take every extension out of the shell (``/reload`` brings fresh ones): told
        ``session_shutdown`` (reason ``reload``), their tools, commands, keys and UI removed,
        their threads stopped, their modules forgotten."""
        from pi_cli.shell.extensions import loader

        await self.aclose("reload")
        for ext in self.runtime:
            ext.state = "disabled"
            loader.forget(ext.source)
        self._changed(None)
        for undo in reversed(self.undo):
            undo()
        self.undo.clear()
