"""``/sandbox`` (what the sandbox does here), ``/bashes`` (background shells: list, view,
kill) and ``/monitors`` (the monitor tool's shells: list, stop). Text everywhere; the TUI also
opens a picker for ``/bashes``."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand

if TYPE_CHECKING:
    from pi_cli.shell.front import BackgroundShellView, ShellInfoView

USAGE = "/bashes [view|kill <id>]"


def _age(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f}s"
    if seconds < 3600:
        return f"{seconds / 60:.0f}m"
    return f"{seconds / 3600:.1f}h"


def shell_line(info: ShellInfoView) -> str:
    """One line of the listing: id, state, age, where, command."""
    if info.state == "running":
        state = f"running {_age(time.time() - info.started_at)}"
    elif info.state == "exited":
        state = f"exited {info.exit_code}"
    else:
        state = info.state
    command = " ".join(info.command.split())
    command = command if len(command) <= 70 else command[:69] + "…"
    where = "" if info.sandboxed else "  (outside the sandbox)"
    if info.monitor:
        return f"{info.id:<9} {state:<14} ◉ {info.monitor}: {command}{where}"
    return f"{info.id:<9} {state:<14} {command}{where}"


async def _sandbox(shell: ShellAPI, args: str) -> CommandResult:
    return CommandResult(output=shell.sandbox.describe())


async def _bashes(shell: ShellAPI, args: str) -> CommandResult:
    shells = shell.sandbox.shells
    action, _, target = args.strip().partition(" ")
    if not action:
        infos = shells.infos()
        if not infos:
            return CommandResult(output="No background shells.")
        lines = ["Background shells:", *("  " + shell_line(i) for i in infos)]
        lines.append(f"{USAGE} shows the output of one or stops it.")
        return CommandResult(output="\n".join(lines), action="pick_bash")
    if action not in ("view", "kill"):  # "/bashes bash_1" views it
        action, target = "view", args.strip()
    found = shells.get(target)
    if found is None:
        return CommandResult(output=f"No background shell {target!r}. {USAGE}", error=True)
    if action == "kill":
        await found.kill()
        return CommandResult(output=f"Stopped {found.id} and everything it started.")
    return CommandResult(output=f"{shell_line(found.info())}\n{shell_output(found)}")


def shell_output(found: BackgroundShellView) -> str:
    """The tail of a background shell's output as ``/bashes view`` shows it (control
    sequences removed), with how many lines came before when it is cut."""
    from tools.bash import clean_output

    tail = found.buffer.tail()
    body = clean_output(tail.content) or "(no output yet)"
    note = f"\n[last {tail.output_lines} of {tail.total_lines} lines]" if tail.truncated else ""
    return body + note


MONITORS_USAGE = "/monitors [stop <id>]"


async def _monitors(shell: ShellAPI, args: str) -> CommandResult:
    shells = shell.sandbox.shells
    action, _, target = args.strip().partition(" ")
    if not action:
        infos = [i for i in shells.infos() if i.monitor]
        if not infos:
            return CommandResult(
                output="No monitors (the model starts them with the monitor tool)."
            )
        lines = ["Monitors:", *("  " + shell_line(i) for i in infos)]
        lines.append(f"{MONITORS_USAGE} stops one; /bashes view <id> shows its output.")
        return CommandResult(output="\n".join(lines))
    if action not in ("stop", "kill"):
        return CommandResult(output=f"Unknown action {action!r}. {MONITORS_USAGE}", error=True)
    found = shells.get(target)
    if found is None or not found.monitor:
        return CommandResult(output=f"No monitor {target!r}. {MONITORS_USAGE}", error=True)
    await found.kill()
    return CommandResult(output=f"Stopped monitor {found.id} and everything it started.")


def sandbox_commands() -> list[SlashCommand]:
    """``/sandbox``, ``/bashes`` and ``/monitors`` (all safe while a run is live)."""
    return [
        SlashCommand(
            "sandbox",
            "Show the sandbox: active or why not, what it hides",
            _sandbox,
            while_running=True,
        ),
        SlashCommand(
            "bashes",
            "List background shells; view their output or stop them",
            _bashes,
            usage="[view|kill <id>]",
            while_running=True,
        ),
        SlashCommand(
            "monitors",
            "List the monitors watching background commands; stop one",
            _monitors,
            usage="[stop <id>]",
            while_running=True,
        ),
    ]
