"""``pi plugin`` end to end: a real marketplace from a local git repository, installed, then a
one-shot whose ``/debugging-toolkit:smart-debug`` reaches the fake provider expanded; and
``--plugin-dir`` loading a plugin for one session."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunPi, openai_args
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.shell.plugins.conftest import WSHOBSON, market_repo, needs_fixtures  # noqa: F401

ID = "debugging-toolkit@claude-code-workflows"


@needs_fixtures
def test_install_and_run_a_plugin_command(
    server: FakeProviderServer,
    run_pi: RunPi,
    market_repo: Path,  # noqa: F811
    pi_home: Path,
) -> None:
    added = run_pi("plugin", "marketplace", "add", f"file://{market_repo}")
    assert added.returncode == 0, added.stderr
    assert "Added marketplace claude-code-workflows (2 plugins)" in added.stdout
    done = run_pi("plugin", "install", ID)
    assert done.returncode == 0 and "(1 command, 2 agents)" in done.stdout, done.stderr
    listed = run_pi("plugin", "list")
    assert listed.stdout.startswith(f"{ID}  enabled  1.2.1 @ ")
    server.add(Turn(text="Triage: a None reached len()."))
    result = run_pi(
        *openai_args(server), "-p", "/debugging-toolkit:smart-debug TypeError: len(None)"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Triage: a None reached len().\n"
    prompt = json.dumps(server.requests[0]["messages"][-1]["content"])
    assert "Process issue from: TypeError: len(None)" in prompt
    bad = run_pi("plugin", "install", "nope@claude-code-workflows")
    assert bad.returncode == 1 and "has no plugin 'nope'" in bad.stderr


@needs_fixtures
def test_plugin_dir_for_one_session(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn(text="ok"))
    plugin = WSHOBSON / "plugins" / "debugging-toolkit"
    result = run_pi(
        *openai_args(server), "--plugin-dir", str(plugin), "-p", "/debugging-toolkit:smart-debug x"
    )
    assert result.returncode == 0, result.stderr
    assert "Process issue from: x" in json.dumps(server.requests[0]["messages"])


def test_pi_plugin_words_that_are_no_verb_stay_a_prompt(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    server.add(Turn(text="sure"))
    result = run_pi(*openai_args(server), "plugin", "this", "in")
    assert result.returncode == 0 and result.stdout == "sure\n", result.stderr
