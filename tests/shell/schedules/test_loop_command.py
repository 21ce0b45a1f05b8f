"""/loop as the user types it: hostile input is refused with a clear error, list and stop."""

from __future__ import annotations

from pathlib import Path

from tests.agent_core.scripted_stream import ScriptedStream
from tests.fakes.clock import ManualClock
from tests.shell.schedules.helpers import make_shell


async def test_hostile_loops_are_refused(tmp_path: Path) -> None:
    shell = make_shell(tmp_path, ScriptedStream(), ManualClock())
    cases = {
        "/loop 0s check": "'0s' is too short",
        "/loop -5m check": "'-5m' is not an interval",
        "/loop " + "x" * 10_000_000: "A scheduled prompt is at most 16,000 characters",
        '/loop cron "0 0 30 2 *" check': "never fires: it matches no real date",
        "/loop cron 0 0 31 2 * check": "never fires",
        "/loop at 2020-01-01T00:00 check": "is in the past",
        "/loop --max 0 5m check": "--max is a count from 1",
        "/loop 5m": "A loop needs a prompt",
        "/loop --for 0s 5m check": "too short",
    }
    for typed, problem in cases.items():
        result = await shell.submit(typed)
        assert result is not None and result.error, typed[:40]
        assert problem in result.output, (typed[:40], result.output[:200])
        assert "Usage: /loop" in result.output
    assert shell.schedules.active() == []
    path = shell.session.path
    assert path is None or not path.exists() or '"schedule"' not in path.read_text()
    await shell.aclose()


async def test_list_and_stop(tmp_path: Path) -> None:
    clock = ManualClock()
    shell = make_shell(tmp_path, ScriptedStream(), clock)
    one = shell.schedules.create("first", cron="0 9 * * *")
    two = shell.schedules.create("second", every_s=3600, for_s=7200)
    listed = await shell.submit("/loop list")
    assert listed is not None
    lines = listed.output.splitlines()
    assert lines[0] == "Loops and schedules (UTC):"
    assert lines[1].startswith(f"{two.id}  every 1h (until ") and lines[1].endswith(": second")
    assert lines[2].startswith(f"{one.id}  cron '0 9 * * *' (UTC), fired 0, next ")
    assert (await shell.submit("/schedules")).output == listed.output  # type: ignore[union-attr]
    stopped = await shell.submit(f"/loop stop {one.id[:4]}")
    assert stopped is not None and stopped.output == f"Stopped loop {one.id}: first"
    missing = await shell.submit("/loop stop zzz")
    assert missing is not None and missing.error and "No active schedule 'zzz'" in missing.output
    assert (await shell.submit("/loop stop all")).output == "Stopped 1 loop."  # type: ignore[union-attr]
    assert (await shell.submit("/loop")).output.startswith("No loops")  # type: ignore[union-attr]
    await shell.aclose()


async def test_a_bounded_loop_ends_and_says_why(tmp_path: Path) -> None:
    clock = ManualClock()
    shell = make_shell(tmp_path, ScriptedStream(), clock)
    loop = shell.schedules.create("tick", every_s=60, for_s=150)
    assert loop.next_due() == clock.t + 60
    loop.fired, loop.last_fired_at = 2, clock.t + 120
    assert loop.next_due() is None and "its --for bound ended" in loop.end_reason()
    await shell.aclose()


async def test_one_shot_only_stores_a_loop(tmp_path: Path) -> None:
    stream = ScriptedStream()
    shell = make_shell(tmp_path, stream, ManualClock(), approvals="none")
    result = await shell.submit("/loop 5m check")
    assert result is not None and not result.error
    assert "(stored: it fires while this session is open in the TUI" in result.output
    assert "fired now" not in result.output and stream.calls == 0
    assert [s.prompt for s in shell.schedules.active()] == ["check"]
    await shell.aclose()


def test_a_shell_without_schedules_loads_no_scheduling_code(tmp_path: Path) -> None:
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from pi_cli.shell.coding_agent import CodingAgent, ShellOptions\n"
        "from tests.agent_core.scripted_stream import ScriptedStream\n"
        f"CodingAgent(ShellOptions(cwd=Path({str(tmp_path)!r}), stream_fn=ScriptedStream()))\n"
        "print(sorted(m for m in sys.modules if m.startswith('pi_cli.shell.schedules.')))\n"
    )
    repo = Path(__file__).resolve().parents[3]
    env = {"PI_HOME": str(tmp_path / "home"), "PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=repo, env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['pi_cli.shell.schedules._clock', 'pi_cli.shell.schedules._schedules']"
