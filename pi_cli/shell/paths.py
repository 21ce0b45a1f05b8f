"""Where pi keeps its files: ``PI_HOME`` (default ``~/.pi``) and per-project ``.pi/``; the
user's editor."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path


def editor_command(env: dict[str, str] | None = None) -> list[str]:
    """The user's editor as argv (``$VISUAL``, then ``$EDITOR``, then ``vi``)."""
    env = dict(os.environ) if env is None else env
    value = env.get("VISUAL") or env.get("EDITOR") or "vi"
    try:
        return shlex.split(value) or ["vi"]
    except ValueError:
        return value.split() or ["vi"]


def pi_home() -> Path:
    """The global pi directory (``$PI_HOME`` or ``~/.pi``)."""
    value = os.environ.get("PI_HOME")
    return Path(value).expanduser() if value else Path.home() / ".pi"


def pi_ts_home() -> Path | None:
    """The TypeScript pi's home (``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``), read as a fallback
    layer under pi's own (models.json, settings.json, skills, prompts, themes); ``None`` when it
    does not exist or ``PI_IGNORE_PI_TS_HOME`` is set."""
    if os.environ.get("PI_IGNORE_PI_TS_HOME"):
        return None
    value = os.environ.get("PI_CODING_AGENT_DIR")
    path = Path(value).expanduser() if value else Path.home() / ".pi" / "agent"
    return path if path.is_dir() and path != pi_home() else None


def project_dir(cwd: Path) -> Path:
    """The project's ``.pi`` directory."""
    return cwd / ".pi"


def cwd_slug(cwd: Path) -> str:
    """A file-name-safe slug of a working directory (``/a/b c`` -> ``--a-b-c--``)."""
    text = str(cwd.resolve()).strip("/\\")
    return "--" + re.sub(r"[^A-Za-z0-9._-]+", "-", text) + "--"


def sessions_dir(cwd: Path) -> Path:
    """The directory holding this working directory's session files."""
    return pi_home() / "sessions" / cwd_slug(cwd)


def git_root(cwd: Path) -> Path | None:
    """The nearest directory at or above ``cwd`` holding ``.git``."""
    for directory in (cwd, *cwd.parents):
        if (directory / ".git").exists():
            return directory
    return None


def project_profile_files(cwd: Path) -> list[Path]:
    """The project's profile files (for the trust check: they need trust to load)."""
    found: list[Path] = []
    for directory in (cwd / ".pi" / "agents", cwd / ".claude" / "agents"):
        if directory.is_dir():
            found.extend(sorted(p for p in directory.glob("*.md") if p.is_file()))
    return found


def models_files() -> list[Path]:
    """``$PI_HOME/models.json`` (custom providers), then the TypeScript pi's (a fallback: a
    provider declared in both is pi's)."""
    pi_ts = pi_ts_home()
    return [pi_home() / "models.json", *([pi_ts / "models.json"] if pi_ts else [])]
