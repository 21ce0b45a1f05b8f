"""The same conformance cases routed through litellm (api_base pointed at the fake server).

Kept in its own module: importing litellm costs ~5 s, and xdist can run it beside the rest.
"""

from __future__ import annotations

import pytest

from tests.agent_core.providers.conformance import CASES, PROTOCOLS, run_case
from tests.agent_core.providers.seed import run_seed


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("case", sorted(CASES))
async def test_litellm(case: str, protocol: str) -> None:
    await run_case(case, protocol, "litellm")


@pytest.mark.parametrize("protocol", PROTOCOLS)
async def test_seed_scenario_litellm(protocol: str) -> None:
    await run_seed(protocol, "litellm")
