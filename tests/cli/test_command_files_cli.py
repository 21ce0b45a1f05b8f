"""Anthropic's ``/commit-push-pr`` (``../shared/fixtures``, © Anthropic) through the real one-shot
CLI and the fake provider over HTTP: the request carries the real ``git status``/``git diff``
output, and the commit and push its ``allowed-tools`` allow run (in ``default`` mode, where
nothing else would have allowed them and nobody can approve)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import RunPi, openai_args
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shared_fixtures import shared

FIXTURE = shared("i25/claude-code/commit-push-pr.md")


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


@pytest.mark.skipif(not FIXTURE.is_file(), reason="../shared/fixtures/i25 is not available")
def test_commit_push_pr_one_shot(
    server: FakeProviderServer, run_pi: RunPi, project: Path, pi_home: Path, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(project, "init", "-q", "-b", "feature")
    git(project, "config", "user.email", "t@example.com")
    git(project, "config", "user.name", "T")
    git(project, "remote", "add", "origin", str(remote))
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "commit-push-pr.md").write_bytes(FIXTURE.read_bytes())
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "start")
    (project / "hello.mjs").write_text('console.log("Hello, pi!");\n')
    # The sandbox may write the remote (it is outside the workspace).
    (pi_home / "settings.json").write_text(json.dumps({"sandbox": {"writable": [str(remote)]}}))
    server.add(
        Turn(
            tool_calls=[
                ToolCallSpec(
                    "bash",
                    {
                        "command": "git add hello.mjs && git commit -m 'Greet pi' && "
                        "git push origin feature"
                    },
                )
            ]
        ),
        Turn(text="Committed and pushed."),
    )
    result = run_pi(*openai_args(server), "--permission-mode", "default", "-p", "/commit-push-pr")
    assert result.returncode == 0, result.stderr
    prompt = server.requests[0]["messages"][-1]["content"]
    prompt = prompt if isinstance(prompt, str) else json.dumps(prompt)
    assert "On branch feature" in prompt and "modified:   hello.mjs" in prompt
    assert '+console.log(\\"Hello, pi!\\");' in json.dumps(prompt)
    assert "!`git" not in prompt
    tool_result = [m for m in server.requests[1]["messages"] if m["role"] == "tool"][0]
    assert "denied" not in json.dumps(tool_result), tool_result
    assert git(remote, "log", "-1", "--format=%s", "feature").strip() == "Greet pi"
