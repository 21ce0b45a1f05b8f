"""RPC commands of background sub-agents (``task`` with ``background: true``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pi_cli.modes.rpc.schema.base import Command


class GetAgents(Command):
    """List the session's background sub-agents (running and ended)."""

    type: Literal["get_agents"]


class GetAgent(Command):
    """One background sub-agent with its whole thread (its messages)."""

    type: Literal["get_agent"]
    agent_id: str = Field(description="Its id (a1, a2...).")


class SteerAgent(Command):
    """Send a running background sub-agent a message for its next turn."""

    type: Literal["steer_agent"]
    agent_id: str
    message: str


class AbortAgent(Command):
    """Stop a running background sub-agent (its parent is told)."""

    type: Literal["abort_agent"]
    agent_id: str


AGENT_COMMANDS = (GetAgents, GetAgent, SteerAgent, AbortAgent)
