"""Approvals over RPC with pi's extension UI sub-protocol.

When a tool call needs approval, pi writes (besides the ``permission_requested`` event)::

    {"type": "extension_ui_request", "id": "perm-1", "method": "select",
     "title": "Allow bash: $ rm -rf build?", "message": "<why, and what will happen>",
     "options": ["Allow once", "Allow for this session", "Always (project settings)",
                 "Always (user settings)", "Deny"],
     "timeout": 120000, "toolName": "bash", "toolCallId": "...", "args": {...}}

and the client answers with ``{"type": "extension_ui_response", "id": "perm-1", "value":
"Allow once"}`` (an option label, or a choice id: ``allow_once``, ``allow_session``,
``allow_always``, ``deny``; ``"scope": "project"|"user"`` and ``"message"`` for a denial reason
are accepted too), ``{"confirmed": true|false}`` (allow once / deny), or ``{"cancelled": true}``
(deny). No answer within ``permissions.approvalTimeoutS`` (default 120 s) denies; an ``abort``
cancels. A ``permission_resolved`` event says how each request ended. No response line follows a
valid ``extension_ui_response`` (as in pi); a malformed one gets an error response.

Dialogs (an extension's or a tool's questions) and extension UI use the same sub-protocol
(:mod:`.dialogs`): their requests go out here too, and their answers come back through the same
``extension_ui_response`` command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pi_cli.modes.rpc.base import Deferred, Handler, RpcContext, RpcError
from pi_cli.modes.rpc.dialogs import dialog_answer, dialog_line, notify_line, ui_line
from pi_cli.shell import (
    DialogRequested,
    DialogResolved,
    Notice,
    PermissionRequested,
    PermissionResolved,
    ShellEvent,
    UiChanged,
)

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent

LABELS = {
    "allow_once": "Allow once",
    "allow_session": "Allow for this session",
    "deny": "Deny",
}
ALWAYS = {"project": "Always (project settings)", "user": "Always (user settings)"}
_BY_LABEL: dict[str, dict[str, str]] = {
    **{label.lower(): {"choice": choice} for choice, label in LABELS.items()},
    **{label.lower(): {"choice": "allow_always", "scope": s} for s, label in ALWAYS.items()},
}


def request_line(request: PermissionRequested, timeout_s: float | None) -> dict[str, Any]:
    """The ``extension_ui_request`` for one approval (a request's own labels replace ours)."""
    options: list[str] = []
    words = request.labels or {}
    for choice in request.options:
        if choice in words:
            options.append(words[choice])
        elif choice == "allow_always":
            options.extend(ALWAYS.values())
        else:
            options.append(LABELS[choice])
    message = request.reason
    if request.preview:
        message += "\n\n" + request.preview
    line: dict[str, Any] = {
        "type": "extension_ui_request",
        "id": request.id,
        "method": "select",
        "title": request.question or f"Allow {request.tool_name}: {request.title}?",
        "message": message,
        "options": options,
        "toolName": request.tool_name,
        "toolCallId": request.tool_call_id,
        "args": request.args,
        "rules": request.rules,
    }
    if timeout_s is not None:
        line["timeout"] = int(timeout_s * 1000)
    return line


def parse_response(
    command: dict[str, Any], own_labels: dict[str, str] | None = None
) -> dict[str, str]:
    """An ``extension_ui_response`` as a shell answer (raises ValueError when unclear).

    ``own_labels`` are the request's own words for its options (choice -> label)."""
    if command.get("cancelled") is True:
        return {"choice": "deny", "message": str(command.get("message") or "")}
    if isinstance(command.get("confirmed"), bool):
        return {"choice": "allow_once" if command["confirmed"] else "deny"}
    value = command.get("value")
    if not isinstance(value, str):
        raise ValueError('"value" (an option), "confirmed" or "cancelled" is required')
    by_own = {label.lower(): {"choice": c} for c, label in (own_labels or {}).items()}
    key = value.strip().lower()
    answer = dict(by_own.get(key) or _BY_LABEL.get(key, {"choice": value.strip()}))
    if isinstance(command.get("scope"), str):
        answer["scope"] = command["scope"]
    if isinstance(command.get("message"), str):
        answer["message"] = command["message"]
    return answer


class RpcApprovals:
    """Writes approval, dialog and extension UI requests and routes the answers to the shell."""

    def __init__(self, shell: CodingAgent, write: Callable[[dict[str, Any]], None]) -> None:
        self.shell = shell
        self.write = write
        self.labels: dict[str, dict[str, str]] = {}  # request id -> its own option labels
        self.decided: dict[str, str] = {}  # request id -> how it ended (the newest 64)

    def on_event(self, event: ShellEvent) -> None:
        """Shell listener: an ``extension_ui_request`` for each approval, dialog and piece of
        extension UI."""
        if isinstance(event, DialogRequested):
            self.write(dialog_line(event))
        elif isinstance(event, UiChanged):
            self.write(ui_line(event))
        elif isinstance(event, Notice) and event.source:
            self.write(notify_line(event))
        elif isinstance(event, PermissionRequested):
            timeout = self.shell.permissions.approval_timeout_s
            if event.labels:
                self.labels[event.id] = dict(event.labels)
            self.write(request_line(event, timeout))
        elif isinstance(event, PermissionResolved):
            self.labels.pop(event.id, None)
            if event.id not in self.decided:
                self._decided(event.id, _how_decided(event))
        elif isinstance(event, DialogResolved) and event.id not in self.decided:
            self._decided(event.id, "answered" if event.by == "user" else f"ended ({event.by})")

    def _decided(self, request_id: str, how: str) -> None:
        """Remember how a request ended, to tell a client whose answer came too late (several
        clients of one ``pi serve`` session race to answer: the first one wins)."""
        self.decided[request_id] = how
        while len(self.decided) > 64:
            del self.decided[next(iter(self.decided))]

    def handle(self, command: dict[str, Any]) -> str | None:
        """Answer the request ``command`` names; an error text when that fails."""
        request_id = command.get("id")
        if not isinstance(request_id, str):
            return '"id" (the request\'s id) is required'
        try:
            if self.shell.dialogs.knows(request_id):
                answered, how = self.shell.answer(request_id, dialog_answer(command)), "answered"
            else:
                labels = self.labels.get(request_id) or {}
                answer = parse_response(command, labels)
                answered = self.shell.answer(request_id, answer)
                choice = answer.get("choice", "")
                word = labels.get(choice) or LABELS.get(choice) or choice
                how = f"answered ({word})"
        except ValueError as exc:
            return str(exc)
        if answered:  # said now: a rival answer may come before the resolution's event
            self._decided(request_id, how)
            return None
        earlier = self.decided.get(request_id)
        if earlier is None:
            return f"No pending request {request_id!r}"
        return (
            f"No pending request {request_id!r}: it was {earlier} first; this answer was not used"
        )


def _how_decided(event: PermissionResolved) -> str:
    """How an approval ended, in words (``answered: Allow once``, ``ended (timeout)``)."""
    if event.by != "user":
        return f"ended ({event.by})"
    label = LABELS.get(event.choice or "", "allowed" if event.allowed else "denied")
    return f"answered ({label})"


def approval_commands(ctx: RpcContext) -> Mapping[str, Handler]:
    """The approval sub-protocol as an RPC command group: answers in (the requests go out
    through the shell's :class:`~pi_cli.modes.rpc.output.RpcOutput`)."""

    async def response(command: dict[str, Any]) -> Any:
        problem = ctx.approvals.handle(command)
        if problem is not None:
            raise RpcError(problem)
        raise Deferred  # an answer, not a command: no response line (as in pi)

    return {"extension_ui_response": response}
