"""Conformance cases through the native httpx transports (OpenAI Chat Completions and Responses,
Anthropic)."""

from __future__ import annotations

import pytest

from tests.agent_core.providers.conformance import CASES, NATIVE_PROTOCOLS, run_case
from tests.agent_core.providers.seed import run_seed


@pytest.mark.parametrize("protocol", NATIVE_PROTOCOLS)
@pytest.mark.parametrize("case", sorted(CASES))
async def test_native(case: str, protocol: str) -> None:
    await run_case(case, protocol, "native")


@pytest.mark.parametrize("protocol", NATIVE_PROTOCOLS)
async def test_seed_scenario_native(protocol: str) -> None:
    await run_seed(protocol, "native")
