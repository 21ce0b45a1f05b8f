"""Monitors through the fake provider (real HTTP, real processes): a flood capped and batched
into the next turn; a pattern, the command's exit and a run woken while idle; an abort that
pauses wake-ups; permissions as bash's; /monitors; one-shot; pi killed with a monitor running."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from pi_cli.shell.config.settings import MonitorSettings, Settings
from pi_cli.shell.events import PermissionRequested
from pi_cli.shell.events.long_running import MonitorDelivered
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.agent_tools.conftest import REPO, fake_args, make_shell, record
from tests.tools.bash.test_bash import _alive
from tests.tools.bash.test_monitor import FLOOD


def _settings(**monitor: Any) -> Settings:
    return Settings(monitor=MonitorSettings(**{"interval_s": 0.2, "max_lines": 20, **monitor}))


def _user_texts(body: dict[str, Any]) -> list[str]:
    out = []
    for message in body["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(
                content if isinstance(content, str) else " ".join(p["text"] for p in content)
            )
    return out


def _call(name: str, args: dict[str, Any], call_id: str) -> Turn:
    return Turn(tool_calls=[ToolCallSpec(name, args, id=call_id)])


async def _until(predicate: Any, what: str, tries: int = 2000) -> None:
    for _ in range(tries):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


async def test_a_flood_reaches_the_next_turn_capped_and_batched(
    project: Path, server: FakeProviderServer
) -> None:
    wait = "while [ ! -f flood.done ]; do sleep 0.05; done; sleep 0.5"
    server.add(
        _call("monitor", {"command": FLOOD, "description": "flood"}, "m1"),
        _call("bash", {"command": wait}, "b1"),
        _call("monitor_stop", {"id": "bash_1"}, "s1"),
        Turn(text="done"),
    )
    shell = make_shell(project, server, settings=_settings(), allowed_tools=["Bash"])
    shell.dialogs.asking = "interactive"
    events = record(shell)
    await shell.submit("watch the flood")
    await shell.wait_idle()
    assert len(server.requests) == 4  # no run woken after the stop
    steered = [t for t in _user_texts(server.requests[2]) if t.startswith("[monitor bash_1")]
    assert steered, _user_texts(server.requests[2])
    header, *lines = steered[0].splitlines()
    assert header.startswith("[monitor bash_1 · flood] 20 new lines (")
    assert "more matching lines dropped" in header and lines[:2] == ["line 0", "line 1"]
    assert len(lines) == 20
    delivered = [e for e in events if isinstance(e, MonitorDelivered)]
    assert delivered and delivered[0].lines[:1] == ["line 0"] and delivered[0].dropped > 0
    stop_result = [m for m in server.requests[3]["messages"] if m["role"] == "tool"][-1]
    assert str(stop_result["content"]).startswith("Stopped monitor bash_1 after")
    assert shell.sandbox.shells.get("bash_1").state == "killed"  # type: ignore[union-attr]
    await shell.aclose()


async def test_a_pattern_the_exit_and_a_run_woken_while_idle(
    project: Path, server: FakeProviderServer
) -> None:
    command = "sleep 0.2; echo ok 1; echo FAIL test_a; echo ok 2; echo FAIL test_b; exit 1"
    server.add(
        _call("monitor", {"command": command, "description": "tests", "pattern": "FAIL"}, "m1"),
        Turn(text="watching"),
        *[Turn(text="seen") for _ in range(3)],
    )
    shell = make_shell(project, server, settings=_settings(), allowed_tools=["Bash"])
    shell.dialogs.asking = "interactive"
    await shell.submit("watch the tests")
    await _until(
        lambda: any("exited with code 1" in t for r in server.requests for t in _user_texts(r)),
        "the monitor's end reaching the model",
    )
    await shell.wait_idle()
    texts = [t for r in server.requests[2:] for t in _user_texts(r) if t.startswith("[monitor")]
    lines = [line for text in dict.fromkeys(texts) for line in text.splitlines()[1:]]
    assert [line for line in lines if line] == ["FAIL test_a", "FAIL test_b"]
    assert not any("ok 1" in t for t in texts)
    assert shell.messages[-1].text == "seen"  # type: ignore[union-attr]
    await shell.aclose()


async def test_the_command_is_judged_as_bash_and_asks_as_bash(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(
        _call("monitor", {"command": "touch made; sleep 30", "description": "x"}, "m1"),
        _call("monitor", {"command": "ls", "description": "listing"}, "m2"),
        Turn(text="ok"),
    )
    shell = make_shell(
        project, server, settings=_settings(), approvals="interactive", permission_mode="default"
    )
    events = record(shell)
    done = shell.submit("start it")
    await _until(lambda: any(isinstance(e, PermissionRequested) for e in events), "the question")
    (asked,) = [e for e in events if isinstance(e, PermissionRequested)]
    assert asked.tool_name == "monitor" and "not read-only" in asked.reason
    assert shell.answer(asked.id, "deny")
    await done
    await shell.wait_idle()
    assert not (project / "made").exists()
    # "ls" is read-only, as for bash: it runs without a question.
    assert len([e for e in events if isinstance(e, PermissionRequested)]) == 1
    assert [s.monitor for s in shell.sandbox.shells.all()] == ["listing"]
    await shell.aclose()


async def test_an_abort_pauses_wake_ups_until_the_next_input(
    project: Path, server: FakeProviderServer
) -> None:
    command = "echo up; while [ ! -f go ]; do sleep 0.05; done; echo again; sleep 30"
    server.add(
        _call("monitor", {"command": command, "description": "server"}, "m1"),
        _call("bash", {"command": "sleep 30"}, "b1"),
        Turn(text="noted"),
    )
    shell = make_shell(project, server, settings=_settings(), allowed_tools=["Bash"])
    shell.dialogs.asking = "interactive"
    events = record(shell)
    done = shell.submit("start it")
    delivered = lambda: [e for e in events if isinstance(e, MonitorDelivered)]  # noqa: E731
    await _until(lambda: len(delivered()) == 1, "the first delivery")
    shell.abort()  # Esc during the bash call
    await done
    await shell.wait_idle()
    (project / "go").touch()
    await _until(lambda: len(delivered()) == 2, "the second delivery")
    await asyncio.sleep(0.1)  # a wake-up would have been scheduled by now
    assert len(server.requests) == 2 and shell.state == "idle"
    assert shell.queue.deliveries == 2 and shell.queued() == []  # not the user's queue
    await shell.submit("what did it say?")
    await shell.wait_idle()
    texts = _user_texts(server.requests[2])
    assert texts[-3:] == [
        "what did it say?",
        "[monitor bash_1 · server] 1 new line\nup",
        "[monitor bash_1 · server] 1 new line\nagain",
    ]
    await shell.aclose()


async def test_monitors_command_lists_and_stops_without_waking_the_model(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(
        _call("monitor", {"command": "sleep 30", "description": "quiet"}, "m1"),
        Turn(text="watching"),
        Turn(text="heard it"),
    )
    shell = make_shell(project, server, settings=_settings(), allowed_tools=["Bash"])
    shell.dialogs.asking = "interactive"
    await shell.submit("start it")
    await shell.wait_idle()
    listing = await shell.submit("/monitors")
    assert (
        listing is not None and "bash_1" in listing.output and "◉ quiet: sleep 30" in listing.output
    )
    stopped = await shell.submit("/monitors stop bash_1")
    assert (
        stopped is not None
        and stopped.output == "Stopped monitor bash_1 and everything it started."
    )
    await asyncio.sleep(0.5)  # the end is queued, not a new run
    assert len(server.requests) == 2 and shell.queue.deliveries == 1
    await shell.submit("what happened?")
    await shell.wait_idle()
    texts = _user_texts(server.requests[2])
    assert any("the monitor ended: stopped by the user" in t for t in texts)
    await shell.aclose()


def _pi(project: Path, pi_home: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    return subprocess.Popen(
        [sys.executable, "-m", "pi_cli.cli", *args],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _sleepers(token: str) -> list[int]:
    """Host pids of the processes running ``sleep <token>`` (inside a sandbox's PID namespace
    too: their ``$$`` would not name them out here)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if cmdline.split(b"\0")[:2] == [b"sleep", token.encode()] and _alive(int(entry.name)):
            found.append(int(entry.name))
    return found


