"""What RPC command modules are written against: the server as a narrow protocol, errors, and
argument readers. A command group is a function ``(RpcContext) -> {command name: handler}``;
:data:`pi_cli.modes.rpc.connection.COMMAND_GROUPS` lists the groups (add yours there, and a
model per command in :mod:`pi_cli.modes.rpc.schema`).

A handler takes the command object and returns the response's ``data`` (``None``: a response
without data; :data:`JSON_NULL`: ``"data": null``), raises :class:`RpcError` for a failure
response, or :class:`Deferred` when it answers later itself (or never, for messages that are
answers rather than commands).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

from agent_core import ImageContent

if TYPE_CHECKING:
    import asyncio

    from pi_cli.shell import CodingAgent, CommandResult, ShellEvent

Handler = Callable[[dict[str, Any]], Awaitable[Any]]
JSON_NULL = object()
"""Returned by a handler whose response carries ``"data": null`` (pi's "nothing to cycle")."""


class RpcError(Exception):
    """A command failed; the message goes into the error response."""


class Deferred(Exception):  # control flow, not an error
    """Raised by a handler that answers later (a task) or not at all."""


class Approvals(Protocol):
    """Where answers to approval requests go (:class:`~pi_cli.modes.rpc.ui.RpcApprovals`)."""

    def handle(self, command: dict[str, Any]) -> str | None:
        """Answer the request ``command`` names; an error text when that fails."""
        ...


class RpcContext(Protocol):
    """The server as command handlers see it."""

    @property
    def shell(self) -> CodingAgent: ...

    @property
    def approvals(self) -> Approvals:
        """The shell's approval requests, which answers are routed through."""
        ...

    def publish(self, event: ShellEvent) -> None:
        """Send an event every client sees (a command's output)."""
        ...

    def respond(
        self, command: str, request_id: Any, *, data: Any = None, error: str | None = None
    ) -> None:
        """Write one response line."""
        ...

    def write(self, payload: dict[str, Any]) -> None:
        """Write any JSON line (e.g. a request of a sub-protocol)."""
        ...

    def spawn(self, command: dict[str, Any], work: Coroutine[Any, Any, Any]) -> NoReturn:
        """Run ``work`` as a task that answers ``command`` with its result, and raise
        :class:`Deferred` (other commands are served meanwhile)."""
        ...

    def track(self, future: asyncio.Future[CommandResult | None]) -> None:
        """Report what a submitted input produced (command output, a failure) when done."""
        ...

    async def settle(self) -> None:
        """Let what is finishing (compaction after a run, a command) end; a live run is not."""
        ...


CommandGroup = Callable[[RpcContext], Mapping[str, Handler]]


def text_arg(command: dict[str, Any], key: str = "message") -> str:
    """A required string field (a lone surrogate is replaced: it is no text)."""
    value = command.get(key)
    if not isinstance(value, str):
        raise RpcError(f'"{key}" (a string) is required')
    return value.encode("utf-8", "replace").decode("utf-8")


def bool_arg(command: dict[str, Any], key: str = "enabled") -> bool:
    """A required boolean field."""
    value = command.get(key)
    if not isinstance(value, bool):
        raise RpcError(f'"{key}" (true or false) is required')
    return value


def choice_arg(command: dict[str, Any], key: str, choices: tuple[str, ...]) -> str:
    """A required field with one of ``choices``."""
    value = command.get(key)
    if value not in choices:
        raise RpcError(f'"{key}" must be one of {", ".join(choices)}')
    return str(value)


def images_arg(command: dict[str, Any]) -> list[ImageContent] | None:
    """pi's ``images``: ``[{"type": "image", "data": base64, "mimeType": "image/..."}]``."""
    raw = command.get("images")
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise RpcError('"images" must be a list of {"type": "image", "data", "mimeType"}')
    images: list[ImageContent] = []
    for index, item in enumerate(raw):
        where = f"images[{index}]"
        if not isinstance(item, dict) or item.get("type", "image") != "image":
            raise RpcError(f'{where} must be {{"type": "image", "data", "mimeType"}}')
        data, mime = item.get("data"), item.get("mimeType")
        if not isinstance(mime, str) or not mime.startswith("image/"):
            raise RpcError(f'{where}: "mimeType" must be an image type such as image/png')
        if not isinstance(data, str) or not data:
            raise RpcError(f'{where}: "data" (base64) is required')
        try:
            base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise RpcError(f'{where}: "data" is not valid base64') from None
        images.append(ImageContent(data=data, mime_type=mime))
    return images
