"""Small real ``Tool`` implementations for agent_core tests (arguments as records, like the
built-in tools'; the pydantic path of extensions and MCP is tested where those are)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from msgspec import Meta

from agent_core import AbortSignal, ToolArguments, ToolBase, ToolError, ToolResult
from agent_core.tool import OnToolUpdate


class EchoArgs(ToolArguments):
    """Arguments of :class:`EchoTool`."""

    text: Annotated[str, Meta(description="Text to echo back")]
    times: Annotated[int, Meta(description="How many times")] = 1


class EchoTool(ToolBase):
    """Returns its text argument (``times`` times); records every call."""

    name = "echo"
    description = "Echo text back."
    parameters = EchoArgs

    def __init__(self, name: str = "echo") -> None:
        self.name = name
        self.calls: list[EchoArgs] = []

    async def execute(
        self,
        tool_call_id: str,
        args: EchoArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Echo ``args.text``."""
        self.calls.append(args)
        return ToolResult.of_text(args.text * args.times, details={"id": tool_call_id})


class EmptyArgs(ToolArguments):
    """No arguments."""


class PathArgs(ToolArguments):
    """A ``path`` argument (like the real read tool)."""

    path: str


class CommandArgs(ToolArguments):
    """A ``command`` argument (like the real bash tool)."""

    command: str


class StaticTool(ToolBase):
    """Answers from a dict keyed by its single argument's value; records the arguments."""

    description = "Static answers."

    def __init__(self, name: str, parameters: type[ToolArguments], answers: dict[str, str]) -> None:
        self.name = name
        self.parameters = parameters
        self.answers = answers
        self.seen: list[Any] = []

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Return the canned answer for the argument value."""
        (value,) = args.model_dump().values()
        self.seen.append(value)
        if value not in self.answers:
            raise ToolError(f"no such entry: {value}")
        return ToolResult.of_text(self.answers[value])


class SlowTool(ToolBase):
    """Waits until cancelled (or ``release`` is set); records start and cancellation."""

    name = "slow"
    description = "Wait."
    parameters = EmptyArgs

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = False

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Block until released; note a cancellation."""
        self.started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ToolResult.of_text("released")


class FailingTool(ToolBase):
    """Raises ``ToolError`` (clean message) or a generic exception."""

    description = "Fail."
    parameters = EmptyArgs

    def __init__(self, name: str = "fail", exc: Exception | None = None) -> None:
        self.name = name
        self.exc = exc or ToolError("disk is on fire")

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Raise the configured exception."""
        raise self.exc


class TerminateTool(ToolBase):
    """Returns a result asking the loop to stop after this batch."""

    name = "done"
    description = "Finish the run."
    parameters = EmptyArgs

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Return ``terminate=True``."""
        return ToolResult.of_text("finished", terminate=True)


class ProgressTool(ToolBase):
    """Reports accumulated partial results through ``on_update`` before returning."""

    name = "progress"
    description = "Stream progress."
    parameters = EmptyArgs

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Emit two updates (``a``, ``ab``) then return ``abc``."""
        assert on_update is not None
        on_update(ToolResult.of_text("a"))
        await asyncio.sleep(0)
        on_update(ToolResult.of_text("ab", details={"lines": 2}))
        return ToolResult.of_text("abc")


class RendezvousTool(ToolBase):
    """Sets its own event, then waits for ``partner``'s event: finishes only if run concurrently."""

    parameters = EmptyArgs
    description = "Meet a partner."

    def __init__(self, name: str, delay_after_meet: float = 0.0) -> None:
        self.name = name
        self.arrived = asyncio.Event()
        self.partner: RendezvousTool | None = None
        self.delay_after_meet = delay_after_meet
        self.timeout = 1.0
        self.finish_order: list[str] | None = None

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Meet the partner (``timeout``: a sequential run fails instead of hanging)."""
        assert self.partner is not None
        self.arrived.set()
        try:
            await asyncio.wait_for(self.partner.arrived.wait(), timeout=self.timeout)
        except TimeoutError as exc:
            raise ToolError(f"{self.name}: partner never arrived (not run concurrently)") from exc
        for _ in range(int(self.delay_after_meet)):
            await asyncio.sleep(0)
        if self.finish_order is not None:
            self.finish_order.append(self.name)
        return ToolResult.of_text(f"{self.name} met {self.partner.name}")


def rendezvous_pair(first_yields: int = 5) -> tuple[RendezvousTool, RendezvousTool, list[str]]:
    """Two partnered tools; the first finishes ``first_yields`` loop iterations after the second."""
    a = RendezvousTool("meet_a", delay_after_meet=first_yields)
    b = RendezvousTool("meet_b")
    a.partner, b.partner = b, a
    order: list[str] = []
    a.finish_order = b.finish_order = order
    return a, b, order
