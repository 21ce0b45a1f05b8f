"""In a real terminal (tmux): the statusLine command's line is drawn in the footer in colour
(nothing else of its escapes reaches the terminal), and ``# note`` asks, then saves."""

from __future__ import annotations

import json
import re
import shutil
import sys
import uuid
from pathlib import Path

import pytest

from tests.tui.test_approval_tmux import _tmux, _wait_for

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.timeout(120),
]
PI = Path(sys.executable).parent / "pi"


def test_status_line_in_colour_and_a_memory_note(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    script = home / "statusline.sh"
    script.write_text(
        '#!/bin/sh\nmodel=$(sed \'s/.*"display_name": *"\\([^"]*\\)".*/\\1/\')\n'
        "printf '\\033[32mSL-%s\\033[0m\\033]52;c;Q0xJUA==\\007\\033]2;EVILTITLE\\007 ok\\n' \"$model\"\n"
    )
    script.chmod(0o755)
    settings = {"statusLine": {"type": "command", "command": str(script)}}
    (home / "settings.json").write_text(json.dumps(settings))
    session = f"pi-memory-{uuid.uuid4().hex[:8]}"
    command = (
        f"cd {project} && env PI_HOME={home} PI_NO_LOCAL_PROBE=1 {PI} --model openai/fake "
        "--api-base http://127.0.0.1:9/v1 --api-key x --no-session; sleep 30"
    )
    _tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", command)
    try:

        def capture() -> str:
            return _tmux("capture-pane", "-p", "-t", session)

        _wait_for(capture, "SL-fake ok")
        coloured = _tmux("capture-pane", "-p", "-e", "-t", session)
        line = next(row for row in coloured.splitlines() if "SL-fake" in row)
        assert re.search(r"\x1b\[[0-9;]*(32|38;5;2|38;2;[0-9;]+)m[^\x1b]*SL-fake", line), repr(line)
        title = _tmux("display", "-p", "-t", session, "#{pane_title}")
        assert "EVILTITLE" not in title
        _tmux("send-keys", "-t", session, "-l", "# ship with make release")
        _tmux("send-keys", "-t", session, "Enter")
        _wait_for(capture, "Save this note to which memory file?")
        _tmux("send-keys", "-t", session, "Enter")
        _wait_for(capture, "Saved to project memory")
        assert (project / "AGENTS.md").read_text() == "- ship with make release\n"
    finally:
        _tmux("kill-session", "-t", session)
