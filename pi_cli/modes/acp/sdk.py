"""The ACP SDK (``agent-client-protocol``), imported at a fraction of its cost (issue 25).

``import acp`` took 0.57-0.71 s, as long as pi's whole one-shot start: ``acp.schema`` defines
~270 pydantic models of the whole protocol, and creating each one built its validator and
serializer at once and read its source for the fields' docstrings (``use_attribute_docstrings``,
``inspect`` + ``ast`` per class). pi uses a few dozen of them. While the SDK is imported here,
the SDK's own models (those whose module is ``acp`` or under it) are created with
``defer_build`` (pydantic builds a model's validator the first time it is used) and without
attribute docstrings (they only feed JSON Schema generation, which neither pi nor the SDK does
at run time). Measured, CPU: 0.50-0.66 s -> 0.25-0.27 s on a loaded machine. Everything else
about the models is unchanged; if pydantic's internals differ from what this expects (another
version), the SDK is imported as it is.

Also imported first: :mod:`agent_core` (its pydantic plugin discovery shortcut must run before
the SDK makes the first model, or ``importlib.metadata`` is loaded for it).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from typing import Any, get_args

from pydantic import BaseModel

from agent_core import skip_pydantic_plugin_discovery

skip_pydantic_plugin_discovery()  # before the first pydantic model: see the docstring


@contextlib.contextmanager
def _cheap_sdk_models() -> Iterator[None]:
    try:
        from pydantic._internal import _config

        original = _config.ConfigWrapper.__dict__["for_model"]
        build = original.__func__
    except (ImportError, KeyError, AttributeError):
        yield  # another pydantic: import the SDK as it is
        return

    def for_model(cls: Any, bases: Any, namespace: Any, kwargs: Any) -> Any:
        wrapper = build(cls, bases, namespace, kwargs)
        if _from_sdk(str(namespace.get("__module__", ""))):
            wrapper.config_dict["defer_build"] = True
            wrapper.config_dict["use_attribute_docstrings"] = False
        return wrapper

    _config.ConfigWrapper.for_model = classmethod(for_model)  # type: ignore[assignment]
    try:
        yield
    finally:
        _config.ConfigWrapper.for_model = original  # type: ignore[method-assign]


def build_validators(models: Iterable[type[BaseModel]]) -> None:
    """Build the validators of ``models``, those of the SDK models their fields use first.

    A deferred model used inside another is generated again inside it when that one is built,
    and once more when it is used alone (a chunk inside ``SessionNotification``, then sent):
    built from the leaves up, each is built once and then reused by those containing it.
    Measured: a session's first messages 23 -> 15 ms of CPU.
    """
    seen: set[type[BaseModel]] = set()

    def build(model: type[BaseModel]) -> None:
        if model in seen:
            return
        seen.add(model)
        for field in model.model_fields.values():
            for inner in _sdk_models_in(field.annotation):
                build(inner)
        model.model_rebuild(raise_errors=False)  # one that cannot be built yet is, when used

    for model in models:
        build(model)


def _sdk_models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel) and _from_sdk(annotation.__module__):
            yield annotation
        return
    for argument in get_args(annotation):  # unions, lists, Annotated, Optional...
        yield from _sdk_models_in(argument)


def _from_sdk(module: str) -> bool:
    return module == "acp" or module.startswith("acp.")


if "acp" not in sys.modules:
    with _cheap_sdk_models():
        import acp  # noqa: F401

from acp import PROTOCOL_VERSION, RequestError, helpers, run_agent, schema  # noqa: E402

__all__ = ["PROTOCOL_VERSION", "RequestError", "build_validators", "helpers", "run_agent", "schema"]
