"""The sandbox as the shell sees it: modes (auto says once why there is none, required refuses,
off), ``shell.sandbox`` for the permission engine, ``/sandbox``, ``/bashes`` (list, view,
kill), the ``background_shells`` event, and the shutdown that stops them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core import ToolError
from pi_cli.shell.config.settings import Settings
from pi_cli.shell.events import BackgroundShellsChanged
from tests.agent_core.scripted_stream import reply, text, tool_call
from tests.shell.helpers import make_shell
from tests.tools._helpers import run
from tests.tools.sandbox.procs import marker, tagged, wait_until
from tools import Sandbox, create_bash_tool
from tools.sandbox import _bwrap

MISSING = "/nonexistent/bwrap"


async def test_required_without_bubblewrap_refuses_with_the_reason(tmp_path: Path) -> None:
    box = Sandbox(tmp_path, mode="required", bwrap=MISSING)
    assert not box.active and box.status.reason == "bubblewrap (bwrap) is not installed"
    with pytest.raises(ToolError) as info:
        await run(create_bash_tool(tmp_path, box), command="touch ran")
    assert str(info.value).startswith(
        'sandbox.mode is "required" but the sandbox is not available: bubblewrap (bwrap) is '
        "not installed. Install bubblewrap"
    )
    assert not (tmp_path / "ran").exists()
    assert "REQUIRED but unavailable" in box.describe()
    await box.aclose()


async def test_auto_without_bubblewrap_says_so_once_and_runs_unsandboxed(tmp_path: Path) -> None:
    notes: list[tuple[str, str]] = []
    box = Sandbox(
        tmp_path / "ws",
        mode="auto",
        bwrap=MISSING,
        notify=lambda text, level: notes.append((level, text)),
    )
    (tmp_path / "ws").mkdir()
    bash = create_bash_tool(tmp_path / "ws", box)
    outside = tmp_path / "outside.txt"
    await run(bash, command=f"echo x > {outside}")
    await run(bash, command="true")
    assert notes == [
        ("warning", "No sandbox for bash commands: bubblewrap (bwrap) is not installed.")
    ]
    assert outside.read_text() == "x\n"  # really outside: the host's /tmp
    assert box.status.active is False and box.status.network is True
    await box.aclose()


async def test_off_is_off(tmp_path: Path) -> None:
    box = Sandbox(tmp_path, mode="off")
    assert box.status.reason == "sandbox.mode is off" and not box.active
    assert box.describe().startswith("Sandbox: inactive: sandbox.mode is off")
    await box.aclose()


async def test_shell_sandbox_from_settings_and_slash_commands(tmp_path: Path) -> None:
    settings = Settings.model_validate(
        {"sandbox": {"mode": "off", "network": True, "writable": ["../extra"]}, "bashSpillCapMb": 2}
    )
    shell, _, _ = make_shell(tmp_path, settings=settings)
    try:
        assert shell.sandbox.mode == "off" and shell.sandbox.network is True
        assert shell.sandbox.writable == [tmp_path.parent / "extra"]
        assert shell.sandbox.output_cap == 2 * 1024 * 1024
        assert shell.sandbox.active is False
        result = await shell.submit("/sandbox")
        assert result is not None and "sandbox.mode is off" in (result.output or "")
        empty = await shell.submit("/bashes")
        assert empty is not None and empty.output == "No background shells."
    finally:
        await shell.aclose()


async def test_background_shell_through_a_run_and_bashes(tmp_path: Path) -> None:
    tag = marker()
    command = f"echo server up; exec sleep {tag}1"
    shell, _, recorder = make_shell(
        tmp_path,
        reply(tool_call("c1", "bash", {"command": command, "background": True})),
        reply(text("started it")),
        settings=Settings.model_validate({"sandbox": {"mode": "off"}}),
        permission_mode="bypassPermissions",  # no sandbox: auto mode would ask, nobody answers
    )
    try:
        await shell.submit("start the server")
        await shell.wait_idle()
        events = [e for e in recorder.events if isinstance(e, BackgroundShellsChanged)]
        assert events and events[-1].shells[0].state == "running" and events[-1].running == 1
        assert shell.sandbox.shells.running == 1 and wait_until(lambda: bool(tagged(tag)))
        listing = await shell.submit("/bashes")
        assert listing is not None and listing.action == "pick_bash"
        assert "bash_1" in (listing.output or "") and "running" in (listing.output or "")
        for _ in range(50):
            view = await shell.submit("/bashes view bash_1")
            if view is not None and "server up" in (view.output or ""):
                break
            await asyncio.sleep(0.05)
        assert view is not None and "server up" in (view.output or "")
        killed = await shell.submit("/bashes kill 1")
        assert killed is not None and killed.output == "Stopped bash_1 and everything it started."
        assert tagged(tag) == [] and shell.sandbox.shells.running == 0
        states = [
            e.shells[0].state for e in recorder.events if isinstance(e, BackgroundShellsChanged)
        ]
        assert states[-1] == "killed"
        bad = await shell.submit("/bashes kill bash_7")
        assert (
            bad is not None and bad.error and "No background shell 'bash_7'" in (bad.output or "")
        )
    finally:
        await shell.aclose()


async def test_shutdown_stops_background_shells(tmp_path: Path) -> None:
    tag = marker()
    shell, _, _ = make_shell(
        tmp_path,
        reply(tool_call("c1", "bash", {"command": f"sleep {tag}1", "background": True})),
        reply(text("ok")),
        settings=Settings.model_validate({"sandbox": {"mode": "off"}}),
        permission_mode="bypassPermissions",
    )
    await shell.submit("go")
    await shell.wait_idle()
    assert wait_until(lambda: bool(tagged(tag)))  # bash has exec'd the sleep
    await shell.aclose()
    assert tagged(tag) == []


def test_event_counts_running_shells() -> None:
    event = BackgroundShellsChanged.model_validate(
        {
            "shells": [
                {"id": "bash_1", "command": "x", "state": "running"},
                {"id": "bash_2", "command": "y", "state": "exited", "exitCode": 0},
            ]
        }
    )
    assert event.running == 1


@pytest.mark.parametrize("mode", ["auto", "off"])
async def test_the_helper_starts_while_the_shell_is_built(tmp_path: Path, mode: str) -> None:
    """The process helper (in bubblewrap when it works here) is spawned as the shell is built,
    also with the sandbox off, so the first bash call does not wait for a second interpreter."""
    settings = Settings.model_validate({"sandbox": {"mode": mode}})
    shell, _, _ = make_shell(
        tmp_path,
        reply(tool_call("c1", "bash", {"command": "echo early"})),
        reply(text("done")),
        settings=settings,
    )
    try:
        assert shell.sandbox.started  # before any run
        assert shell.sandbox.status.active == (mode == "auto" and _bwrap.probe().ok)
        await shell.submit("run it")
        await shell.wait_idle()
        results = [m for m in shell.agent.state.messages if getattr(m, "tool_name", "") == "bash"]
        assert results and results[0].text.strip() == "early"
    finally:
        await shell.aclose()
    assert not shell.sandbox.started


async def test_an_unused_early_helper_is_stopped_at_once(tmp_path: Path) -> None:
    box = Sandbox(tmp_path, mode="off")
    create_bash_tool(tmp_path, box)  # a bash tool uses this sandbox
    box.prestart()
    assert box.started
    await asyncio.wait_for(box.aclose(), 1.0)  # no wait for a helper that never ran a command
    assert not box.started


async def test_a_sandboxed_early_helper_closed_while_it_starts_leaves_nothing(
    tmp_path: Path,
) -> None:
    """A shell closed right after it was built (a session closed at once in pi serve, a test):
    bubblewrap killed while it starts must not leave its child, the sandbox's PID 1, behind."""
    if not Sandbox(tmp_path, mode="auto").status.active:
        pytest.skip("bubblewrap cannot run here")
    helper = str(Path(_bwrap.__file__).with_name("_proc_helper.py"))
    before = set(_helpers_running(helper))
    for round_ in range(12):
        work = tmp_path / f"w{round_}"
        work.mkdir()
        box = Sandbox(work, mode="auto")
        create_bash_tool(work, box)
        box.prestart()
        await box.aclose()
    assert wait_until(lambda: set(_helpers_running(helper)) <= before, timeout=10), (
        set(_helpers_running(helper)) - before
    )


