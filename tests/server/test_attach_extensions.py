"""An attached session as a local one, tested by what is drawn in tmux: an extension's key
binding (its handler runs in the server, its notice reaches the terminal) and ``/diff`` (the
session's changes read from the server: a text report in ``--plain``, the diff screen in the
TUI, where ``r`` reverts a file in the server's workspace)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.server.terminal import PI, Tmux, pi, wait_listed

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
    pytest.mark.skipif(not PI.exists(), reason="the pi console script is not installed"),
    pytest.mark.timeout(240),
]

EXTENSION = """
from typing import Any

from pi_cli.shell.extensions import ExtensionAPI, ExtensionContext


def register(pi: ExtensionAPI) -> None:
    pressed = 0

    @pi.key("ping", "f6", description="Say how often it was pressed")
    def ping(event: Any, ctx: ExtensionContext) -> None:
        nonlocal pressed
        pressed += 1
        ctx.ui.notify(f"ping number {pressed} from the server")
"""


def test_extension_keys_and_diff_work_in_attached_sessions(
    tmp_path: Path, project: Path, env: dict[str, str], pi_home: Path
) -> None:
    extension = tmp_path / "ping_key.py"
    extension.write_text(EXTENSION)
    (pi_home / "settings.json").write_text(json.dumps({"extensions": [str(extension)]}))
    (project / "app.py").write_text("def main():\n    return 1\n")
    script = [
        Turn(
            tool_calls=[
                ToolCallSpec(
                    "write", {"path": "app.py", "content": "def main():\n    return 2\n"}, id="w1"
                )
            ]
        ),
        Turn(text="Changed it."),
    ]
    with FakeProviderServer(script) as provider:
        model = ["--model", "openai/fake", "--api-base", provider.openai_base_url, "--api-key", "x"]
        started = pi(
            env, project, "--detach", "--permission-mode", "acceptEdits", *model, "return two"
        )
        assert started.returncode == 0, started.stderr
        session = started.stdout.strip()
        wait_listed(env, project, lambda s: s["state"] == "idle" and s["messages"] == 4, "the run")
    assert (project / "app.py").read_text() == "def main():\n    return 2\n"

    plain = Tmux("pi-attach-ext-plain")
    try:
        plain.start(f"{PI} attach {session[:8]} --plain; sleep 30", project)
        plain.wait_for(lambda s: "Changed it." in s and "── live ──" in s, "the transcript")
        plain.type("", "F6")
        plain.wait_for(lambda s: "ping number 1 from the server" in s, "the key's notice")
        plain.type("/diff", "Enter")
        text = plain.wait_for(lambda s: "+    return 2" in s, "the session's changes")
        assert "-    return 1" in text and "app.py" in text
        plain.type("", "C-d")
        plain.wait_for(lambda s: "Detached; the session goes on" in s, "the goodbye")
    finally:
        plain.kill()

    tui = Tmux("pi-attach-ext-tui")
    try:
        tui.start(f"{PI} attach {session[:8]}; sleep 30", project)
        tui.wait_for(lambda s: "Changed it." in s, "the transcript")
        tui.type("", "F6")  # the same extension, still live in the server: it counts on
        tui.wait_for(lambda s: "ping number 2 from the server" in s, "the key's notice")
        tui.type("/reload", "Enter")  # a fresh extension: its keys are bound again
        tui.wait_for(lambda s: "ping_key" in s.split("ping number 2")[-1], "the reload's report")
        tui.type("", "F6")
        tui.wait_for(lambda s: "ping number 1 from the server" in s, "the reloaded key")
        tui.type("/diff", "Enter")
        tui.wait_for(
            lambda s: "Changes of this session, in total: 1 file(s)" in s, "the diff screen"
        )
        drawn = tui.wait_for(lambda s: "+    return 2" in s, "the patch")
        assert "app.py  +1 -1" in drawn and "-    return 1" in drawn
        tui.type("r")  # revert the highlighted file, in the server's workspace
        tui.wait_for(lambda s: "in total: 0 file(s)" in s, "the list read again")
        assert (project / "app.py").read_text() == "def main():\n    return 1\n"
        tui.type("", "Escape")
        tui.wait_for(lambda s: "Changes of this session" not in s, "the screen closed")
        tui.type("/quit", "Enter")
        tui.wait_for(lambda s: "Detached; the session goes on in the server" in s, "the goodbye")
    finally:
        tui.kill()
