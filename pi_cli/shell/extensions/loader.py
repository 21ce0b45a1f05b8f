"""Importing one extension and calling its ``register(pi)`` (on the extension's own thread).

A module gets a name of its own in ``sys.modules`` (``pi_extension_<name>_<hash>``), a package
too (so its relative imports work); ``/reload`` drops them all (:func:`forget`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
from types import ModuleType
from typing import Any

from pi_cli.shell.extension_sources import Source
from pi_cli.shell.extensions.registry import ExtensionAPI


class ExtensionError(Exception):
    """An extension cannot be loaded (the message says why, for the user)."""


def module_name(source: Source) -> str:
    """The name its module gets in ``sys.modules``."""
    digest = hashlib.sha256(source.label.encode(errors="replace")).hexdigest()[:10]
    return f"pi_extension_{re.sub(r'[^A-Za-z0-9_]', '_', source.name)}_{digest}"


def _import_file(source: Source) -> ModuleType:
    assert source.path is not None
    name = module_name(source)
    package = source.path.is_dir()
    location = source.path / "__init__.py" if package else source.path
    spec = importlib.util.spec_from_file_location(
        name, location, submodule_search_locations=[str(source.path)] if package else None
    )
    if spec is None or spec.loader is None:
        raise ExtensionError(f"{source.label} is not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        forget(source)
        raise
    return module


def register_function(source: Source) -> Any:
    """Import ``source`` and return its ``register`` function."""
    if source.entry is not None:
        module_path, _, attribute = source.entry.partition(":")
        target: Any = importlib.import_module(module_path.strip())
        for part in filter(None, attribute.strip().split(".")):
            target = getattr(target, part)
    else:
        target = _import_file(source)
    register = getattr(target, "register", None) if isinstance(target, ModuleType) else target
    if not callable(register):
        raise ExtensionError(f"{source.label} defines no register(pi) function")
    return register


async def load(source: Source, api: ExtensionAPI) -> None:
    """Import ``source`` and let it register into ``api`` (an async ``register`` is awaited)."""
    register = register_function(source)
    result = register(api)
    if inspect.isawaitable(result):
        await result


def forget(source: Source) -> None:
    """Drop the extension's modules from ``sys.modules`` (a package's submodules too)."""
    if source.entry is not None:
        return  # an installed package's modules are the package's own
    name = module_name(source)
    for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
        del sys.modules[key]
