"""The third-party fixtures shared beside the checkout (``../shared/fixtures``), also from a git
worktree of it (then beside the main checkout); ``PI_SHARED_FIXTURES`` names another place."""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@cache
def shared_fixtures() -> Path | None:
    """The ``shared/fixtures`` folder, or None when there is none."""
    if os.environ.get("PI_SHARED_FIXTURES"):
        return Path(os.environ["PI_SHARED_FIXTURES"])
    candidates = [REPO.parent / "shared" / "fixtures"]
    try:
        common = subprocess.run(
            ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        candidates.append(Path(common).parent.parent / "shared" / "fixtures")
    except (OSError, subprocess.CalledProcessError):
        pass
    return next((c for c in candidates if c.is_dir()), None)


def shared(relative: str) -> Path:
    """A path under the shared fixtures (it may not exist: check before use)."""
    root = shared_fixtures()
    return (root / relative) if root is not None else Path("/nonexistent") / relative
