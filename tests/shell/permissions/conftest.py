"""Fixtures: the real `pi` CLI as a subprocess against fake provider servers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer

REPO = Path(__file__).resolve().parents[3]
RunPi = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(autouse=True)
def _no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about approvals where no sandbox contains bash (``auto`` asks then);
    with the sandbox active ``auto`` runs commands inside it (tests/tools/sandbox tests that)."""
    monkeypatch.setenv("PI_SANDBOX_MODE", "off")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small project directory."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "package.json").write_text('{"name": "hello", "main": "hello.mjs"}\n')
    (root / "hello.mjs").write_text('console.log("Hello, world!");\n')
    return root


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    """A fake provider (tests add turns)."""
    with FakeProviderServer() as fake:
        yield fake


@pytest.fixture
def run_pi(project: Path, pi_home: Path) -> RunPi:
    """Run `pi` in the project; no provider key unless the test passes one in ``env``."""

    def run(
        *args: str,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        input: str = "",
        timeout: float = 60,
    ) -> subprocess.CompletedProcess[str]:
        full = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        full.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
        full.update(env or {})
        return subprocess.run(
            [sys.executable, "-m", "pi_cli.cli", *args],
            cwd=cwd or project,
            env=full,
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


def fake_args(server: FakeProviderServer, *extra: str) -> list[str]:
    """Point pi at the fake server (OpenAI protocol), no session file unless asked."""
    return ["--model", "openai/fake-model", "--api-base", server.openai_base_url, *extra]


def tool_results(body: dict) -> list[str]:
    """The tool result texts in an OpenAI request body."""
    out = []
    for message in body["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            out.append(content if isinstance(content, str) else json.dumps(content))
    return out


def session_text(pi_home: Path) -> str:
    """Every session file's content."""
    return "".join(p.read_text() for p in (pi_home / "sessions").glob("*/*.jsonl"))
