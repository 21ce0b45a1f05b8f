"""The shell's public API is typed: no parameter or return of a front-door function, or of a
public method of a front-door class, is a bare ``Any`` (JSON shapes like ``dict[str, Any]`` are
what they are and stay allowed)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator

import pi_cli.shell as front_door

BARE_ANY = {"Any", "Any | None", "None | Any", "Optional[Any]", "typing.Any"}


def _callables() -> Iterator[tuple[str, Callable[..., object]]]:
    for name in front_door.__all__:
        value = getattr(front_door, name)
        if inspect.isfunction(value):
            yield name, value
        elif inspect.isclass(value) and value.__module__.startswith("pi_cli."):
            for attr, member in vars(value).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(member, property) and member.fget is not None:
                    yield f"{name}.{attr}", member.fget
                elif inspect.isfunction(member):
                    yield f"{name}.{attr}", member


def test_no_bare_any_in_the_public_api() -> None:
    offences = []
    for where, function in _callables():
        for param, annotation in function.__annotations__.items():
            if str(annotation).strip() in BARE_ANY:
                offences.append(f"{where}: {param}: {annotation}")
    assert offences == []
