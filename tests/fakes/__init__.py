"""Test doubles shared by every test suite: the fake LLM provider server and its scripts."""

from __future__ import annotations

from typing import Any

from tests.fakes.script import (
    SEED_FINAL_TEXT,
    ToolCallSpec,
    Turn,
    UsageSpec,
    dump_script,
    load_script,
    seed_script,
)

__all__ = [
    "EXHAUSTED",
    "FakeProviderServer",
    "SEED_FINAL_TEXT",
    "ToolCallSpec",
    "Turn",
    "UsageSpec",
    "dump_script",
    "load_script",
    "seed_script",
]


def __getattr__(name: str) -> Any:
    # Lazy, so `python -m tests.fakes.provider_server` does not import itself twice.
    if name in ("FakeProviderServer", "EXHAUSTED"):
        from tests.fakes import provider_server

        return getattr(provider_server, name)
    raise AttributeError(name)
