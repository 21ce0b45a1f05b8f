"""Finished messages are immutable, so their provider form can be cached (issue 25).

Every turn sends the whole history. Converting it again each turn made a turn's cost grow with
the conversation (19,900 redundant ``json.dumps`` over 200 turns), so the providers cache each
message's request form. A cache is only as safe as its key: messages are mutable records,
handed to hooks, ``transform_context`` and every front end. The decision:

* **A message is frozen when it is finished** — at its ``message_end`` (the loop freezes
  prompts, steers and follow-ups as they join the history, each final assistant message, each
  tool result) and when a history is loaded (``Agent(messages=...)``, ``replace_messages``).
* **Frozen means what the model sees cannot change**: assigning or deleting an attribute of
  the message or of one of its content blocks raises :class:`FrozenMessageError`; its
  ``content`` list and a tool call's ``arguments`` (deeply) become :class:`FrozenList` /
  :class:`FrozenDict`, a ``list``/``dict`` whose mutating methods raise. They stay real lists
  and dicts for ``isinstance``, ``json`` and msgspec; a copy of them (``copy``, ``deepcopy``,
  pickling, ``model_copy(deep=True)``, ``list(...)``, ``dict(...)``) is an ordinary, mutable one.
  What ``details`` and ``usage`` hold is left as it is (no request carries them), though the
  attributes themselves cannot be reassigned.
* **Change a finished message by replacing it**: ``message.model_copy(update=...)`` gives an
  unfrozen copy; put it in the list in place of the original.
* **Caches hold frozen messages only**, keyed by identity. An unfrozen message (one a caller
  built and never finished) is converted afresh on every request, as before.

The frozen set is kept beside the objects (by ``id``, with a weak reference that removes the
entry when the object dies), not in them: a ``model_copy`` is therefore never frozen.
"""

from __future__ import annotations

import copy
import weakref
from typing import TYPE_CHECKING, Any, NoReturn, SupportsIndex

from msgspec.structs import force_setattr

__all__ = ["FrozenDict", "FrozenList", "FrozenMessageError", "is_frozen", "mark_frozen"]


class FrozenMessageError(TypeError):
    """A finished (frozen) message, one of its blocks or containers was changed in place."""


def _refuse(*_args: Any, **_kwargs: Any) -> NoReturn:
    raise FrozenMessageError(
        "a finished message cannot be changed in place: replace it with "
        "message.model_copy(update={...}) (agent_core._frozen)"
    )


class FrozenList(list[Any]):
    """A ``list`` whose mutating methods raise; its copies are plain lists."""

    __slots__ = ()
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = _refuse

    def __iadd__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse()

    def __imul__(self, other: SupportsIndex) -> NoReturn:
        _refuse()

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(item, memo) for item in self]

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


class FrozenDict(dict[str, Any]):
    """A ``dict`` whose mutating methods raise; its copies are plain dicts."""

    __slots__ = ()
    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse

    def __ior__(self, other: Any) -> NoReturn:  # type: ignore[misc]
        _refuse()

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {key: copy.deepcopy(value, memo) for key, value in self.items()}

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


def frozen_value(value: Any) -> Any:
    """``value`` with every dict and list in it (deeply) frozen; other values as they are."""
    if isinstance(value, dict) and not isinstance(value, FrozenDict):
        return FrozenDict({key: frozen_value(item) for key, item in value.items()})
    if isinstance(value, list) and not isinstance(value, FrozenList):
        return FrozenList(frozen_value(item) for item in value)
    return value


_FROZEN: dict[int, weakref.ref[Any]] = {}


def is_frozen(obj: object) -> bool:
    """Whether ``obj`` (a message or content block) was frozen."""
    ref = _FROZEN.get(id(obj))
    return ref is not None and ref() is obj


def mark_frozen(obj: object) -> None:
    """Record ``obj`` as frozen for as long as it lives."""
    key = id(obj)

    def forget(dead: weakref.ref[Any]) -> None:
        if _FROZEN.get(key) is dead:
            del _FROZEN[key]

    _FROZEN[key] = weakref.ref(obj, forget)


class Freezable:
    """Mixin of the message and content-block records: attribute changes raise once frozen."""

    __slots__ = ()

    if not TYPE_CHECKING:  # hidden from mypy: a __setattr__ would let it accept any attribute

        def __setattr__(self, name: str, value: Any) -> None:
            if _FROZEN and is_frozen(self):
                _refuse()
            force_setattr(self, name, value)

        def __delattr__(self, name: str) -> None:
            if _FROZEN and is_frozen(self):
                _refuse()
            delattr_slot = getattr(type(self), name, None)
            if delattr_slot is None or not hasattr(delattr_slot, "__delete__"):
                raise AttributeError(name)
            delattr_slot.__delete__(self)
