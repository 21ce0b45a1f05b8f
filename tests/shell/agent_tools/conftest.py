"""Shells on the fake provider server (real HTTP, real tools) for the agent tools' tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.fakes.provider_server import FakeProviderServer


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    """A started fake provider (tests add turns and routes)."""
    with FakeProviderServer() as fake:
        yield fake


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small project."""
    root = tmp_path / "project"
    root.mkdir()
    (root / "package.json").write_text('{"name": "hello", "main": "hello.mjs"}\n')
    (root / "hello.mjs").write_text('console.log("Hello, world!");\n')
    return root


REPO = Path(__file__).resolve().parents[3]
RunPi = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_pi(project: Path, pi_home: Path) -> RunPi:
    """Run `pi` as a subprocess in the project (no provider key unless the test passes one)."""

    def run(
        *args: str, input: str = "", timeout: float = 60, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        full = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        full.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
        full.update(env or {})
        return subprocess.run(
            [sys.executable, "-m", "pi_cli.cli", *args],
            cwd=project,
            env=full,
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    return run


def fake_args(server: FakeProviderServer, *extra: str) -> list[str]:
    """Flags pointing pi at the fake server, no session file."""
    return [
        "--model", "openai/fake-model", "--api-base", server.openai_base_url, "--api-key", "k",
        "--no-session", *extra,
    ]  # fmt: skip


def make_shell(project: Path, server: FakeProviderServer, **options: Any) -> CodingAgent:
    """A shell on the fake server's OpenAI endpoint (``options``: more ShellOptions)."""
    options.setdefault("model", "openai/fake-model")
    return CodingAgent(
        ShellOptions(
            cwd=project,
            api_base=server.openai_base_url,
            api_key="sk-test",
            **options,
        )
    )


def record(shell: CodingAgent) -> list[Any]:
    """Every event the shell emits from now on."""
    events: list[Any] = []
    shell.subscribe(events.append)
    return events


def priced_model(pi_home: Path, server: FakeProviderServer, dollars_per_m: float = 1e5) -> str:
    """A models.json provider on the fake server with known prices; returns its spec."""
    providers = {
        "fakepriced": {
            "baseUrl": server.openai_base_url,
            "api": "openai-completions",
            "apiKey": "k",
            "models": [
                {"id": "m", "cost": {"input": dollars_per_m, "output": dollars_per_m}},
                {"id": "free"},  # no price: --max-cost cannot use it
            ],
        }
    }
    (pi_home / "models.json").write_text(json.dumps({"providers": providers}))
    return "fakepriced/m"


def tool_texts(body: dict[str, Any]) -> list[str]:
    """The tool result texts in an OpenAI request body."""
    out = []
    for message in body["messages"]:
        if message["role"] == "tool":
            content = message["content"]
            out.append(content if isinstance(content, str) else json.dumps(content))
    return out


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offered."""
    return sorted(t["function"]["name"] for t in body.get("tools") or [])
