"""Claude Code's lifecycle hook events: SessionStart, SessionEnd, Stop, PreCompact, Notification.

- ``SessionStart`` (matcher: ``source`` = startup, resume, clear): runs before the session's
  first prompt; its ``additionalContext`` (or plain stdout) is added to that prompt.
- ``Stop`` (input ``stop_hook_active``): ``{"decision": "block", "reason": ...}`` or exit 2 keeps
  the agent going with the reason as the next message, at most :data:`MAX_STOP_CONTINUES`
  times per prompt.
- ``SessionEnd`` (``reason``), ``PreCompact`` (matcher: ``trigger`` = manual, auto;
  ``custom_instructions``) and ``Notification`` (matcher: ``notification_type``; ``message``):
  informational; exit 2 shows stderr to the user only.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent_core import Agent
    from pi_cli.shell.context import ShellContext
    from pi_cli.shell.hooks._command import CommandHook, HookOutcome


class HookManager(Protocol):
    """What these events use of :class:`pi_cli.shell.hooks.HookManager` (no import cycle)."""

    shell: ShellContext
    pending_context: list[str]
    start_source: str
    session_start_due: bool

    def commands(
        self, event: str, names: str | tuple[str, ...] | None = None
    ) -> list[CommandHook]: ...
    async def run(self, hook: CommandHook, payload: dict[str, Any]) -> HookOutcome: ...
    def payload(self, event: str, **fields: Any) -> dict[str, Any]: ...
    def schedule(self, coroutine: Coroutine[Any, Any, None]) -> None: ...


MAX_STOP_CONTINUES = 3
"""How many times Stop hooks may keep one prompt's run going."""


async def run_session_start(hooks: HookManager) -> None:
    """Run SessionStart command hooks once per session start, collecting their context."""
    if not hooks.session_start_due:
        return
    hooks.session_start_due = False
    source = hooks.start_source
    hooks.start_source = "startup"
    for hook in hooks.commands("SessionStart", source):
        outcome = await hooks.run(hook, hooks.payload("SessionStart", source=source))
        if outcome.block:
            hooks.shell.notify(f"SessionStart hook: {outcome.message}", "warning")
        elif outcome.additional_context:
            hooks.pending_context.append(outcome.additional_context)
        elif outcome.stdout and not outcome.data:
            hooks.pending_context.append(outcome.stdout)


async def run_stop(hooks: HookManager, active: bool) -> str | None:
    """Stop hooks: the reason to keep going, or ``None`` to stop."""
    for hook in hooks.commands("Stop"):
        outcome = await hooks.run(hook, hooks.payload("Stop", stop_hook_active=active))
        if outcome.block:
            return outcome.message or "A Stop hook asks to continue."
    return None


async def keep_going(hooks: HookManager, agent: Agent, aborted: Callable[[], bool]) -> None:
    """After a run: while a Stop hook blocks (and the run neither failed nor was aborted), run
    again with its reason as the next message, at most :data:`MAX_STOP_CONTINUES` times."""
    if not hooks.commands("Stop"):
        return
    for round_ in range(MAX_STOP_CONTINUES):
        last = agent.state.messages[-1] if agent.state.messages else None
        if aborted() or getattr(last, "stop_reason", "") in ("error", "aborted"):
            return
        reason = await run_stop(hooks, active=round_ > 0)
        if reason is None:
            return
        await agent.prompt(f"[Stop hook] {reason}")


async def run_session_end(hooks: HookManager, reason: str) -> None:
    """SessionEnd hooks (``reason``: clear, prompt_input_exit, other)."""
    for hook in hooks.commands("SessionEnd"):
        outcome = await hooks.run(hook, hooks.payload("SessionEnd", reason=reason))
        if outcome.block:
            hooks.shell.notify(f"SessionEnd hook: {outcome.message}", "warning")


async def run_pre_compact(hooks: HookManager, trigger: str, instructions: str | None) -> None:
    """PreCompact hooks (``trigger``: manual or auto)."""
    payload = hooks.payload("PreCompact", trigger=trigger, custom_instructions=instructions or "")
    for hook in hooks.commands("PreCompact", trigger):
        outcome = await hooks.run(hook, payload)
        if outcome.block:
            hooks.shell.notify(f"PreCompact hook: {outcome.message}", "warning")


def notify(hooks: HookManager, message: str, kind: str = "permission_prompt") -> None:
    """Notification hooks, in the background (pi needs the user's attention)."""
    matching = hooks.commands("Notification", kind)
    if not matching:
        return

    async def run() -> None:
        payload = hooks.payload("Notification", message=message, notification_type=kind)
        for hook in matching:
            outcome = await hooks.run(hook, payload)
            if outcome.block:
                hooks.shell.notify(f"Notification hook: {outcome.message}", "warning")

    hooks.schedule(run())
