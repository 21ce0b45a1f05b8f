"""Two terminals attached to one session race to answer its approval (real processes: an
on-demand ``pi serve``, two ``pi attach --plain`` in tmux): both are asked (with the bell),
the first answer wins, and the other terminal's question is withdrawn with who decided."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.server.terminal import PI, Tmux, pi, wait_listed

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.skipif(not PI.exists(), reason="the pi console script is not installed"),
    pytest.mark.timeout(240),
]


def test_two_attached_terminals_race_an_approval(
    tmp_path: Path, project: Path, env: dict[str, str]
) -> None:
    script = [
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "touch raced"}, id="call_1")]),
        Turn(text="Touched."),
    ]
    first, second = Tmux("pi-race-a"), Tmux("pi-race-b")
    with FakeProviderServer(script) as provider:
        model = ["--model", "openai/fake", "--api-base", provider.openai_base_url, "--api-key", "x"]
        started = pi(
            env, project, "--detach", "--permission-mode", "default", *model, "touch a file"
        )
        assert started.returncode == 0, started.stderr
        session = started.stdout.strip()
        wait_listed(env, project, lambda s: s["waitingForApproval"] == 1, "the approval")
        raw = tmp_path / "second.raw"
        try:
            for terminal in (first, second):
                # It waits for Enter, so the second's output is captured from its first byte.
                terminal.start(f"read _; {PI} attach {session[:8]} --plain; sleep 30", project)
                if terminal is second:
                    terminal("pipe-pane", "-o", "-t", "e2e", f"cat >> {raw}")
                terminal.type("", "Enter")
                terminal.wait_for(lambda s: "permission needed: bash" in s, "the question")
            first.type("y", "Enter")
            first.wait_for(lambda s: "allowed once" in s, "the answer")
            second.wait_for(lambda s: "allowed by another client" in s, "the question withdrawn")
            for terminal in (first, second):
                terminal.wait_for(lambda s: "Touched." in s, "the run's end")
            assert (project / "raced").exists()
            assert b"\x07" in raw.read_bytes()  # the bell rang with the question
            # The withdrawn question took no input: what is typed now is a prompt again.
            second.type("", "C-d")
            second.wait_for(lambda s: "Detached; the session goes on" in s, "the goodbye")
        finally:
            first.kill()
            second.kill()
        assert len(provider.requests) == 2
