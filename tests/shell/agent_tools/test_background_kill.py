"""pi killed (SIGKILL, no cleanup) while background sub-agents run: nothing they started is
left running, and the session says they were interrupted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.shell.agent_tools.conftest import REPO
from tests.shell.agent_tools.test_background import bash, bg_task
from tests.tools.sandbox.procs import kill_leftovers, marker, tagged, wait_until


def test_kill_9_while_children_run_leaves_nothing_running(
    project: Path, pi_home: Path, server: FakeProviderServer
) -> None:
    tag = marker()
    server.add(
        Turn(tool_calls=[bg_task("t1", "CHILD-A: sleep"), bg_task("t2", "CHILD-B: sleep")]),
        Turn(text="Both started."),
    )
    server.routes["CHILD-A"] = [Turn(tool_calls=[bash("c1", f"sleep {tag}1")])]
    server.routes["CHILD-B"] = [Turn(tool_calls=[bash("c2", f"sleep {tag}2 & sleep {tag}3")])]
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    args = ["--model", "openai/fake-model", "--api-base", server.openai_base_url]
    log = project.parent / "pi.err"
    pi = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pi_cli.cli",
            *args,
            "--api-key",
            "k",
            "--permission-mode",
            "yolo",
            "-p",
            "go",
        ],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
    )
    try:
        # One-shot waits for its background children: they are running when it is killed.
        assert wait_until(lambda: len(tagged(tag)) >= 3, timeout=40), log.read_text()
        os.kill(pi.pid, signal.SIGKILL)
        pi.wait(10)
        assert wait_until(lambda: not tagged(tag), timeout=20), f"survivors: {tagged(tag)}"
    finally:
        if pi.poll() is None:
            pi.kill()
        kill_leftovers()
    resumed = CodingAgent(
        ShellOptions(
            cwd=project,
            model="openai/fake-model",
            api_base=server.openai_base_url,
            api_key="k",
            continue_session=True,
        )
    )
    infos = resumed.agent_tools.background.infos()
    assert [(i.id, i.status) for i in infos] == [("a1", "interrupted"), ("a2", "interrupted")]
