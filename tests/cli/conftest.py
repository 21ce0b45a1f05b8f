"""Fixtures for end-to-end runs of the real `pi` CLI against the fake provider server."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A tiny Node.js project: the seed scenario's working directory."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "package.json").write_text(
        '{\n  "name": "hello",\n  "version": "1.0.0",\n  "main": "hello.mjs"\n}\n'
    )
    (root / "hello.mjs").write_text('console.log("Hello, world!");\n')
    return root


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    """A started fake provider server with an empty script (tests add turns)."""
    with FakeProviderServer() as fake:
        yield fake


RunPi = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_pi(project: Path, pi_home: Path) -> RunPi:
    """Run `pi` as a subprocess in the project directory."""

    def run(
        *args: str,
        input: str | None = None,
        timeout: float = 60,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        full_env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        full_env.update(
            {"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"}
        )
        full_env.update(env or {})
        return subprocess.run(
            [sys.executable, "-m", "pi_cli.cli", *args],
            cwd=cwd or project,
            env=full_env,
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


def openai_args(server: FakeProviderServer) -> list[str]:
    """Flags pointing pi at the fake server's OpenAI endpoint."""
    return [
        "--model",
        "openai/fake-model",
        "--api-base",
        server.openai_base_url,
        "--api-key",
        "sk-test-secret",
    ]


def anthropic_args(server: FakeProviderServer) -> list[str]:
    """Flags pointing pi at the fake server's Anthropic endpoint."""
    return [
        "--model",
        "anthropic/claude-sonnet-4-5",
        "--api-base",
        server.anthropic_base_url,
        "--api-key",
        "sk-ant-test-secret",
    ]