async def test_pi_killed_while_a_monitor_runs_leaves_nothing_running(
    project: Path, server: FakeProviderServer, pi_home: Path
) -> None:
    token = f"{300 + os.getpid() % 1000}.{os.getpid()}"
    command = f"sh -c 'sleep {token}' & sleep {token} & echo started; wait"
    server.add(
        _call("monitor", {"command": command, "description": "sleepers"}, "m1"),
        _call("bash", {"command": "sleep 120"}, "b1"),
        Turn(text="never"),
    )
    pi = _pi(project, pi_home, "-p", "go", *fake_args(server, "--allowedTools", "Bash"))
    try:
        await _until(lambda: len(_sleepers(token)) == 2, "the monitor's processes", tries=6000)
    finally:
        os.kill(pi.pid, signal.SIGKILL)  # pi alone: what it started must go by itself
        pi.communicate(timeout=30)
    try:
        await _until(lambda: not _sleepers(token), "its processes gone", tries=3000)
    finally:
        for pid in _sleepers(token):
            os.kill(pid, signal.SIGKILL)


def test_one_shot_delivers_only_while_its_run_lives(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    server.add(
        _call("monitor", {"command": "echo ready; sleep 30", "description": "srv"}, "m1"),
        _call("bash", {"command": "sleep 1"}, "b1"),
        Turn(text="finished"),
    )
    pi = _pi(project, pi_home, "-p", "go", *fake_args(server, "--allowedTools", "Bash"))
    out, err = pi.communicate(timeout=90)
    assert pi.returncode == 0, err
    assert out.strip() == "finished"
    assert len(server.requests) == 3  # no run woken after the answer
    assert any(
        t.startswith("[monitor bash_1 · srv] 1 new line") for t in _user_texts(server.requests[2])
    )
    assert json.dumps(server.requests[2]).count("ready") >= 1


async def test_deliveries_waiting_too_long_are_counted_not_lost_silently(
    project: Path, server: FakeProviderServer
) -> None:
    from pi_cli.shell.monitors import MAX_WAITING, Monitors
    from tools.bash.monitor import MonitorDelivery

    shell = make_shell(project, server, settings=_settings())
    monitors = Monitors(shell)
    monitors.paused = True  # after an abort: everything waits
    for index in range(MAX_WAITING + 30):
        monitors.deliver(MonitorDelivery("bash_1", "log", (f"line {index}",)))
    waiting = [getattr(m, "text", "") for m in shell.queue.take_deliveries()]
    assert len(waiting) == MAX_WAITING
    assert waiting[0].startswith("[monitor deliveries dropped] 31 older deliveries")
    assert waiting[1].endswith(f"line {31}") and waiting[-1].endswith(f"line {MAX_WAITING + 29}")
    await shell.aclose()
