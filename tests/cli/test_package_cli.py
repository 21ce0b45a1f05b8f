"""``pi install | list | update | remove`` end to end: badlogic/pi-skills' package
(../shared/fixtures/i25/pi-skills, MIT) from a local git repository, its skill reaching the fake
provider's system prompt in a one-shot; a changed copy named and left out; ``pi list the files``
stays a prompt."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunPi, openai_args
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.shell.packages.test_packages import NAME, skills_repo  # noqa: F401 - a fixture


def test_install_list_use_remove(
    server: FakeProviderServer,
    run_pi: RunPi,
    skills_repo: Path,  # noqa: F811
    pi_home: Path,
) -> None:
    done = run_pi("install", f"git:file://{skills_repo}")
    assert done.returncode == 0 and done.stdout.startswith(f"Installed {NAME} at "), done.stderr
    listed = run_pi("list")
    assert listed.stdout.startswith(f"{NAME}  git:file://{skills_repo}  @ "), listed.stderr
    server.add(Turn(text="ok"), Turn(text="ok again"))
    result = run_pi(*openai_args(server), "-p", "open it in vscode")
    assert result.returncode == 0, result.stderr
    system = json.dumps(server.requests[0]["messages"][0])
    assert "vscode" in system and "SKILL.md" in system
    lock = json.loads((pi_home / "packages" / "pi-lock.json").read_text())
    copy = Path(lock["packages"][NAME]["path"])
    (copy / "package.json").write_text("{}")
    again = run_pi(*openai_args(server), "-p", "open it in vscode")
    assert f"Package {NAME} not loaded: its installed copy changed (package.json" in again.stderr
    assert "SKILL.md" not in json.dumps(server.requests[1]["messages"][0])
    assert run_pi("remove", NAME).stdout == f"Removed {NAME}.\n"
    missing = run_pi("remove", NAME)
    assert missing.returncode == 1 and f"{NAME} is not installed" in missing.stderr


def test_sentences_stay_prompts(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn(text="here they are"))
    result = run_pi(*openai_args(server), "list", "the", "files")
    assert result.returncode == 0 and result.stdout == "here they are\n", result.stderr
