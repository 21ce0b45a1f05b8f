"""A TypeScript pi user's ``~/.pi/agent`` works as it is: its models.json custom provider (key
from an environment variable, a command, or literal), its settings' default model and thinking,
its skills and prompt templates; pi's own files win where both say something."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import REPO
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn


def pi_ts_home(home: Path, server: FakeProviderServer, api_key: str) -> Path:
    agent = home / ".pi" / "agent"
    (agent / "skills" / "helper").mkdir(parents=True)
    (agent / "prompts").mkdir()
    models = {
        "providers": {
            "fake": {
                "baseUrl": server.openai_base_url,
                "api": "openai-completions",
                "apiKey": api_key,
                "models": [{"id": "fake-model", "reasoning": True, "contextWindow": 100000}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models, indent=2))
    settings = {
        "defaultProvider": "fake",
        "defaultModel": "fake-model",
        "defaultThinkingLevel": "low",
        "hideThinkingBlock": True,  # the TypeScript pi's own: left alone
        "packages": ["npm:@foo/bar"],
    }
    (agent / "settings.json").write_text(json.dumps(settings))
    (agent / "skills" / "helper" / "SKILL.md").write_text(
        "---\nname: helper\ndescription: Helps with things.\n---\nHelp."
    )
    (agent / "prompts" / "audit.md").write_text("---\ndescription: Audit\n---\nReview $1 now")
    return agent


def run(
    home: Path, cwd: Path, *args: str, extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.pop("PI_HOME", None)  # pi's home is ~/.pi, the TypeScript pi's ~/.pi/agent inside it
    env.update({"HOME": str(home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    env.update(extra or {})
    return subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60, input="",
    )  # fmt: skip


def test_models_settings_skills_and_prompts_of_the_typescript_pi(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with FakeProviderServer([Turn(text="Hi from fake."), Turn(text="Reviewed.")]) as server:
        pi_ts_home(home, server, "FAKE_PROVIDER_KEY")
        done = run(home, project, "-p", "hello", extra={"FAKE_PROVIDER_KEY": "sk-from-env"})
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "Hi from fake."
        first = server.requests[0]
        assert first["model"] == "fake-model" and first.get("reasoning_effort") == "low"
        assert server.request_headers[0]["Authorization"] == "Bearer sk-from-env"
        assert "helper" in json.dumps(first)  # the TypeScript pi's skill is offered
        done = run(home, project, "-p", "/audit main.py", extra={"FAKE_PROVIDER_KEY": "sk-x"})
        assert done.returncode == 0, done.stderr
        assert "Review main.py now" in json.dumps(server.requests[1])


def test_a_key_from_a_command_and_pis_own_files_win(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    with FakeProviderServer([Turn(text="one"), Turn(text="two")]) as server:
        agent = pi_ts_home(home, server, "!printf 'sk-from-command\\n'")
        done = run(home, project, "-p", "hello")
        assert done.returncode == 0, done.stderr
        assert server.request_headers[0]["Authorization"] == "Bearer sk-from-command"
        # pi's own settings choose another model of the same provider: theirs is a fallback.
        (home / ".pi" / "settings.json").write_text(json.dumps({"model": "fake/fake-other"}))
        models = json.loads((agent / "models.json").read_text())
        models["providers"]["fake"]["models"].append({"id": "fake-other"})
        (agent / "models.json").write_text(json.dumps(models))
        done = run(home, project, "-p", "hello")
        assert done.returncode == 0, done.stderr
        assert server.requests[1]["model"] == "fake-other"


def test_without_it_an_unknown_provider_is_still_a_clear_error(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    home.mkdir()
    done = run(home, project, "--model", "fake/fake-model", "-p", "hello")
    assert done.returncode == 2 and 'Unknown provider "fake"' in done.stderr