def _helpers_running(helper: str) -> list[int]:
    """Processes whose command line names this checkout's process helper (bwrap's too)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and helper.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


async def test_a_shell_built_off_the_main_thread_starts_its_helper_on_the_loop(
    tmp_path: Path,
) -> None:
    """A TUI builds its shell on a worker thread: a sandbox spawned there would die with the
    thread (bubblewrap's --die-with-parent), so only the probe runs there."""
    box = Sandbox(tmp_path, mode="auto")
    bash = create_bash_tool(tmp_path, box)
    await asyncio.to_thread(box.prestart)
    assert not box.started
    box.prestart()  # the first run, on the loop's (main) thread
    assert box.started
    try:
        assert (await run(bash, command="echo ok")).text.strip() == "ok"
    finally:
        await box.aclose()
    assert not box.started


async def test_no_bash_tool_no_prestart(tmp_path: Path) -> None:
    shell, _, _ = make_shell(tmp_path, reply(text("hi")), tools=["read"])
    try:
        await shell.submit("hello")
        await shell.wait_idle()
        await asyncio.sleep(0.2)
        assert not shell.sandbox.started
    finally:
        await shell.aclose()


async def test_a_read_only_command_runs_inside_the_sandbox_too(tmp_path: Path) -> None:
    """The classifier decides whether to ask, never whether to contain: a command proven
    read-only (it runs without a question in default mode) still runs in the sandbox."""
    from agent_core import ToolResultMessage

    shell, _, _ = make_shell(
        tmp_path,
        reply(tool_call("c1", "bash", {"command": "printenv PI_SANDBOX"})),
        reply(text("done")),
        settings=Settings.model_validate({"sandbox": {"mode": "auto"}}),
        permission_mode="default",
    )
    try:
        if not shell.sandbox.status.active:
            pytest.skip(f"no sandbox here: {shell.sandbox.status.reason}")
        await shell.submit("where am I")
        await shell.wait_idle()
        result = next(m for m in shell.messages if isinstance(m, ToolResultMessage))
        assert not result.is_error and result.text.strip() == "1"  # PI_SANDBOX=1 inside only
    finally:
        await shell.aclose()
