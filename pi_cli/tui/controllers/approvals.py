"""Opening and answering the approval modal and the folder-trust question for the app.

The app only routes messages here: the shell decided that a question is needed, the modal
shows it, and its answer goes back with ``shell.answer``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from textual.app import App

from pi_cli.tui.screens.approval import Approval, ApprovalScreen, TrustScreen, Verdict

if TYPE_CHECKING:
    from pi_cli.shell import TrustCheck
    from pi_cli.tui.messages import ApprovalClosed, ApprovalRequested

Answer = Callable[[str, Mapping[str, object] | str], bool]
PiApp = App[Any]


def route(app: PiApp, message: ApprovalRequested | ApprovalClosed, answer: Answer | None) -> None:
    """Open the modal for a request, or close the one of a request decided elsewhere."""
    from pi_cli.tui.messages import ApprovalClosed

    if isinstance(message, ApprovalClosed):
        close_approval(app, message.request_id)
    elif answer is not None:
        open_approval(app, message, answer)


def open_approval(app: PiApp, message: ApprovalRequested, answer: Answer) -> None:
    """Show the modal for one request; its answer goes to the shell (``answer``)."""
    approval = Approval(
        message.request_id,
        message.tool_name,
        message.title,
        message.reason,
        message.preview,
        list(message.options),
        dict(message.rules),
        message.question,
        dict(message.labels),
    )
    screen = ApprovalScreen(approval)

    def answered(verdict: Verdict | None) -> None:
        verdict = verdict or Verdict("deny")
        given = {"choice": verdict.choice, "scope": verdict.scope, "message": verdict.message}
        try:
            answer(approval.request_id, given)
        except ValueError:  # not offered: deny rather than leave the run waiting
            answer(approval.request_id, "deny")

    app.push_screen(screen, callback=answered)


def close_approval(app: PiApp, request_id: str) -> None:
    """Close the modal of a request decided elsewhere (timeout, abort, a hook)."""
    for screen in app.screen_stack:
        if isinstance(screen, ApprovalScreen) and screen.approval.request_id == request_id:
            if screen is app.screen:
                screen.dismiss(None)
            else:
                app.call_later(screen.dismiss, None)


async def ask_trust(app: PiApp, check: TrustCheck) -> bool:
    """Ask whether to trust the folder (awaited from the boot thread via call_from_thread)."""
    future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    screen = TrustScreen(str(check.root), check.items, check.changed)
    app.push_screen(screen, callback=lambda trusted: future.set_result(bool(trusted)))
    return await future
