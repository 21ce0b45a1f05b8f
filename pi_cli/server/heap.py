"""Keep the cyclic garbage collector's pauses off the streams of a server's sessions.

A session's shell is long-lived: its objects (models, tools, settings, the conversation) are
made once and kept for hours. Left to the collector, each full collection walks all of them,
for every session hosted: with 50 sessions, a pause of tens to hundreds of milliseconds in the
middle of everyone's stream (measured in ``bench/bench_server.py``). So once the server has
started and after each session is opened, what is garbage is collected (a walk of only what is
new since the last time) and the rest is frozen (``gc.freeze``: out of every later collection).
Frozen objects that become garbage (a closed session's cycles) are not collected by the
collector until unfrozen: after a session closes, the next quiet moment (no run in progress)
unfreezes, collects and freezes again, one full walk when nobody is streaming.
"""

from __future__ import annotations

import gc
import logging

log = logging.getLogger("pi_cli.server")


class Heap:
    """When to collect and freeze (see the module docstring)."""

    def __init__(self) -> None:
        self.frozen_garbage = False
        """A session closed since its objects were frozen: a full collection is due."""

    def settle(self) -> None:
        """Collect what is garbage among the objects not yet frozen, and freeze the rest."""
        gc.collect()
        gc.freeze()

    def released(self) -> None:
        """Frozen objects may have become garbage (a session closed or switched its file)."""
        self.frozen_garbage = True

    def tidy(self, quiet: bool) -> None:
        """At a quiet moment, collect the garbage frozen so far (everything is walked once)."""
        if not (self.frozen_garbage and quiet):
            return
        self.frozen_garbage = False
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        log.debug("heap tidied: %d objects collected", found)
