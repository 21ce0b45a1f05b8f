"""What start-up leaves out (HTTP/2, the whole model map, collections while the shell is
built) changes nothing a user sees: the one-shot works, and the process ends up as usual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import REPO, openai_args
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import SEED_FINAL_TEXT, seed_script

PROBE = """
import gc, sys
from pi_cli.cli import main
code = main(sys.argv[1:])
loaded = sorted({m.split('.')[0] for m in sys.modules} & {'h2', 'hpack', 'textual', 'litellm'})
print('STATE', code, gc.isenabled(), loaded, gc.get_freeze_count() > 0, file=sys.stderr)
"""


def test_one_shot_without_http2_with_gc_back_on(project: Path, pi_home: Path) -> None:
    import os

    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    with FakeProviderServer(seed_script()) as server:
        result = subprocess.run(
            [sys.executable, "-c", PROBE, *openai_args(server), "explain this project"],
            capture_output=True,
            text=True,
            cwd=project,
            env=env,
            timeout=60,
        )
    assert result.stdout.strip() == SEED_FINAL_TEXT
    assert "STATE 0 True [] True" in result.stderr, result.stderr


def test_http2_still_works_for_whoever_asks_later() -> None:
    import importlib.util

    import pytest

    if importlib.util.find_spec("h2") is None:
        pytest.skip("h2 is not installed: nothing is hidden")
    probe = (
        "from agent_core.providers._wire.clients import async_client\n"
        "import asyncio, sys\n"
        "async def go():\n"
        "    client = async_client()\n"
        "    await client.aclose()\n"
        "asyncio.run(go())\n"
        "print('h2' in sys.modules, end=' ')\n"
        "import httpcore._async.http2, h2.connection\n"
        "print('ok')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=30
    )
    assert result.stdout.strip() == "False ok", result.stderr


def test_a_command_that_builds_no_shell_leaves_gc_on(pi_home: Path, capsys: object) -> None:
    import gc

    from pi_cli.cli import main

    assert main(["--list-models"]) == 0  # parsed by the fast parser, and no shell is built
    assert gc.isenabled()
