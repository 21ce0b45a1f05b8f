"""``pi.events``: a bus between extensions (pi-ts's ``pi.events``), with typed payloads.

An extension subscribes with ``pi.events.on("todo:changed", handler, payload=TodoChanged)`` and
another emits with ``pi.events.emit("todo:changed", TodoChanged(...))`` (or a dict the payload
type is built from; another extension's class of the same fields fits too). Delivery does not wait: each subscriber's handler runs on its own
extension's thread with its own copy of the payload, under the same bounds as every handler; a
handler that raises disables its extension only. A payload that does not fit a subscriber's
type is not delivered to it (a warning names both). A subscriber whose code is not loaded yet
(from the cache) is loaded first. Names: letters, digits and ``: _ . -``.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pi_cli.shell.extensions.names import BUS_PREFIX

F = TypeVar("F", bound=Callable[..., Any])
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9:_.-]{0,127}$")


class PayloadMismatch(ValueError):
    """A payload that does not fit the type a subscriber asked for."""


def fit(payload: object, kind: type | None) -> object:
    """``payload`` as ``kind``, a copy: a pydantic model or dataclass built from a dict (or from
    another extension's model or dataclass, field by field)."""
    if kind is None or isinstance(payload, kind):
        try:
            return copy.deepcopy(payload)
        except Exception:  # noqa: BLE001 - a payload that cannot be copied is shared as it is
            return payload
    from pydantic import BaseModel, ValidationError

    if isinstance(payload, BaseModel):  # another extension's class of the same shape
        payload = payload.model_dump()
    elif dataclasses.is_dataclass(payload) and not isinstance(payload, type):
        payload = dataclasses.asdict(payload)
    if isinstance(payload, Mapping):
        try:
            if issubclass(kind, BaseModel):
                return kind.model_validate(dict(payload))
            if dataclasses.is_dataclass(kind):
                return kind(**payload)
        except (ValidationError, TypeError) as exc:
            raise PayloadMismatch(str(exc).splitlines()[0]) from None
    raise PayloadMismatch(f"a {type(payload).__name__}, not a {kind.__name__}")


class ExtensionEvents:
    """``pi.events`` of one extension."""

    def __init__(
        self, handlers: dict[str, list[Callable[..., Any]]], payloads: dict[str, type]
    ) -> None:
        self._handlers = handlers  # the extension's Registration's
        self._payloads = payloads
        self.emitter: Callable[[str, object], None] | None = None
        """Set when the extension is live (the shell delivers); before that emitting raises."""

    def on(self, name: str, handler: F | None = None, *, payload: type | None = None) -> Any:
        """Handle ``name`` (``pi.events.on("x", fn)`` or ``@pi.events.on("x")``);
        ``payload``: the type the handler gets (a pydantic model or a dataclass)."""
        if not NAME.match(name):
            raise ValueError(f"event name {name!r}: letters, digits and : _ . -")

        def decorate(function: F) -> F:
            self._handlers.setdefault(BUS_PREFIX + name, []).append(function)
            if payload is not None:
                self._payloads[name] = payload
            return function

        return decorate(handler) if handler is not None else decorate

    def emit(self, name: str, payload: object = None) -> None:
        """Send ``payload`` to every extension handling ``name`` (not waiting for them)."""
        if not NAME.match(name):
            raise ValueError(f"event name {name!r}: letters, digits and : _ . -")
        if self.emitter is None:
            raise RuntimeError("emit from handlers, not register(): use a session_start handler")
        self.emitter(name, payload)
