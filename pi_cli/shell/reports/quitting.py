"""What quitting stops, said in one line after pi exits (the TUI and the plain REPL).

pi quits at once, as Claude Code and Codex do (no confirmation), but never silently: a run
aborted on the way out, background sub-agents and the background shells killed with it are
named, and shells that
``--keep-bashes`` leaves running are named as such. Read *before* the shell is closed (the
run is still live, the shells still run).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.shell.front import FrontShell

SHOWN_SHELLS = 3  # shells named one by one; more are counted
COMMAND_CHARS = 40

_WORK = {
    "preparing": "the run in progress (aborted)",
    "running": "the run in progress (aborted)",
    "compacting": "the compaction in progress",
    "command": "the command in progress",
}


def _command(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= COMMAND_CHARS else line[: COMMAND_CHARS - 1] + "…"


def _shells(commands: list[tuple[str, str]]) -> str:
    count = len(commands)
    named = ", ".join(f"{shell_id} ({_command(cmd)})" for shell_id, cmd in commands[:SHOWN_SHELLS])
    more = f" and {count - SHOWN_SHELLS} more" if count > SHOWN_SHELLS else ""
    return f"{count} background shell{'s' * (count != 1)}: {named}{more}"


def quit_report(shell: FrontShell | None) -> str | None:
    """``Stopped on quit: the run in progress (aborted); 1 background shell: bash_1 (sleep 60)``,
    or ``None`` when quitting stops nothing. A client of ``pi serve`` stops nothing: the run and
    the shells go on in the server."""
    if shell is None or shell.remote:
        return None
    stopped: list[str] = []
    work = _WORK.get(shell.state) if shell.busy else None
    if work is not None:
        stopped.append(work)
    agents = shell.agent_tools.running_agents
    if agents:
        stopped.append(f"{agents} background sub-agent{'s' * (agents != 1)} (/agents)")
    running = [(i.id, i.command) for i in shell.sandbox.shells.infos() if i.state == "running"]
    kept = ""
    if running and shell.sandbox.keep_background:
        kept = f"Left running (--keep-bashes): {_shells(running)}"
    elif running:
        stopped.append(_shells(running))
    lines = [f"Stopped on quit: {'; '.join(stopped)}"] if stopped else []
    return "\n".join([*lines, kept] if kept else lines) or None
