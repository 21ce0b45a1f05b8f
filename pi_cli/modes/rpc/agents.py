"""RPC commands of background sub-agents (ours, not pi's).

``get_agents`` lists them (``{agents: [info]}``, the shape of the ``background_agent`` event's
``agent``); ``get_agent`` gives one with its thread (``{agent, messages}``); ``steer_agent``
sends a running one a message for its next turn; ``abort_agent`` stops one. A
``background_agent`` event follows every change of one (start, turn, tool call, usage, end).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_core import to_wire
from pi_cli.modes.rpc.base import Handler, RpcContext, RpcError, text_arg
from pi_cli.shell import AgentError


def agent_commands(rpc: RpcContext) -> Mapping[str, Handler]:
    """The background agents group."""
    background = rpc.shell.agent_tools.background

    async def get_agents(command: dict[str, Any]) -> Any:
        return {"agents": [to_wire(info) for info in background.infos()]}

    def child(command: dict[str, Any]) -> Any:
        try:
            return background.get(text_arg(command, "agentId"))
        except AgentError as exc:
            raise RpcError(str(exc)) from None

    async def get_agent(command: dict[str, Any]) -> Any:
        found = child(command)
        return {
            "agent": to_wire(found.info),
            "messages": [to_wire(message) for message in found.transcript()],
        }

    async def steer_agent(command: dict[str, Any]) -> Any:
        found = child(command)
        try:
            background.send(found.info.id, text_arg(command, "message"))
        except AgentError as exc:
            raise RpcError(str(exc)) from None
        return {"agent": to_wire(found.info)}

    async def abort_agent(command: dict[str, Any]) -> Any:
        found = child(command)
        try:
            background.abort(found.info.id)
        except AgentError as exc:
            raise RpcError(str(exc)) from None
        return {"agent": to_wire(found.info)}

    return {
        "get_agents": get_agents,
        "get_agent": get_agent,
        "steer_agent": steer_agent,
        "abort_agent": abort_agent,
    }
