"""Stands in for the login shell of a terminal: runs pi in it, forwards SIGHUP to pi (what
bash does for its jobs when the terminal closes), writes pi's exit code to a file, then keeps
the pane open so its screen state can be inspected.

Usage: ``python hup_wrapper.py EXIT_FILE PROGRAM ARGS...``
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time


def main() -> None:
    exit_file, argv = sys.argv[1], sys.argv[2:]
    child = subprocess.Popen(argv)
    signal.signal(signal.SIGHUP, lambda *_: child.send_signal(signal.SIGHUP))
    code = child.wait()
    with open(exit_file, "w") as handle:
        handle.write(str(code if code >= 0 else 128 - code))
    time.sleep(60)


if __name__ == "__main__":
    main()
