"""Dataclasses made without compiling the same code at every start.

``@dataclass`` writes the source text of each class's ``__init__``, ``__repr__``, ``__eq__``, ...
and compiles it with ``exec``: pi's start makes ~180 dataclasses (its own and its libraries'),
~700 functions, and compiling them was ~40 ms, a sixth of the start. The text depends on the
class's fields alone and compiles to the same code every time, so the compiled code is kept in
a file beside pi's other caches (``$PI_HOME/cache/dataclass-code-<magic>.marshal``, marshalled
as Python's own bytecode cache is, per bytecode version) and a text found there is not compiled
again. ``dataclasses`` is untouched but for the ``exec`` it calls: a module global that shadows
the builtin, compiling a text it has not seen exactly as ``exec`` would (no inherited
``__future__`` flags) and running the code the same way.

The file is trusted as the rest of ``$PI_HOME`` is (settings there run hooks): it is read only
when it is a regular file of this user that nobody else may write. A damaged or foreign file is
ignored and rewritten; nothing here can stop pi from starting.
"""

from __future__ import annotations

import atexit
import builtins
import marshal
import os
import stat
from importlib._bootstrap_external import MAGIC_NUMBER
from types import CodeType

_MAX_ENTRIES = 20_000  # a runaway (generated classes): start over rather than grow forever
_MAX_BYTES = 32 << 20  # pi's own start keeps ~0.7 MB
_codes: dict[str, CodeType] = {}
_state = {"new": 0}


def install(cache_dir: str) -> None:
    """Use the code kept in ``cache_dir`` for the dataclasses made from now on; keep new code
    there at exit. Call once, early (before most dataclasses are made)."""
    import dataclasses

    if getattr(dataclasses, "exec", None) is _exec:
        return
    path = os.path.join(cache_dir, f"dataclass-code-{MAGIC_NUMBER.hex()}.marshal")
    _codes.update(_load(path))
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(_save, path)


def _exec(
    source: str | CodeType,
    scope: dict[str, object] | None = None,
    names: dict[str, object] | None = None,
    /,
) -> None:
    if isinstance(source, str):
        code = _codes.get(source)
        if code is None:
            # exec(text) from dataclasses inherits no __future__ flags: neither does this.
            code = compile(source, "<string>", "exec", dont_inherit=True)
            _codes[source] = code
            _state["new"] += 1
        source = code
    builtins.exec(source, scope, names)


def _load(path: str) -> dict[str, CodeType]:
    try:
        with open(path, "rb") as file:
            info = os.fstat(file.fileno())
            if (
                not stat.S_ISREG(info.st_mode)
                or info.st_uid != os.getuid()
                or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
                or info.st_size > _MAX_BYTES
            ):
                return {}
            data = marshal.loads(file.read())  # one read: load() reads item by item
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if not isinstance(data, dict) or len(data) > _MAX_ENTRIES:
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, CodeType)}


def _save(path: str) -> None:
    if not _state["new"] or len(_codes) > _MAX_ENTRIES:
        return
    partial = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as file:
            marshal.dump(_codes, file)
        os.replace(partial, path)  # whole or not at all, also with two pi exiting at once
    except (OSError, ValueError):
        try:
            os.unlink(partial)
        except OSError:
            pass
    _state["new"] = 0
