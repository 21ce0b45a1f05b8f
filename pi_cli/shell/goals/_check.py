"""A goal's check command: run as the bash tool runs commands (under the session's sandbox and
process containment, the tools' environment), exit code 0 = met.

The user gave the command (``--goal-check``, ``/goal --check``), so it is not put to the
permission gate, like the user's own ``!cmd``; unlike ``!cmd`` it runs sandboxed, since it runs
again and again, unattended, over files the model is changing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_core import AbortSignal, ToolError

if TYPE_CHECKING:
    from tools.sandbox import Sandbox

SHOWN_LINES = 60
SHOWN_CHARS = 6000
"""The tail of a failing check's output the model (and the user) is shown."""
_EXIT = re.compile(r"\n\nCommand exited with code (-?\d+)")
_NOTE = re.compile(r"\n\n\[(?:Showing|Output passed)[^\n]*\]", re.DOTALL)


@dataclass(frozen=True)
class CheckResult:
    """How one run of the check command ended."""

    met: bool
    reason: str
    exit_code: int | None
    output: str


def tail(text: str) -> str:
    """The last :data:`SHOWN_LINES` lines (at most :data:`SHOWN_CHARS` characters)."""
    lines = text.rstrip("\n").splitlines()
    cut = "\n".join(lines[-SHOWN_LINES:])
    if len(cut) > SHOWN_CHARS:
        cut = cut[-SHOWN_CHARS:]
        cut = cut[cut.find("\n") + 1 :] if "\n" in cut else cut
    return cut


async def run_check(
    command: str,
    cwd: Path,
    sandbox: Sandbox,
    env: Mapping[str, str],
    signal: AbortSignal,
    timeout: float,
) -> CheckResult:
    """Run ``command`` once; never raises for the command's own failure."""
    from tools.bash import BashArgs, BashTool  # imported when a goal is checked

    tool = BashTool(cwd, sandbox, env)
    try:
        result = await tool.execute(
            "goal-check", BashArgs(command=command, timeout=timeout), signal
        )
    except ToolError as exc:
        text = str(exc)
        found = _EXIT.search(text)
        code = int(found.group(1)) if found else None
        output = tail(_NOTE.sub("", text[: found.start()] if found else text))
        if found:
            why = f"`{command}` exited with code {code}"
        elif "timed out" in text:
            why = f"`{command}` ran longer than {timeout:g} s and was stopped"
        else:
            why = f"`{command}` could not run: {text.splitlines()[-1] if text else 'unknown'}"
        return CheckResult(False, why, code, output)
    if result.details and result.details.get("aborted"):
        return CheckResult(False, "the check was aborted", None, "")
    output = tail(_NOTE.sub("", result.text))
    return CheckResult(True, f"`{command}` exited with code 0", 0, output)
