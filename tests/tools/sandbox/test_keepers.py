"""Containment that a process cannot escape by killing its keeper (issue 24).

A hostile command ``setsid``\\ s a daemon and ``kill -KILL``\\ s the reaper that holds it (and the
process helper above that): the helper, a child subreaper, kills what it adopts at once; pi, a
child subreaper too, ends whatever reaches it when it exits. An MCP server's ``setsid`` children,
one orphaned at once and one still its child, end with pi as well. Checked on real pi processes
(the CLI against the fake provider), sandbox on and off, through /proc.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core import ToolError
from tests.cli.conftest import RunPi, openai_args, project, run_pi, server  # noqa: F401 - fixtures
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.mcp.conftest import rogue
from tests.tools._helpers import run
from tests.tools.sandbox.procs import marker, tag_env, tagged, wait_until
from tools import Sandbox, create_bash_tool

KILL_REAPER = "setsid sh -c 'sleep {tag}1 & exit 0'; sleep 0.2; kill -KILL $PPID; echo never"
KILL_REAPER_AND_HELPER = (
    "setsid sh -c 'sleep {tag}1 < /dev/null > /dev/null 2>&1 & exit 0'; sleep 0.2; "
    "HELPER=$(awk '{{print $4}}' /proc/$PPID/stat); kill -KILL $PPID $HELPER; echo never"
)


async def test_a_command_killing_its_reaper_loses_its_daemon_at_once(
    tmp_path: Path, where: str
) -> None:
    tag = marker()
    box = Sandbox(tmp_path, mode="required" if where == "inside" else "off")
    bash = create_bash_tool(tmp_path, box, env=tag_env(tag))
    try:
        with pytest.raises(ToolError) as info:
            await run(bash, command=KILL_REAPER.format(tag=tag), timeout=30)
        assert "something killed the process keeping it" in str(info.value)
        assert wait_until(lambda: not tagged(tag)), f"the daemon escaped: {tagged(tag)}"
        again = await run(bash, command="echo still works")  # the session goes on
        assert again.text == "still works"
    finally:
        await box.aclose()


@pytest.mark.parametrize("sandbox", ["off", "required"])
def test_a_daemon_that_killed_its_reaper_and_the_helper_ends_with_pi(
    server: FakeProviderServer,  # noqa: F811
    run_pi: RunPi,  # noqa: F811
    sandbox: str,
) -> None:
    if sandbox == "required":
        from tests.tools.sandbox.conftest import probe

        if not probe().ok:
            pytest.skip(f"no sandbox here: {probe().reason}")
    tag = marker()
    command = KILL_REAPER_AND_HELPER.format(tag=tag)
    server.add(
        Turn(tool_calls=[ToolCallSpec("bash", {"command": command}, id="c1")]),
        Turn(tool_calls=[ToolCallSpec("bash", {"command": f"pgrep -f 'sleep {tag}1'"}, id="c2")]),
        Turn(text="done"),
    )
    mode = "auto" if sandbox == "required" else "bypassPermissions"
    result = run_pi(
        *openai_args(server),
        "--permission-mode",
        mode,
        "-p",
        "escape",
        env={"PI_SANDBOX_MODE": sandbox, "PI_TEST_TAG": tag},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n"
    first = [m for m in server.requests[1]["messages"] if m["role"] == "tool"][0]
    assert "The command was lost" in json.dumps(first)
    assert wait_until(lambda: not tagged(tag)), f"outlived pi: {tagged(tag)}"


def test_an_mcp_servers_setsid_children_end_with_pi(
    server: FakeProviderServer,  # noqa: F811
    run_pi: RunPi,  # noqa: F811
    pi_home: Path,
) -> None:
    tag = marker()
    settings = {"mcpServers": {"r": rogue(env={"ROGUE_DAEMONS": tag, "PI_TEST_TAG": tag})}}
    (pi_home / "settings.json").write_text(json.dumps(settings))
    server.add(
        Turn(tool_calls=[ToolCallSpec("mcp__r__peek", {}, id="a")]),
        Turn(text="finished"),
    )
    result = run_pi(*openai_args(server), "-p", "use the server")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "finished\n"
    assert wait_until(lambda: not tagged(tag)), f"outlived pi: {tagged(tag)}"
