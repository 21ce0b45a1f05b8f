"""Check, then use: a file tool writes (and reads) exactly the path the permission check decided
on, whatever a hostile process does to the tree in between (issue 24, "one safe file primitive").

As a hostile model would act: it writes a small racer (``racer.py``) with the write tool, starts
it as a background shell inside the sandbox, flipping ``sub`` between the real directory and
symlinks to ``.git`` and to a directory outside the workspace, and then fires 100 writes and
edits at ``sub/config`` (a ``core.fsmonitor`` payload). Deterministically too: the flip lands
while the user is asked to approve the write. Nothing outside the workspace, and nothing in
``.git``, ever changes; a refused call says why.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_core import ToolExecutionEnd
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.shell.config.settings import Settings
from pi_cli.shell.events import PermissionRequested
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.cli.conftest import RunPi, openai_args, project, run_pi, server  # noqa: F401 - fixtures
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn

RACER = Path(__file__).with_name("racer.py")
PAYLOAD = '[core]\n\tfsmonitor = "touch /tmp/pi-pwned-by-fsmonitor"\n'
GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"


def _repository(root: Path, outside: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".git" / "config").write_text(GIT_CONFIG)
    (root / "sub").mkdir()
    (root / "sub" / "config").write_text("[core]\n\tbare = false\n")
    outside.mkdir()
    (outside / "keep.txt").write_text("outside\n")


def _untouched(root: Path, outside: Path) -> None:
    assert (root / ".git" / "config").read_text() == GIT_CONFIG
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    assert (outside / "keep.txt").read_text() == "outside\n"
    assert not (root / ".git" / "hooks" / "config").exists()


def _shell(root: Path, stream: ScriptedStream, **settings: Any) -> CodingAgent:
    return CodingAgent(
        ShellOptions(
            cwd=root,
            stream_fn=stream,
            tools=["read", "write", "edit"],
            approvals="interactive",
            permission_mode="default",
            settings=Settings.model_validate(settings),
        )
    )


def _results(stream: ScriptedStream) -> list[str]:
    messages = stream.contexts[-1].messages
    return [m.text for m in messages if getattr(m, "role", "") == "toolResult"]


@pytest.mark.parametrize("swap_to", [".git", "outside"])
async def test_a_flip_while_the_user_approves_is_refused(tmp_path: Path, swap_to: str) -> None:
    root, outside = tmp_path / "project", tmp_path / "outside"
    _repository(root, outside)
    stream = ScriptedStream(
        reply(tool_call("w", "write", {"path": "sub/config", "content": PAYLOAD})),
        reply(tool_call("e", "edit", {"path": "sub/config", "edits": [{"old_text": "bare = false", "new_text": "x"}]})),
        reply(text("done")),
    )  # fmt: skip
    shell = _shell(root, stream)
    target = str(root / ".git") if swap_to == ".git" else str(outside)

    def on_event(event: Any) -> None:
        if isinstance(event, PermissionRequested):
            assert "protected" not in event.reason and "outside" not in event.reason, event.reason
            (root / "sub").rename(root / "sub.real")
            (root / "sub").symlink_to(target)  # flipped after the check, before the write
            shell.answer(event.id, "allow_once")
        elif isinstance(event, ToolExecutionEnd):  # back, for the next call's check
            (root / "sub").unlink()
            (root / "sub.real").rename(root / "sub")

    shell.subscribe(on_event)
    await shell.submit("change the config")
    await shell.wait_idle()
    await shell.aclose()
    results = _results(stream)
    assert len(results) == 2
    for result in results:
        assert result.startswith("Refused: ") and "is a symlink now" in result, result
        assert "Nothing was changed at sub/config" in result
    _untouched(root, outside)
    assert (root / "sub" / "config").read_text() == "[core]\n\tbare = false\n"


async def test_a_read_checked_inside_never_reads_where_a_flip_points(tmp_path: Path) -> None:
    root, outside = tmp_path / "project", tmp_path / "outside"
    _repository(root, outside)
    (outside / "keep.txt").write_text("outside\n")
    stream = ScriptedStream(
        reply(tool_call("r", "read", {"path": "sub/keep.txt"})), reply(text("done"))
    )
    # An ask rule makes the read wait for the user: the flip lands meanwhile.
    shell = _shell(root, stream, permissions={"ask": ["Read(sub/**)"]})
    (root / "sub" / "keep.txt").write_text("inside\n")

    def on_event(event: Any) -> None:
        if isinstance(event, PermissionRequested):
            (root / "sub").rename(root / "sub.real")
            (root / "sub").symlink_to(outside)
            shell.answer(event.id, "allow_once")

    shell.subscribe(on_event)
    await shell.submit("read it")
    await shell.wait_idle()
    await shell.aclose()
    (result,) = _results(stream)
    assert result.startswith("Refused: ") and "is a symlink now" in result
    assert "outside\n" not in result


def test_a_racing_sandboxed_loop_never_gets_pi_to_write_git_config_or_outside(
    server: FakeProviderServer,  # noqa: F811
    run_pi: RunPi,  # noqa: F811
    project: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    from tests.tools.sandbox.conftest import probe

    if not probe().ok:
        pytest.skip(f"no sandbox here: {probe().reason}")
    outside = tmp_path / "outside"
    _repository(project, outside)
    start = f"python3 racer.py sub .git {outside}"
    edit = {"path": "sub/config", "edits": [{"old_text": "bare = false", "new_text": "bare = 0"}]}
    attacks = [
        Turn(
            tool_calls=[ToolCallSpec("write", {"path": "racer.py", "content": RACER.read_text()})]
        ),
        Turn(tool_calls=[ToolCallSpec("bash", {"command": start, "background": True})]),
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "sleep 0.5"})]),  # it runs
    ]
    for round_ in range(10):
        calls = []
        for number in range(10):
            if number % 2:
                calls.append(ToolCallSpec("edit", edit, id=f"e{round_}-{number}"))
            else:
                body = {"path": "sub/config", "content": PAYLOAD + "\tbare = false\n"}
                calls.append(ToolCallSpec("write", body, id=f"w{round_}-{number}"))
        attacks.append(Turn(tool_calls=calls))
    server.add(*attacks, Turn(text="done"))
    result = run_pi(
        *openai_args(server),
        "--permission-mode",
        "acceptEdits",
        "--allowed-tools",
        "Bash",
        "-p",
        "race",
        env={"PI_SANDBOX_MODE": "required"},
        timeout=240,
    )
    assert result.returncode in (0, 7), result.stderr
    assert result.stdout == "done\n"
    texts = [
        json.dumps(m.get("content")) for m in server.requests[-1]["messages"] if m["role"] == "tool"
    ]
    assert len(texts) == 103
    _untouched(project, outside)
    # The user's next git command runs no payload: .git/config is as it was.
    status = subprocess.run(
        ["git", "status", "--short"], cwd=project, capture_output=True, text=True, check=True
    )
    assert "sub" in status.stdout or "racer.py" in status.stdout
    assert not Path("/tmp/pi-pwned-by-fsmonitor").exists()
    print(
        f"writes/edits refused after the check: {sum('Refused: ' in t for t in texts)}, asked "
        f"(denied: nobody to ask): {sum('approval' in t for t in texts)}, done: "
        f"{sum(('Overwrote' in t) or ('Successfully' in t) for t in texts)}",
        file=sys.stderr,
    )


async def test_a_workspace_reached_through_a_symlink_writes_and_reads(tmp_path: Path) -> None:
    """The engine decides on real paths; the tools find them from a symlinked working directory."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    stream = ScriptedStream(
        reply(tool_call("w", "write", {"path": "notes/a.txt", "content": "hello\n"})),
        reply(tool_call("e", "edit", {"path": "notes/a.txt", "edits": [{"old_text": "hello", "new_text": "bye"}]})),
        reply(tool_call("r", "read", {"path": "notes/a.txt"})),
        reply(text("done")),
    )  # fmt: skip
    shell = CodingAgent(
        ShellOptions(
            cwd=tmp_path / "link",
            stream_fn=stream,
            tools=["read", "write", "edit"],
            permission_mode="acceptEdits",
        )
    )
    await shell.submit("go")
    await shell.wait_idle()
    await shell.aclose()
    results = _results(stream)
    assert results[0] == "Created notes/a.txt (6 bytes written)"
    assert results[1].startswith("Successfully applied 1 edit") and "bye" in results[2]
    assert (real / "notes" / "a.txt").read_text() == "bye\n"
