"""Leave a finished one-shot without tearing the interpreter down.

The last ~15 ms of a one-shot were Python's own teardown: every module's dictionary cleared and
every object of the ~570 modules freed one by one, for a process about to vanish. None of it is
needed once the run is over: the shell has ended pi's child processes, session lines are written
and closed as they happen, and what must run at exit is registered with :mod:`atexit` (the
session's pending fsyncs, the dataclass code cache, weakref finalizers, logging's flush). So a
one-shot that finished (:func:`arm`) ends, when ``main`` returns, with its standard streams
flushed, its atexit handlers run and ``os._exit``. Anything the teardown would still be needed
for makes it take the normal way: a non-daemon thread still alive, a stream that cannot be
flushed, ``PI_NO_FAST_EXIT`` set, or a caller that is not the console script (tests call
``main(argv)``)."""

from __future__ import annotations

import atexit
import os
import sys
import threading

_armed: list[bool] = []


def arm() -> None:
    """The one-shot is over: :func:`leave` may end the process."""
    _armed.append(True)


def leave(code: int) -> None:
    """End the process now with ``code`` if :func:`arm` was called and nothing needs the
    teardown; otherwise return (the caller exits the normal way)."""
    if not _armed or os.environ.get("PI_NO_FAST_EXIT"):
        return
    main = threading.main_thread()
    if any(t is not main and not t.daemon and t.is_alive() for t in threading.enumerate()):
        return  # the normal exit joins it
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return  # a closed pipe or stream: the normal exit deals with it as before
    atexit._run_exitfuncs()
    os._exit(code)
