"""Pydantic's plugin discovery without ``importlib.metadata`` when no plugin is installed.

Before building its first validator pydantic looks for plugins in the ``pydantic`` entry-point
group through ``importlib.metadata`` (~15 ms to import, with email, zipfile and csv). A plugin
can only be declared in an ``entry_points.txt`` of a distribution on ``sys.path``: when none of
those files names the group, the answer is known to be "no plugins" and is given to pydantic
directly. Any doubt (a zip on the path, a ``[pydantic]`` section anywhere, another pydantic
layout) leaves discovery to pydantic itself, unchanged.
"""

from __future__ import annotations

import os
import sys
import types


def _no_plugin_declared() -> bool:
    for entry in sys.path:
        path = entry or os.getcwd()
        if not os.path.isdir(path):
            if os.path.exists(path):
                return False  # a zip or egg file: only importlib.metadata reads those
            continue
        try:
            names = os.listdir(path)
        except OSError:
            return False
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(path, name, "entry_points.txt"), "rb") as file:
                    if b"pydantic" in file.read():
                        return False
            except FileNotFoundError:
                continue
            except OSError:
                return False
    return True


def skip_discovery_without_plugins() -> None:
    """Tell pydantic it has no plugins when no installed distribution declares one.

    Call before pydantic builds its first validator. pydantic's loader module (which imports
    ``importlib.metadata``) is replaced by a stand-in whose ``get_plugins`` returns none, as
    the real one would.
    """
    name = "pydantic.plugin._loader"
    if name in sys.modules or os.environ.get("PYDANTIC_DISABLE_PLUGINS") is not None:
        return  # discovery ran already, or pydantic's own switch decides
    if not _no_plugin_declared():
        return
    stand_in = types.ModuleType(name, "No pydantic plugin is installed (agent_core).")
    stand_in.get_plugins = lambda: ()  # type: ignore[attr-defined]
    stand_in._plugins = {}  # type: ignore[attr-defined]
    sys.modules[name] = stand_in
