"""``pi.register_provider`` and ``pi.register_flag`` (:class:`ProvidersAndFlags`, mixed into
:class:`~.registry.ExtensionAPI`): model providers and command-line flags an extension adds."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

PROVIDER_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,39}$")
MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")
FLAG_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


@dataclass
class ProviderSpec:
    """A model provider as registered: its stream function and model ids."""

    name: str
    function: Callable[..., Any]
    models: list[str]


class _Registered(Protocol):
    """What of a :class:`~.registry.Registration` these registrations fill."""

    providers: dict[str, ProviderSpec]
    flags: list[dict[str, Any]]


class ProvidersAndFlags:
    """The registrations of :mod:`.providers` and the command line's flags."""

    _registration: _Registered
    flag_values: dict[str, str | bool]
    changed: Callable[[], None]

    # ------------------------------------------------------------------ providers

    def register_provider(
        self, name: str, stream: Callable[..., Any], *, models: Sequence[str]
    ) -> None:
        """A model provider implemented here: ``stream(context, options)`` is agent_core's
        ``StreamFn`` (an async generator of assistant-stream events, then the final
        ``AssistantMessage``); ``--model name/<one of models>`` and ``/model`` select it.
        A name of one of pi's own providers is never used (pi's wins)."""
        if not PROVIDER_NAME.match(name):
            raise ValueError(f"provider {name!r}: lower-case letters, digits, _ . -")
        ids = [str(m) for m in models]
        if not ids or not all(MODEL_ID.match(m) for m in ids):
            raise ValueError(f"provider {name!r}: give models=[ids] (no spaces or slashes)")
        self._registration.providers[name] = ProviderSpec(name, stream, ids)
        self.changed()

    # ------------------------------------------------------------------ flags

    def register_flag(
        self,
        name: str,
        *,
        description: str = "",
        type: Literal["boolean", "string"] = "boolean",
        default: str | bool | None = None,
    ) -> None:
        """A command-line flag of pi (``--name``; a string flag takes a value): pi's parser
        knows it once this extension has loaded once (its registrations are cached), and
        ``pi --help`` lists it then. Read it with :meth:`get_flag`."""
        name = name.removeprefix("--")
        if not FLAG_NAME.match(name):
            raise ValueError(f"flag {name!r}: lower-case letters, digits and -, at most 40")
        if type not in ("boolean", "string"):
            raise ValueError(f"flag {name!r}: type is 'boolean' or 'string'")
        self._registration.flags = [f for f in self._registration.flags if f["name"] != name]
        self._registration.flags.append(
            {"name": name, "description": description, "type": type, "default": default}
        )
        self.changed()

    def get_flag(self, name: str) -> str | bool | None:
        """The flag's value on this command line, else its default (``None``: not registered)."""
        name = name.removeprefix("--")
        if name in self.flag_values:
            return self.flag_values[name]
        return next((f["default"] for f in self._registration.flags if f["name"] == name), None)
