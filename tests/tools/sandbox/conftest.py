"""Fixtures for the sandbox and containment tests: bubblewrap's probe (skip with its reason)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.tools.sandbox.procs import kill_leftovers
from tools.sandbox import _bwrap

_PROBE: _bwrap.Probe | None = None


def probe() -> _bwrap.Probe:
    """The bubblewrap probe, run once per worker."""
    global _PROBE
    if _PROBE is None:
        _PROBE = _bwrap.probe()
    return _PROBE


@pytest.fixture
def bwrap() -> _bwrap.Probe:
    """Skip, with the probe's reason, where the sandbox cannot run."""
    result = probe()
    if not result.ok:
        pytest.skip(f"no sandbox here: {result.reason}")
    return result


@pytest.fixture(params=["outside", "inside"])
def where(request: pytest.FixtureRequest) -> str:
    """Run a containment test unsandboxed and sandboxed (skipped without bubblewrap)."""
    if request.param == "inside" and not probe().ok:
        pytest.skip(f"no sandbox here: {probe().reason}")
    return str(request.param)


@pytest.fixture(autouse=True)
def _no_strays() -> Iterator[None]:
    """A failed test must not leave its daemons running on the shared machine."""
    yield
    kill_leftovers()
