"""Showing a custom message: keep it in the session, draw it with its type's renderer (on the
renderer's extension's thread), emit :class:`CustomMessageShown` (see :mod:`.messages`)."""

from __future__ import annotations

import asyncio

from pi_cli.shell.events.dialogs import CustomMessageShown, MessageView
from pi_cli.shell.extensions.messages import CustomMessage, default_view, to_view
from pi_cli.shell.extensions.runtime import CallFailed, Extension, Extensions

_SHOWING: set[asyncio.Task[None]] = set()


def show(extensions: Extensions, sender: Extension, message: CustomMessage) -> str:
    """Keep ``message`` in the session, then draw it (its renderer runs on its extension's
    thread; the :class:`CustomMessageShown` event follows). On pi's loop; returns the entry id."""
    host = extensions.host
    entry_id = host.session.append(
        "custom_message",
        customType=message.custom_type,
        content=message.content,
        details=message.details,
        display=True,
    )

    async def draw() -> None:
        view, expanded = await render(extensions, message)
        host.emit(
            CustomMessageShown(
                entry_id=entry_id, custom_type=message.custom_type, content=message.content,
                details=message.details, view=view, expanded=expanded,
                source=f"extension {sender.name}",
            )
        )  # fmt: skip

    task = asyncio.get_running_loop().create_task(draw())
    _SHOWING.add(task)
    task.add_done_callback(_SHOWING.discard)
    return entry_id


async def render(
    extensions: Extensions, message: CustomMessage
) -> tuple[MessageView, MessageView | None]:
    """``message`` as its type's renderer draws it (the default view when none is live, or it
    fails: then its extension is reported and disabled)."""
    for ext in extensions.usable():
        renderer = ext.registration.renderers.get(message.custom_type)
        if renderer is None or ext.state != "live":
            continue
        label = f"message renderer {message.custom_type!r}"
        try:
            view = to_view(await extensions.call(ext, label, renderer, message, False))
            expanded = to_view(await extensions.call(ext, label, renderer, message, True))
            return view, (expanded if expanded != view else None)
        except CallFailed:
            break
        except (TypeError, ValueError) as exc:
            extensions.fail(ext, f"{label} returned what is not a view ({exc})")
            break
    return default_view(message), None
