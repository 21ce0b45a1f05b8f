"""RPC queue commands (ours, not pi's): the shell's input queue as data.

``get_queue`` lists it (``{id, text, kind}``, kind ``steer``, ``follow_up`` or ``held``),
``edit_queued`` / ``remove_queued`` / ``move_queued`` / ``promote_queued`` change one item by
``itemId``, ``take_queued`` empties it; each change is also a ``queue_changed`` event.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_cli.modes.rpc.base import Handler, RpcContext, RpcError, text_arg
from pi_cli.modes.rpc.views import queue_of


def queue_commands(rpc: RpcContext) -> Mapping[str, Handler]:
    """The queue group."""
    shell = rpc.shell

    def current() -> dict[str, Any]:
        return queue_of(shell.queued())

    async def get_queue(command: dict[str, Any]) -> Any:
        return current()

    async def edit_queued(command: dict[str, Any]) -> Any:
        shell.queue.edit(text_arg(command, "itemId"), text_arg(command, "text"))
        return current()

    async def remove_queued(command: dict[str, Any]) -> Any:
        shell.queue.remove(text_arg(command, "itemId"))
        return current()

    async def move_queued(command: dict[str, Any]) -> Any:
        index = command.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise RpcError('"index" (an integer) is required')
        shell.queue.move(text_arg(command, "itemId"), index)
        return current()

    async def promote_queued(command: dict[str, Any]) -> Any:
        shell.queue.promote(text_arg(command, "itemId"))
        return current()

    async def take_queued(command: dict[str, Any]) -> Any:
        return queue_of(shell.take_queued())

    return {
        "get_queue": get_queue,
        "edit_queued": edit_queued,
        "remove_queued": remove_queued,
        "move_queued": move_queued,
        "promote_queued": promote_queued,
        "take_queued": take_queued,
    }
