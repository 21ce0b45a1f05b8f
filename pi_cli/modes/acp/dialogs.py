"""Dialogs over ACP, where the protocol can carry them: ``session/request_permission``.

ACP's one question to the user is a permission request (a few named options about a tool call).
So a ``confirm`` becomes Yes / No, and a ``select`` becomes one option per choice, on a pseudo
tool call titled with the question: the user picks one (a multiple choice is answered with one
option; an answer of the user's own cannot be typed there, so one of the options it is, or the
request is rejected: ``ask_user``'s questions go this way). What ACP cannot ask at all (free
text, a select without options) is cancelled at once, with a line in the agent's thoughts
saying so: the asker gets "no answer" instead of waiting for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from pi_cli.modes.acp.sdk import helpers, schema
from pi_cli.shell import DialogAnswer, DialogRequested, redact

if TYPE_CHECKING:
    from pi_cli.shell import FrontShell


def can_ask(request: DialogRequested) -> bool:
    """Whether ACP's permission request can carry ``request``."""
    if request.kind == "confirm":
        return True
    return request.kind == "select" and bool(request.options)


def permission_options(request: DialogRequested) -> list[schema.PermissionOption]:
    """The options the client shows: Yes / No, or one per choice (ids are indexes)."""
    if request.kind == "confirm":
        return [
            schema.PermissionOption(option_id="yes", name="Yes", kind="allow_once"),
            schema.PermissionOption(option_id="no", name="No", kind="reject_once"),
        ]
    return [
        schema.PermissionOption(option_id=str(i), name=redact(o.label), kind="allow_once")
        for i, o in enumerate(request.options)
    ]


def answer_of(request: DialogRequested, option_id: str | None) -> DialogAnswer:
    """The dialog's answer for the option the client chose (``None``: cancelled)."""
    if option_id is None:
        return DialogAnswer(cancelled=True)
    if request.kind == "confirm":
        return DialogAnswer(confirmed=option_id == "yes")
    if option_id.isdigit() and int(option_id) < len(request.options):
        return DialogAnswer(values=(request.options[int(option_id)].label,))
    return DialogAnswer(cancelled=True)


async def ask(conn: Any, session_id: str, shell: FrontShell, request: DialogRequested) -> None:
    """Ask ``request`` through ``conn`` and answer it in ``shell`` (cancelled on any failure)."""
    title = request.title if not request.message else f"{request.title} — {request.message}"
    call = helpers.update_tool_call(f"pi-{request.id}", title=redact(title), status="pending")
    option_id: str | None = None
    try:
        response = await conn.request_permission(
            session_id=session_id, tool_call=call, options=permission_options(request)
        )
        option_id = getattr(response.outcome, "option_id", None)
    except asyncio.CancelledError:
        raise
    except Exception:  # noqa: BLE001 - a client that cannot answer: no answer
        option_id = None
    with contextlib.suppress(ValueError):
        shell.answer(request.id, answer_of(request, option_id))
