"""RPC prompting: ``prompt`` (with ``images`` and ``streamingBehavior``), ``steer``,
``follow_up``, ``abort``, and the user's own commands ``bash`` / ``abort_bash``.

What text becomes while pi is busy is the shell's decision (``shell.submit``): a steer or
follow-up for a live run, or a held input replayed afterwards. As in pi, a ``prompt`` while
busy must say which with ``streamingBehavior``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pi_cli.modes.rpc.base import Handler, RpcContext, RpcError, images_arg, text_arg
from pi_cli.shell import CommandResult, Intent, UserBashError

BUSY = (
    "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue "
    "the message."
)


def prompting_commands(rpc: RpcContext) -> Mapping[str, Handler]:
    """The prompting group."""

    def submit(command: dict[str, Any], intent: Intent) -> None:
        future = rpc.shell.submit(text_arg(command), intent, images_arg(command))
        if future.done() and not future.cancelled() and future.exception() is None:
            result = future.result()
            if isinstance(result, CommandResult) and result.error:
                raise RpcError(result.output or "the command failed")  # refused while busy
        rpc.track(future)

    async def prompt(command: dict[str, Any]) -> Any:
        behaviour = command.get("streamingBehavior")
        if behaviour not in (None, "steer", "followUp"):
            raise RpcError('"streamingBehavior" must be "steer" or "followUp"')
        intent: Intent = "auto"
        if behaviour is not None:
            intent = "steer" if behaviour == "steer" else "follow_up"
        elif rpc.shell.streaming:
            # Like pi: only a live (or starting) model run needs to be told. A prompt arriving
            # while the shell finishes a run (compaction after agent_end) is held and sent next.
            raise RpcError(BUSY)
        submit(command, intent)

    async def steer(command: dict[str, Any]) -> Any:
        submit(command, "steer")

    async def follow_up(command: dict[str, Any]) -> Any:
        submit(command, "follow_up")

    async def abort(command: dict[str, Any]) -> Any:
        rpc.shell.abort()

    async def bash(command: dict[str, Any]) -> Any:
        line = text_arg(command, "command")
        include = command.get("includeInContext", True) is not False  # ours: pi's !! form

        async def run() -> Any:
            try:
                result = await rpc.shell.run_user_bash(line, include_in_context=include)
            except UserBashError as exc:
                raise RpcError(str(exc)) from None
            return result.wire()

        rpc.spawn(command, run())

    async def abort_bash(command: dict[str, Any]) -> Any:
        rpc.shell.user_bash.abort()

    return {
        "prompt": prompt,
        "steer": steer,
        "follow_up": follow_up,
        "abort": abort,
        "bash": bash,
        "abort_bash": abort_bash,
    }
