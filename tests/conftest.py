"""Shared fixtures: every test runs with a temporary PI_HOME and no provider keys."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import tools.sandbox.processes

# The test runner is not pi: as a child subreaper it would adopt, and never reap, the orphans of
# every test (a zombie answers kill(pid, 0)), and its exit sweep would end what other tests left
# for their fixtures. Containment is tested on real pi processes (tests/tools/sandbox/test_keepers.py).
tools.sandbox.processes._contained = True

_PROVIDER_ENV = (
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "OPENROUTER_API_KEY",
    "GEMINI_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "XAI_API_KEY",
    "MISTRAL_API_KEY",
    "OPENAI_BASE_URL",
    "PI_MODEL",
    "PI_TRANSPORT",
)


@pytest.fixture(autouse=True)
def pi_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh PI_HOME per test; provider keys removed so nothing reaches the network."""
    home = tmp_path_factory.mktemp("pi_home")
    monkeypatch.setenv("PI_HOME", str(home))
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    monkeypatch.setenv("PI_NO_LOCAL_PROBE", "1")
    monkeypatch.setenv("PI_KEYRING", "off")  # never the developer's own keyring (test_keyring.py)
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    os.environ.pop("NO_COLOR", None)
    return home
