"""A dialog's answer: what front ends may send, checked against the question."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pi_cli.shell.events.dialogs import (
    DialogOption,
    DialogRequested,
    DialogResolution,
    DialogResolved,
)

OptionSpec = str | DialogOption | Mapping[str, str] | tuple[str, str]
"""A select option as an asker may give it: a label, ``(label, description)``, a mapping with
``label`` (and ``description``), or a :class:`DialogOption`."""
MAX_TEXT = 100_000


@dataclass(frozen=True)
class DialogAnswer:
    """What the user answered (or that they did not: ``cancelled``).

    Attributes:
        cancelled: no answer (Esc, timeout, abort, nobody to ask).
        values: the options chosen (``select``; one at most unless ``multiple``).
        other: the user's own answer to a ``select`` that allows one.
        text: the text of an ``input`` or ``editor`` dialog.
        confirmed: the answer to ``confirm`` (``False`` when cancelled).
    """

    cancelled: bool = False
    values: tuple[str, ...] = ()
    other: str | None = None
    text: str | None = None
    confirmed: bool = False
    by: DialogResolution = "user"

    @property
    def value(self) -> str | None:
        """The single answer: the text, the one option chosen, or the user's own answer."""
        if self.cancelled:
            return None
        if self.text is not None:
            return self.text
        if self.values:
            return self.values[0]
        return self.other

    @classmethod
    def none(cls, by: DialogResolution) -> DialogAnswer:
        """No answer (``by`` says why)."""
        return cls(cancelled=True, by=by)


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string")
    if len(value) > MAX_TEXT:
        raise ValueError(f"{what} is longer than {MAX_TEXT} characters")
    return value


def parse_answer(request: DialogRequested, answer: object) -> DialogAnswer:
    """A front end's answer to ``request``, checked against it (raises ValueError if unclear).

    Accepted: a :class:`DialogAnswer`; a mapping in the wire shape (``{"cancelled": true}``,
    ``{"confirmed": bool}``, ``{"value": str}``, ``{"values": [str, ...]}``, ``{"other": str}``);
    a bare string (the value) or bool (confirm). Option labels are matched exactly, then without
    case; with ``allow_other`` an unknown ``value`` is the user's own answer.
    """
    if isinstance(answer, DialogAnswer):
        return _checked(request, answer)
    if isinstance(answer, bool):
        answer = {"confirmed": answer}
    elif isinstance(answer, str):
        answer = {"value": answer}
    if not isinstance(answer, Mapping):
        raise ValueError("an answer is a mapping, a string or a bool")
    if answer.get("cancelled") is True:
        return DialogAnswer(cancelled=True)
    if request.kind == "confirm":
        return _confirm_answer(answer)
    if request.kind in ("input", "editor"):
        value = answer.get("value", answer.get("text"))
        return DialogAnswer(text=_text(value, '"value"'))
    return _select_answer(request, answer)


def _confirm_answer(answer: Mapping[str, object]) -> DialogAnswer:
    confirmed = answer.get("confirmed")
    if isinstance(confirmed, bool):
        return DialogAnswer(confirmed=confirmed)
    value = answer.get("value")
    if isinstance(value, str) and value.strip().lower() in ("yes", "y", "true", "no", "n", "false"):
        return DialogAnswer(confirmed=value.strip().lower() in ("yes", "y", "true"))
    raise ValueError('a confirm dialog is answered with "confirmed": true or false')


def _select_answer(request: DialogRequested, answer: Mapping[str, object]) -> DialogAnswer:
    raw = answer.get("values")
    if raw is None and "value" in answer:
        raw = [answer["value"]]
    chosen: list[str] = []
    other = answer.get("other")
    if other is not None:
        other = _text(other, '"other"')
    if raw is not None:
        if not isinstance(raw, list | tuple):
            raise ValueError('"values" must be a list of option labels')
        for item in raw:
            label = _match_option(request, _text(item, "an option"))
            if label is not None:
                chosen.append(label)
            elif request.allow_other and other is None:
                other = str(item)
            else:
                labels = ", ".join(o.label for o in request.options)
                raise ValueError(f"{item!r} is not one of the options ({labels})")
    return _checked(request, DialogAnswer(values=tuple(dict.fromkeys(chosen)), other=other))


def _match_option(request: DialogRequested, value: str) -> str | None:
    labels = [o.label for o in request.options]
    if value in labels:
        return value
    folded = value.strip().casefold()
    return next((label for label in labels if label.casefold() == folded), None)


def _checked(request: DialogRequested, answer: DialogAnswer) -> DialogAnswer:
    if answer.cancelled or request.kind != "select":
        return answer
    if answer.other is not None and not request.allow_other:
        raise ValueError("this question takes one of its options, not an answer of your own")
    if answer.other is not None and not answer.other.strip():
        answer = DialogAnswer(values=answer.values, other=None)
    count = len(answer.values) + (answer.other is not None)
    if count == 0:
        raise ValueError("choose an option (or cancel)")
    if count > 1 and not request.multiple:
        raise ValueError("this question takes one answer")
    return answer


def option_of(spec: OptionSpec) -> DialogOption:
    if isinstance(spec, DialogOption):
        return spec
    if isinstance(spec, str):
        return DialogOption(label=spec)
    if isinstance(spec, tuple):
        return DialogOption(label=spec[0], description=spec[1] or None)
    return DialogOption(label=str(spec["label"]), description=spec.get("description") or None)


def resolved_event(request: DialogRequested, answer: DialogAnswer) -> DialogResolved:
    """The :class:`DialogResolved` of ``request`` answered with ``answer``."""
    if answer.cancelled:
        confirmed = False if request.kind == "confirm" else None
        return DialogResolved(id=request.id, by=answer.by, cancelled=True, confirmed=confirmed)
    return DialogResolved(
        id=request.id,
        by=answer.by,
        value=answer.value if request.kind != "confirm" else None,
        values=list(answer.values) if request.kind == "select" else None,
        other=answer.other,
        confirmed=answer.confirmed if request.kind == "confirm" else None,
    )
