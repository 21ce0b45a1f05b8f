"""Running ``git`` on a workspace's shadow repository, isolated from the user's git setup.

The shadow repository lives in ``PI_HOME/checkpoints/<workspace slug>/git`` and is always
named by ``GIT_DIR`` (git never discovers the user's ``.git``, so it never reads or writes its
index, refs, stash or hooks). Every call runs with ``GIT_CONFIG_GLOBAL=/dev/null`` and
``GIT_CONFIG_NOSYSTEM=1`` and a repository config of our own: no hooks, no fsmonitor, no
excludes or attributes files of the user, no CRLF conversion; ``info/attributes`` turns off
every filter, so snapshots hold the bytes on disk and restores write them back unchanged.
Each session has its own index file, so two sessions in one workspace never share a lock.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from pi_cli.shell.paths import cwd_slug, pi_home

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no locking
    fcntl = None  # type: ignore[assignment]

GIT_TIMEOUT_S = 120.0
_CONFIG = """[core]
\trepositoryformatversion = 0
\tbare = false
\tfilemode = true
\tsymlinks = true
\tlogallrefupdates = false
\tautocrlf = false
\tsafecrlf = false
\tfsmonitor = false
\tuntrackedCache = false
\thooksPath = {null}
\texcludesFile = {null}
\tattributesFile = {null}
\tquotePath = false
\tpreloadIndex = true
[gc]
\tauto = 0
[index]
\tskipHash = false
"""
# Highest-priority attributes: no line-ending conversion, no filter, no ident, no re-encoding.
_ATTRIBUTES = "* -text -eol -crlf -filter -ident -working-tree-encoding\n"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


class GitError(Exception):
    """git is missing or a git command failed (the message says which and why)."""


def git_available() -> bool:
    """Whether the ``git`` binary is on PATH."""
    return shutil.which("git") is not None


def safe_name(text: str) -> str:
    """A file-name-safe form of a session id."""
    return _SAFE_NAME.sub("_", text)[:120] or "_"


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` (created) for the duration of the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _replace(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all (another pi's git may be reading it), if it differs."""
    try:
        if path.read_text() == text:
            return
    except OSError:
        pass
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text)
    temporary.replace(path)


