"""Fixtures of the server suite: a fake provider, a project, and a running ``pi serve``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.home import fake_home, project
from tests.fakes.provider_server import FakeProviderServer
from tests.server.harness import ServerProcess
from tests.server.terminal import env

__all__ = ["env", "fake_home", "project"]


@pytest.fixture
def provider() -> Iterator[FakeProviderServer]:
    """The fake model (tests add turns)."""
    with FakeProviderServer() as fake:
        yield fake


@pytest.fixture
def serve(pi_home: Path) -> Iterator[Callable[..., ServerProcess]]:
    """Start ``pi serve`` (stopped, and checked to stop cleanly, at the end)."""
    started: list[ServerProcess] = []

    def start(*args: str, env: dict[str, str] | None = None) -> ServerProcess:
        server = ServerProcess(pi_home, *args, env=env)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def server(serve: Callable[..., ServerProcess]) -> ServerProcess:
    """One running server."""
    return serve()


@pytest.fixture
def model(provider: FakeProviderServer) -> dict[str, Any]:
    """Session options pointing at the fake provider."""
    return {"model": "openai/fake-model", "apiBase": provider.openai_base_url, "apiKey": "x"}
