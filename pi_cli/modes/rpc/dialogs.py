"""Dialogs and extension UI over RPC, in pi's ``extension_ui_request`` shapes.

A :class:`~pi_cli.shell.DialogRequested` becomes a request the client answers (pi's ``select``,
``confirm``, ``input``, ``editor`` methods), with pi's fields plus ours::

    {"type": "extension_ui_request", "id": "dialog-1", "method": "select",
     "title": "Deploy where?", "message": "...", "options": ["staging", "production"],
     "optionDetails": [{"label": "staging", "description": "..."}, ...],
     "multiple": false, "allowOther": false, "timeout": 120000, "source": "extension deploy"}

answered with ``{"type": "extension_ui_response", "id": ..., "value": "staging"}`` (pi's shape;
with ``allowOther`` a value that is no option is the user's own answer), ``"values": [...]``
(several options, ``multiple``), ``"other": "..."`` (an own answer beside options),
``"confirmed": true|false`` (confirm) or ``"cancelled": true``.

Pieces of UI are pi's fire-and-forget requests: a footer segment is ``setStatus``
(``statusKey``, ``statusText``), a status line is ``setWidget`` placed ``belowEditor``, a panel
``setWidget`` placed ``aboveEditor`` (``widgetKey``, ``widgetLines``); each also names its
``slot``. The terminal's title is ``setTitle`` (``title``), text put into the editor
``set_editor_text`` (``text``: pi's name, snake_case as pi-ts sends it). An extension's
notification is ``notify`` (``message``, ``notifyType``).
"""

from __future__ import annotations

import uuid
from typing import Any

from pi_cli.shell import DialogRequested, Notice, UiChanged

ANSWER_FIELDS = ("value", "values", "other", "confirmed", "cancelled")


def dialog_line(request: DialogRequested) -> dict[str, Any]:
    """The ``extension_ui_request`` for a dialog."""
    line: dict[str, Any] = {
        "type": "extension_ui_request",
        "id": request.id,
        "method": request.kind,
        "title": request.title,
    }
    if request.message:
        line["message"] = request.message
    if request.kind == "select":
        line["options"] = [option.label for option in request.options]
        if any(option.description for option in request.options):
            line["optionDetails"] = [
                {"label": o.label, "description": o.description or ""} for o in request.options
            ]
        line["multiple"] = request.multiple
        line["allowOther"] = request.allow_other
    if request.placeholder is not None:
        line["placeholder"] = request.placeholder
    if request.default is not None:
        line["prefill"] = request.default
    if request.timeout_ms is not None:
        line["timeout"] = request.timeout_ms
    if request.source:
        line["source"] = request.source
    if request.view is not None:  # an overlay: its lines as data (``message`` is their text)
        line["view"] = request.view.model_dump(mode="json", by_alias=True)
    return line


def ui_line(event: UiChanged) -> dict[str, Any]:
    """The fire-and-forget request for a piece of extension UI (``None`` fields clear it)."""
    line: dict[str, Any] = {
        "type": "extension_ui_request",
        "id": str(uuid.uuid4()),
        "slot": event.slot,
    }
    if event.slot == "title":  # pi's setTitle ("" gives the client's own title back)
        line.update(method="setTitle", title=event.text or "")
        return line
    if event.slot == "editor":
        line.update(method="set_editor_text", text=event.text or "")
        return line
    if event.slot == "footer":
        line.update(method="setStatus", statusKey=event.key)
        if event.text is not None:
            line["statusText"] = event.text
        return line
    line.update(
        method="setWidget",
        widgetKey=event.key,
        widgetPlacement="aboveEditor" if event.slot == "panel" else "belowEditor",
    )
    lines = event.lines if event.slot == "panel" else None
    if event.slot == "status" and event.text is not None:
        lines = [event.text]
    if lines is not None:
        line["widgetLines"] = lines
    return line


def notify_line(notice: Notice) -> dict[str, Any]:
    """An extension's notification as pi's ``notify`` request."""
    return {
        "type": "extension_ui_request",
        "id": str(uuid.uuid4()),
        "method": "notify",
        "message": notice.text,
        "notifyType": notice.level,
        "source": notice.source,
    }


def dialog_answer(command: dict[str, Any]) -> dict[str, Any]:
    """The answer fields of an ``extension_ui_response`` (raises ValueError when it has none)."""
    answer = {key: command[key] for key in ANSWER_FIELDS if key in command}
    if not answer:
        raise ValueError('"value", "values", "other", "confirmed" or "cancelled" is required')
    return answer
