"""pi's real npm package, installed by ``.ci/run`` into a cache directory (never at test time).

Tests that compare with pi (its ``RpcClient``, its skill loader, its YAML parser) call
:func:`require_pi_package`, which skips with the reason when node or the cache is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

PI_PACKAGE = "@mariozechner/pi-coding-agent"
PI_VERSION = "0.73.1"
# Computed at import, before fixtures point HOME at a temporary directory.
CACHE = Path(
    os.environ.get("PI_TEST_NPM_CACHE") or Path.home() / ".cache" / "pi-test" / "npm"
).expanduser()
PACKAGE_DIR = CACHE / "node_modules" / PI_PACKAGE
YAML_MODULE = CACHE / "node_modules" / "yaml" / "dist" / "index.js"


def missing_reason() -> str | None:
    """Why pi's package cannot be used here, or ``None`` when it can."""
    if shutil.which("node") is None:
        return "node is not installed (.ci/run installs it)"
    version = _node_version()
    if version < (20, 6):
        return f"node {'.'.join(map(str, version))} is older than 20.6, which pi {PI_VERSION} needs"
    manifest = PACKAGE_DIR / "package.json"
    if not manifest.is_file():
        return (
            f"{PI_PACKAGE}@{PI_VERSION} is not installed in {CACHE} "
            "(.ci/run installs it; or set PI_TEST_NPM_CACHE)"
        )
    installed = json.loads(manifest.read_text()).get("version")
    if installed != PI_VERSION:
        return f"{CACHE} holds {PI_PACKAGE}@{installed}, not {PI_VERSION}"
    return None


def _node_version() -> tuple[int, ...]:
    done = subprocess.run(["node", "--version"], capture_output=True, text=True, check=False)
    try:
        return tuple(int(part) for part in done.stdout.strip().lstrip("v").split(".")[:2])
    except ValueError:
        return (0,)


def require_pi_package() -> Path:
    """The package directory; skips the test (with the reason) when it is not installed."""
    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    return PACKAGE_DIR


def run_node(script: str, *args: str, timeout: float = 60) -> Any:
    """Run an ES module ``script`` (source text) with node; returns its JSON stdout."""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, "--", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"node failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout)
