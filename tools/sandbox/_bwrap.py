"""The bubblewrap command line of pi's sandbox, and the probe that finds one that works here.

Same paths inside as outside: ``/`` read-only, a fresh ``/proc`` and ``/dev``, private tmpfs
``/tmp``, ``/var/tmp`` and ``/run``, then the writable binds, then the git directories' mounts
(:mod:`tools.sandbox._git_layout`), then the hidden paths (an empty read-only tmpfs over a directory,
``/dev/null`` over a file), then the protected paths that exist, read-only (bound onto
themselves, so they can be neither written, replaced nor renamed). Every mount point exists
before bubblewrap runs: it never creates one in the user's project (see
:mod:`tools.sandbox._watch` for the missing protected paths).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ISOLATION = (
    "--unshare-all",  # user, pid, ipc, uts, net, cgroup namespaces
    "--unshare-user",  # explicit: needed for --disable-userns, also as root
    "--disable-userns",  # no nested user namespace (it could undo the read-only binds)
    "--new-session",  # no TIOCSTI into pi's terminal
    "--cap-drop",
    "ALL",  # root inside keeps no capability: no remount, mknod, chroot, setns
)
PRIVATE: tuple[str, ...] = ("/tmp", "/var/tmp", "/run")
"""Each a private, empty tmpfs inside (the host's are not visible)."""
DIE_WITH_PARENT = "--die-with-parent"
"""SIGKILL the sandbox when pi dies, even by ``kill -9`` (omitted when background shells are kept)."""

WEAKER: tuple[tuple[tuple[str, ...], str], ...] = (
    (("--disable-userns",), "nested user namespaces are not blocked (needs bubblewrap >= 0.8)"),
    (
        ("--disable-userns", "--unshare-user"),
        "no user namespace (root only: capabilities are still dropped)",
    ),
)
"""Flags dropped, in order, when the strongest configuration fails, with what that costs."""


@dataclass(frozen=True)
class Probe:
    """Whether bubblewrap works here, and with which isolation flags."""

    ok: bool
    bwrap: str | None = None
    flags: tuple[str, ...] = ()
    reason: str | None = None
    """Why there is no sandbox (``ok`` False)."""
    weaker: tuple[str, ...] = ()
    """What the working configuration lacks compared with the strongest one."""


def _try(bwrap: str, flags: Sequence[str]) -> str | None:
    """None when ``bwrap flags`` runs ``true`` here, else its error."""
    argv = [bwrap, *flags, "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    return done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"


def probe(bwrap: str | None = None) -> Probe:
    """Find the strongest working configuration (a few milliseconds per attempt)."""
    if not sys.platform.startswith("linux"):
        return Probe(False, reason="the sandbox uses bubblewrap, which needs Linux")
    path = bwrap or shutil.which("bwrap")
    if path is None or not os.access(path, os.X_OK):
        return Probe(False, reason="bubblewrap (bwrap) is not installed")
    flags: tuple[str, ...] = ISOLATION
    error = _try(path, flags)
    if error is None:
        return Probe(True, path, flags)
    first = error
    for dropped, cost in WEAKER:
        flags = tuple(flag for flag in ISOLATION if flag not in dropped)
        if _try(path, flags) is None:
            return Probe(True, path, flags, weaker=(cost,))
    return Probe(False, path, reason=f"bubblewrap cannot create namespaces here: {first}")


@dataclass
class Layout:
    """What the sandbox shows: every path absolute, as on the host."""

    workspace: Path
    writable: list[Path] = field(default_factory=list)
    git: list[tuple[str, Path]] = field(default_factory=list)
    """The git directories' mounts, in order (``bind`` or ``ro-bind``, each onto itself; see
    :mod:`tools.sandbox._git_layout`): a mount point can be neither renamed nor replaced."""
    hidden: list[Path] = field(default_factory=list)
    protected: list[Path] = field(default_factory=list)
    """Read-only even inside a writable path, when they exist. A missing one gets no mount
    point (it would be an entry in the user's project): :mod:`tools.sandbox._watch` moves one
    that a command creates out of the project."""
    runtime: list[Path] = field(default_factory=list)
    """What pi's process helper needs to start inside (its interpreter, the helper's folder):
    bound read-only again where a private or hidden directory would cover it (pi under /tmp)."""
    network: bool = False


def _existing(paths: Iterable[Path]) -> list[Path]:
    seen: list[Path] = []
    for path in paths:
        if os.path.lexists(path) and path not in seen:
            seen.append(path)
    return seen


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def mount_args(layout: Layout) -> list[str]:
    """The mount arguments (every mount point exists: bubblewrap creates none in the project)."""
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for private in PRIVATE:
        if os.path.isdir(private) and not os.path.islink(private):
            args += ["--tmpfs", private]
    args += _run_keep()
    writable = _existing([layout.workspace, *layout.writable])
    for path in writable:
        args += ["--bind", str(path), str(path)]
    for kind, path in layout.git:
        if os.path.lexists(path):
            args += [f"--{kind}", str(path), str(path)]
    hidden = _existing([*layout.hidden, *(p.resolve() for p in layout.hidden if p.is_symlink())])
    args += _hide(_around(hidden, writable))
    covered = [Path(p) for p in PRIVATE] + hidden
    for path in _existing(layout.runtime):
        # Only what a private or hidden directory covers, and never over a writable place.
        if _inside(path, covered) and not _inside(path, writable):
            if not any(_inside(w, [path]) for w in writable):
                args += ["--ro-bind", str(path), str(path)]
    for path in layout.protected:
        # A symlink is protected where it points, if listed; a missing one gets no mount point.
        if os.path.lexists(path) and not path.is_symlink():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--chdir", str(layout.workspace)]
    return args


def _hide(paths: list[Path]) -> list[str]:
    """An empty read-only directory over each hidden directory, ``/dev/null`` over each file."""
    args: list[str] = []
    for path in paths:
        if path.is_symlink():
            continue  # its target is hidden instead
        if path.is_dir():
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
        else:
            args += ["--ro-bind", "/dev/null", str(path)]
    return args


def _around(hidden: list[Path], keep: list[Path]) -> list[Path]:
    """``hidden``, with a directory holding a writable path (``PI_HOME`` around the workspace)
    replaced by its other entries, recursively, so the writable path stays visible."""
    result: list[Path] = []
    for path in hidden:
        inner = [k for k in keep if k != path and k.is_relative_to(path)]
        if not inner:
            result.append(path)
            continue
        try:
            entries = sorted(path.iterdir())
        except OSError:
            continue
        result += _around([entry for entry in entries if entry not in inner], inner)
    return result


def _run_keep() -> list[str]:
    """What of ``/run`` must stay under the private tmpfs: DNS config (often a symlink into
    /run) and NixOS's system profile. Sockets (docker, dbus, agents) stay hidden."""
    keep: list[str] = []
    resolv = Path("/etc/resolv.conf")
    with_parent = []
    if resolv.is_symlink():
        target = resolv.resolve()
        if target.is_relative_to("/run") and target.exists():
            with_parent.append(target.parent)
    for path in [*with_parent, Path("/run/current-system")]:
        if path.exists():
            keep += ["--ro-bind", str(path), str(path)]
    return keep


def command(probe_result: Probe, layout: Layout, *, die_with_parent: bool) -> list[str]:
    """The bubblewrap prefix (up to ``--``)."""
    assert probe_result.bwrap is not None
    flags = list(probe_result.flags)
    if die_with_parent:
        flags.append(DIE_WITH_PARENT)
    if layout.network:
        flags.append("--share-net")
    return [probe_result.bwrap, *flags, *mount_args(layout), "--"]


_CREATED_TEXT = {"commondir": ".\n"}
"""What pi writes into the git entries it creates (``commondir``: "this directory"; others:
nothing)."""


def create_entries(directories: Iterable[Path], files: Iterable[Path]) -> list[Path]:
    """Create the missing read-only git entries (empty directories; ``commondir`` holding ``.``,
    an empty ``config.worktree``) before the sandbox binds them; what was created, to remove."""
    created: list[Path] = []
    for path in directories:
        with contextlib.suppress(OSError):
            path.mkdir()
            created.append(path)
    for path in files:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        except OSError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(_CREATED_TEXT.get(path.name, ""))
        created.append(path)
    return created


def remove_placeholders(paths: Iterable[Path]) -> None:
    """Remove what pi created for the sandbox, only as it created it: an empty directory, a
    file still holding what pi wrote (never anything else)."""
    for path in paths:
        try:
            if path.is_symlink():
                continue
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()
            elif path.is_file() and path.read_text() == _CREATED_TEXT.get(path.name, ""):
                path.unlink()
        except OSError:
            pass


def _manifests() -> Path:
    return Path(tempfile.gettempdir()) / f"pi-placeholders-{os.getuid()}"


def record_placeholders(paths: Sequence[Path]) -> Path | None:
    """Note this process's placeholders, so a later pi removes them if this one is killed."""
    if not paths:
        return None
    directory = _manifests()
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f"{os.getpid()}-", suffix=".txt", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("\n".join(str(p) for p in paths) + "\n")
    except OSError:
        return None
    return Path(name)


def sweep_placeholders() -> None:
    """Remove the placeholders of pi processes that died without cleaning up (``kill -9``)."""
    try:
        manifests = list(_manifests().glob("*.txt"))
    except OSError:
        return
    for manifest in manifests:
        pid = int(manifest.name.split("-")[0]) if manifest.name.split("-")[0].isdigit() else 0
        if pid and _running(pid):  # a live pi (this one too) still uses them
            continue
        try:
            paths = [Path(line) for line in manifest.read_text(encoding="utf-8").splitlines()]
        except OSError:
            continue
        remove_placeholders(p for p in paths if p.is_absolute())
        with contextlib.suppress(OSError):
            manifest.unlink()


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
