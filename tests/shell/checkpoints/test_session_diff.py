"""``/diff``: what a session changed, from its checkpoints (the write tool and bash alike), in
total and per prompt; one file reverted through the restore path, and the revert undone."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent_core.scripted_stream import reply, text, tool_call
from tests.shell.helpers import make_shell

TOOLS = ["read", "bash", "edit", "write", "ls"]


def _shell(repo: Path):
    return make_shell(
        repo,
        reply(tool_call("w1", "write", {"path": "app.py", "content": "def main():\n    return 2\n"})),
        reply(tool_call("b1", "bash", {"command": "echo made by bash > new.txt && git mv -f README.md DOCS.md"})),
        reply(text("done")),
        reply(tool_call("w2", "write", {"path": "win.txt", "content": "a\r\nb\r\n"})),
        reply(text("second")),
        tools=TOOLS,
    )  # fmt: skip


async def test_diff_shows_the_sessions_changes_and_reverts_one_file(repo: Path) -> None:
    shell, _, _ = _shell(repo)
    try:
        await shell.submit("change things")
        await shell.submit("one more")
        await shell.wait_idle()
        total = await shell.submit("/diff --json")
        assert total is not None and not total.error, total
        [segment] = json.loads(total.output or "")["segments"]
        files = {f["path"]: f for f in segment["files"]}
        assert set(files) == {"app.py", "new.txt", "DOCS.md", "win.txt"}
        assert (
            files["DOCS.md"]["oldPath"] == "README.md" and files["DOCS.md"]["status"] == "renamed"
        )
        assert files["new.txt"]["status"] == "added"
        assert "+    return 2" in files["app.py"]["patch"]
        assert files["win.txt"]["patch"].endswith("+a\r\n+b\r\n")
        turns = await shell.submit("/diff --turns --json")
        labels = [s["label"] for s in json.loads(turns.output or "")["segments"]]  # type: ignore[union-attr]
        assert labels == [
            "everything this session changed",
            "prompt 1: change things",
            "prompt 2: one more",
        ]
        shown = await shell.submit("/diff")
        assert shown is not None and shown.action == "pick_diff"
        assert "── everything this session changed: 4 file(s)" in (shown.output or "")
        reverted = await shell.submit("/diff revert app.py")
        assert reverted is not None and not reverted.error, reverted
        assert (repo / "app.py").read_text() == "def main():\n    return 1\n"
        assert (repo / "new.txt").exists() and (repo / "win.txt").exists()  # left alone
        renamed = await shell.submit("/diff revert DOCS.md")
        assert renamed is not None and not renamed.error, renamed
        assert (repo / "README.md").exists() and not (repo / "DOCS.md").exists()
        again = await shell.submit("/diff revert app.py")
        assert again is not None and again.error and "not changed" in (again.output or "")
        undone = await shell.checkpoints.undo()  # /rewind undo: the last revert comes back
        assert undone.restored is not None
        assert (repo / "DOCS.md").exists() and not (repo / "README.md").exists()
        bad = await shell.submit("/diff --nope")
        assert bad is not None and bad.error and "Usage: /diff" in (bad.output or "")
    finally:
        await shell.aclose()


async def test_a_session_without_changes_says_so(repo: Path) -> None:
    shell, _, _ = make_shell(repo, reply(text("hi")), tools=TOOLS)
    try:
        await shell.submit("hello")
        await shell.wait_idle()
        result = await shell.submit("/diff")
        assert result is not None and not result.error
        assert "0 file(s)" in (result.output or "") or "No snapshot" in (result.output or "")
    finally:
        await shell.aclose()