class ShadowGit:
    """The shadow repository of one workspace and the plumbing commands run on it."""

    def __init__(self, workspace: Path, root: Path | None = None) -> None:
        self.workspace = workspace.resolve()
        self.root = root or pi_home() / "checkpoints" / cwd_slug(self.workspace)
        self.git_dir = self.root / "git"
        self.index_dir = self.root / "indexes"
        self._ready = False

    # ------------------------------------------------------------------ running git

    def env(self, index: Path | None = None) -> dict[str, str]:
        """The environment of every call: none of the caller's ``GIT_*`` variables survive."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            GIT_DIR=str(self.git_dir),
            GIT_WORK_TREE=str(self.workspace),
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_CONFIG_NOSYSTEM="1",
            GIT_ATTR_NOSYSTEM="1",
            GIT_TERMINAL_PROMPT="0",
            GIT_NO_REPLACE_OBJECTS="1",
            GIT_AUTHOR_NAME="pi",
            GIT_AUTHOR_EMAIL="pi@localhost",
            GIT_COMMITTER_NAME="pi",
            GIT_COMMITTER_EMAIL="pi@localhost",
            LC_ALL="C",
        )
        if index is not None:
            env["GIT_INDEX_FILE"] = str(index)
        return env

    def run(
        self,
        *args: str,
        index: Path | None = None,
        stdin: bytes | None = None,
        timeout: float = GIT_TIMEOUT_S,
        ok_codes: tuple[int, ...] = (0,),
    ) -> bytes:
        """Run ``git args`` in the workspace; its stdout (raises :class:`GitError`)."""
        try:
            done = subprocess.run(
                ["git", *args],
                cwd=self.workspace,
                env=self.env(index),
                input=stdin if stdin is not None else b"",
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except FileNotFoundError:
            if not self.workspace.is_dir():
                raise GitError(f"the workspace {self.workspace} no longer exists") from None
            raise GitError("git is not installed") from None
        except subprocess.TimeoutExpired:
            raise GitError(f"git {args[0]} took longer than {timeout:.0f} s") from None
        except OSError as exc:
            raise GitError(f"cannot run git: {exc.strerror or exc}") from None
        if done.returncode not in ok_codes:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            detail = message[-1] if message else f"exit code {done.returncode}"
            raise GitError(f"git {args[0]} failed: {detail}")
        return done.stdout

    # ------------------------------------------------------------------ the repository

    def ensure(self) -> None:
        """Create the repository on first use (under a lock: two pi processes may start)."""
        if self._ready:
            return
        with file_lock(self.root / "init.lock"):
            if not (self.git_dir / "HEAD").is_file():
                template = self.root / "template"
                template.mkdir(parents=True, exist_ok=True)  # empty: no sample hooks
                env = {k: v for k, v in self.env().items() if k != "GIT_WORK_TREE"}
                try:
                    done = subprocess.run(
                        ["git", "init", "-q", f"--template={template}"],
                        cwd=self.root,
                        env=env,
                        capture_output=True,
                        timeout=GIT_TIMEOUT_S,
                        check=False,
                    )
                except (OSError, subprocess.TimeoutExpired) as exc:
                    raise GitError(f"cannot create the checkpoint repository: {exc}") from None
                if done.returncode != 0:
                    detail = done.stderr.decode("utf-8", "replace").strip()
                    raise GitError(f"cannot create the checkpoint repository: {detail}")
            info = self.git_dir / "info"
            info.mkdir(exist_ok=True)
            _replace(self.git_dir / "config", _CONFIG.format(null=os.devnull))
            _replace(info / "attributes", _ATTRIBUTES)
            _replace(info / "exclude", self._excludes())
        self.index_dir.mkdir(parents=True, exist_ok=True)
        self._ready = True

    def _excludes(self) -> str:
        """Never snapshot pi's own files (PI_HOME inside the workspace); the user's repository
        ``info/exclude`` counts as a ``.gitignore`` (read, never written)."""
        lines = ["# written by pi"]
        try:
            inside = pi_home().resolve().relative_to(self.workspace)
        except (ValueError, OSError):
            inside = None
        if inside is not None and str(inside) != ".":
            lines.append("/" + inside.as_posix() + "/")
        user_exclude = self.workspace / ".git" / "info" / "exclude"
        with contextlib.suppress(OSError, UnicodeDecodeError):
            if user_exclude.is_file():
                lines.append(user_exclude.read_text(encoding="utf-8"))
        return "\n".join(lines) + "\n"

    def index_for(self, session_id: str) -> Path:
        """The session's index file; a new one starts as a copy of the newest (its stat data
        spares re-reading unchanged files)."""
        path = self.index_dir / safe_name(session_id)
        if not path.exists():
            others = [p for p in self.index_dir.iterdir() if p.is_file() and "." not in p.name]
            newest = max(others, key=lambda p: p.stat().st_mtime, default=None)
            if newest is not None:
                with contextlib.suppress(OSError):
                    shutil.copyfile(newest, path)
        return path

    def session_lock(self, session_id: str) -> contextlib.AbstractContextManager[None]:
        """Serialises snapshots of one session (two processes may share a session file)."""
        return file_lock(self.root / "locks" / f"{safe_name(session_id)}.lock")

    def ref(self, session_id: str) -> str:
        """The ref keeping a session's snapshots alive."""
        return f"refs/pi/sessions/{safe_name(session_id)}"

    def has_object(self, sha: str) -> bool:
        """Whether ``sha`` (a tree) is still in the repository (not pruned)."""
        try:
            self.run("cat-file", "-e", sha)
        except GitError:
            return False
        return True
