"""The TypeScript pi (npm ``@mariozechner/pi-coding-agent``, installed by ``.ci/run`` for the
compatibility tests) run in the same harness as pi, against the same fake server."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

PACKAGE = (
    Path(os.environ.get("PI_TEST_NPM_CACHE") or Path.home() / ".cache" / "pi-test" / "npm")
    / "node_modules"
    / "@mariozechner"
    / "pi-coding-agent"
)
CLI = PACKAGE / "dist" / "cli.js"


def pi_ts_available() -> bool:
    """node and the package are here."""
    return CLI.is_file() and shutil.which("node") is not None


def pi_ts_argv(base_url: str, agent_dir: Path, *args: str) -> list[str]:
    """pi-ts against the fake server at ``base_url`` (a ``fake`` provider in its models.json)."""
    agent_dir.mkdir(parents=True, exist_ok=True)
    provider = {
        "baseUrl": base_url,
        "api": "openai-completions",
        "apiKey": "x",
        "models": [{"id": "fake-model"}],
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    node = shutil.which("node") or "node"
    return [node, str(CLI), "--provider", "fake", "--model", "fake-model", *args]


def pi_ts_env(base: dict[str, str], root: Path) -> dict[str, str]:
    """``base`` with pi-ts's agent directory and HOME under ``root``."""
    agent = root / "pi-ts-agent"
    return dict(base, HOME=str(root), PI_CODING_AGENT_DIR=str(agent))
