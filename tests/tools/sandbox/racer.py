"""A hostile process flipping a directory for symlinks, atomically, as fast as it can.

``python racer.py DIR TARGET...``: next to ``DIR`` it makes one symlink per ``TARGET`` and then
swaps ``DIR`` with each of them in turn with ``renameat2(RENAME_EXCHANGE)``, forever, so at every
instant ``DIR`` exists and is either the real directory or a symlink to one of the targets (no
gap a missing path would show). Prints ``racing`` once it runs. Standard library only: a model
could write it (the adversarial tests do exactly that, through the write tool).
"""

import ctypes
import os
import sys

RENAME_EXCHANGE = 2
AT_FDCWD = -100


def main() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    directory = sys.argv[1]
    links = []
    for number, target in enumerate(sys.argv[2:]):
        link = f"{directory}.racer-{number}"
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(target, link)
        links.append(link.encode())
    name = directory.encode()
    print("racing", flush=True)
    while True:
        for link in links:
            for _ in range(2):  # there and back: the directory is real half of the time
                if libc.renameat2(AT_FDCWD, name, AT_FDCWD, link, RENAME_EXCHANGE) != 0:
                    raise OSError(ctypes.get_errno(), "renameat2 failed")


if __name__ == "__main__":
    main()
