"""What pi checks after every sandboxed command: the two things no mount can keep out.

**Protected paths that did not exist.** ``.claude .envrc .idea .mcp.json .pi .vscode`` configure
programs that run outside the sandbox. An existing one is a read-only mount; a missing one could
only be kept uncreatable by a mount point, and a mount point is an entry in the workspace's own
directory on the host (bubblewrap creates it there: the workspace is a bind of the host's
directory, and neither a tmpfs, an overlay nor a mount namespace can put a name in a directory
without that directory holding it). So no placeholder is made; instead, after each command
(and each ``bash_output``/``bash_kill``, and when the sandbox stops), one that appeared is moved
out of the project into a quarantine directory outside the sandbox's reach, and the tool result
says so. What pi itself created (an approved ``write``, a restore, "allow always") stays: the
safe file primitive records it (:func:`tools.safe_files.created_by_pi`).

**Repositories that appeared during the run.** A gitlink makes the user's ``git status`` run
the nested repository's configuration (``core.fsmonitor``): after a command, a gitlink of the
index whose ``.git`` is new or not the one present at start has that ``.git`` renamed to
``.git.disarmed-by-pi`` (then it is a plain directory to git), and the result says so.

Both act between commands: a background shell can still create one of these while another
command runs, and a program on the host that reads it in that window (direnv asks first;
VS Code, Claude Code and pi ask before trusting a changed folder) is the remaining exposure.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from tools.safe_files import created_by_pi, open_root, pin_under
from tools.sandbox._git_layout import GitLayout, gitlinks, identity

DISARMED = ".git.disarmed-by-pi"


class Watch:
    """The state at sandbox start, and the check after each command."""

    def __init__(
        self,
        workspace: Path,
        protected: Iterable[Path],
        git: GitLayout,
        quarantine: Path,
    ) -> None:
        self.workspace = workspace
        self.absent = [p for p in protected if not os.path.lexists(p)]
        """The protected paths that did not exist at start."""
        self.git = git
        self.quarantine = quarantine
        self.index = _signature(git.index)
        self.links: dict[str, object] = dict(git.gitlinks)
        self.work_tree = git.work_tree or workspace

    def quick(self) -> bool:
        """Whether :meth:`check` has anything to do (a few ``lstat``: cheap after every command)."""
        if any(os.path.lexists(path) for path in self.absent):
            return True
        return self.git.index is not None and self._moved()

    def accept_present(self) -> None:
        """What exists now was made with the user's approval (a command run outside the
        sandbox): leave it, and watch only what is still missing."""
        self.absent = [p for p in self.absent if not os.path.lexists(p)]

    def check(self) -> list[str]:
        """Undo what appeared since the last check; one note per thing undone."""
        notes = [note for path in self.absent if (note := self._protected(path))]
        notes += self._repositories()
        return notes

    # ------------------------------------------------------------------ protected paths

    def _protected(self, path: Path) -> str | None:
        try:
            info = os.lstat(path)
        except OSError:
            return None
        if created_by_pi(os.path.realpath(path)):
            return None
        shown = path.name
        if stat.S_ISLNK(info.st_mode):
            with contextlib.suppress(OSError):
                path.unlink()
            return (
                f"[pi: the command created {shown} (a symlink), a protected path: it configures "
                "programs that run outside the sandbox. pi removed it.]"
            )
        place = self._quarantine_place(path.name)
        try:
            shutil.move(os.fspath(path), os.fspath(place))
        except OSError as exc:
            return (
                f"[pi: the command created {shown}, a protected path; pi could not move it out "
                f"of the project: {exc}]"
            )
        return (
            f"[pi: the command created {shown}, a protected path: it configures programs that run "
            f"outside the sandbox (editors, direnv, agents). pi moved it out of the project to "
            f"{place}; if it is wanted, create it with the write tool (the user is asked).]"
        )

    def _quarantine_place(self, name: str) -> Path:
        self.quarantine.mkdir(parents=True, exist_ok=True, mode=0o700)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for number in range(1000):
            place = self.quarantine / f"{stamp}-{number}-{name.lstrip('.')}"
            if not os.path.lexists(place):
                return place
        raise OSError("the quarantine directory is full")

    # ------------------------------------------------------------------ nested repositories

    def _repositories(self) -> list[str]:
        if self.git.index is None or self.git.git_dir is None or not self._moved():
            return []
        self.index = _signature(self.git.index)
        notes = []
        for link in gitlinks(self.git.git_dir, self.work_tree):
            dot = self._dot(link)
            found = identity(dot)
            if found is None or self.links.get(link, "new") == found:
                continue
            note = self._disarm(link)
            self.links[link] = identity(dot)
            if note:
                notes.append(note)
        return notes

    def _moved(self) -> bool:
        if _signature(self.git.index) != self.index:
            return True
        return any(identity(self._dot(link)) != known for link, known in self.links.items())

    def _dot(self, link: str) -> Path:
        return self.work_tree / link / ".git"

    def _disarm(self, link: str) -> str | None:
        relative = f"{link}/.git"
        try:
            with (
                open_root(self.work_tree) as root,
                pin_under(root, self.work_tree, relative) as dot,
            ):
                target = DISARMED
                while os.path.lexists(os.path.join(self.work_tree, link, target)):
                    target += "-"
                os.rename(dot.name, target, src_dir_fd=dot.dir_fd, dst_dir_fd=dot.dir_fd)
        except OSError as exc:
            return (
                f"[pi: {link} is a gitlink to a repository that appeared in this run, and pi "
                f"could not disarm it: {exc}. Do not leave it for the user's git.]"
            )
        return (
            f"[pi: {link} is now a gitlink (submodule) to a repository that appeared during this "
            "run: the user's next `git status` would run its configuration (hooks, "
            f"core.fsmonitor) outside the sandbox. pi renamed {link}/.git to {link}/{target}; the "
            "user can rename it back after reviewing it.]"
        )


def _signature(path: Path | None) -> tuple[int, int, int] | None:
    if path is None:
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns
