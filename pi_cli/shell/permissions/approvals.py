"""Asking the user: a :class:`PermissionRequested` event out, an answer back in.

The broker knows no front end. It emits the request, waits for ``answer(id, ...)`` (one
question at a time, so a parallel batch is asked in source order), and resolves it as denied
when nobody can ask (one-shot and JSON mode), when a remote client (RPC) does not answer
within ``permissions.approvalTimeoutS``, or when the run is aborted.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Mapping
from typing import Literal, NamedTuple

from pi_cli.shell.events import (
    ApprovalChoice,
    PermissionRequested,
    PermissionResolved,
    ShellEvent,
)

Asking = Literal["none", "interactive", "remote"]
"""Who can answer: nobody (one-shot, JSON), a person at this terminal, a remote client (RPC)."""
_CHOICES: tuple[ApprovalChoice, ...] = ("allow_once", "allow_session", "allow_always", "deny")


class ApprovalAnswer(NamedTuple):
    """A front end's answer.

    Attributes:
        choice: allow once, allow for this session, always (saved as a rule), or deny.
        scope: where "always" saves the rule: the ``project`` or the ``user`` settings.
        message: for a denial, what the model is told besides "denied by the user".
    """

    choice: ApprovalChoice
    scope: Literal["project", "user"] = "user"
    message: str = ""

    @property
    def allowed(self) -> bool:
        """Whether the call may run."""
        return self.choice != "deny"

    @classmethod
    def parse(cls, value: object) -> ApprovalAnswer:
        """From a choice name or a ``{"choice", "scope", "message"}`` mapping (RPC, tests)."""
        if isinstance(value, ApprovalAnswer):
            return value
        if isinstance(value, str):
            value = {"choice": value}
        if not isinstance(value, Mapping) or value.get("choice") not in _CHOICES:
            raise ValueError(f"an answer is one of {', '.join(_CHOICES)}")
        scope: Literal["project", "user"] = "project" if value.get("scope") == "project" else "user"
        return cls(value["choice"], scope, str(value.get("message") or ""))


class Outcome(NamedTuple):
    """How a request ended: the answer, or why it was denied without one."""

    answer: ApprovalAnswer | None
    by: Literal["user", "timeout", "aborted", "non_interactive"]


class ApprovalBroker:
    """Pending approvals of one shell.

    Args:
        emit: sends events to the front ends.
        asking: who can answer.
        timeout_s: how long a remote client may take (``None``: wait for ever).
    """

    def __init__(
        self,
        emit: Callable[[ShellEvent], None],
        asking: Asking = "none",
        timeout_s: float | None = 120.0,
    ) -> None:
        self.emit = emit
        self.asking: Asking = asking
        self.timeout_s = timeout_s
        self._pending: dict[str, asyncio.Future[ApprovalAnswer]] = {}
        self._requests: dict[str, PermissionRequested] = {}
        self._lock: asyncio.Lock | None = None
        self._ids = itertools.count(1)

    def new_id(self) -> str:
        """A fresh request id."""
        return f"perm-{next(self._ids)}"

    @property
    def pending(self) -> list[PermissionRequested]:
        """Requests waiting for an answer (at most one is shown at a time)."""
        return [self._requests[key] for key in self._pending if key in self._requests]

    async def ask(self, request: PermissionRequested) -> Outcome:
        """Emit ``request`` and wait for its answer (see the module doc for the denials)."""
        if self.asking == "none":
            self.emit(request)
            self._resolved(request, None, "non_interactive")
            return Outcome(None, "non_interactive")
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            future: asyncio.Future[ApprovalAnswer] = asyncio.get_running_loop().create_future()
            self._pending[request.id] = future
            self._requests[request.id] = request
            try:
                self.emit(request)
                timeout = self.timeout_s if self.asking == "remote" else None
                try:
                    answer = await asyncio.wait_for(asyncio.shield(future), timeout)
                except TimeoutError:
                    self._resolved(request, None, "timeout")
                    return Outcome(None, "timeout")
                except asyncio.CancelledError:
                    self._resolved(request, None, "aborted")
                    raise
            finally:
                self._pending.pop(request.id, None)
                self._requests.pop(request.id, None)
                if not future.done():
                    future.cancel()
            self._resolved(request, answer, "user")
            return Outcome(answer, "user")

    def answer(self, request_id: str, answer: object) -> bool:
        """Answer a pending request; False if it is unknown or already answered."""
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        parsed = ApprovalAnswer.parse(answer)
        request = self._requests.get(request_id)
        if request is not None and parsed.choice not in request.options:
            raise ValueError(f"{parsed.choice} is not offered for this request")
        future.set_result(parsed)
        return True

    def _resolved(
        self,
        request: PermissionRequested,
        answer: ApprovalAnswer | None,
        by: Literal["user", "timeout", "aborted", "non_interactive"],
    ) -> None:
        self.emit(
            PermissionResolved(
                id=request.id,
                allowed=answer is not None and answer.allowed,
                by=by,
                choice=answer.choice if answer is not None else None,
                message=answer.message if answer is not None else "",
                tool_name=request.tool_name,
                title=request.title,
            )
        )
