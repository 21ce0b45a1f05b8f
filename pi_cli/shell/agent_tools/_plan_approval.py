"""Plan mode's end: the model's ``exit_plan_mode(plan)`` is put to the user as an approval.

It goes through the approval mechanism like a tool call (a
:class:`~pi_cli.shell.events.PermissionRequested` answered with ``shell.answer``), with its own
question and labels: "allow once" approves and switches to ``default`` (edits ask),
"allow for this session" approves and switches to ``acceptEdits``, "deny" keeps planning (the
message, if any, is the user's feedback). Nobody can answer in one-shot and JSON mode: that
counts as a call denied for approval (exit code 7) and the model is told to answer with the plan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from agent_core import AbortSignal
from pi_cli.shell.events import PermissionRequested

if TYPE_CHECKING:
    from pi_cli.shell.permissions import PermissionControl
    from tools.exit_plan_mode import PlanDecision


class PlanShell(Protocol):
    """What the approver uses of the shell (its permissions exist once the shell is built)."""

    @property
    def permissions(self) -> PermissionControl: ...


LABELS = {
    "allow_once": "Approve: ask before edits (default mode)",
    "allow_session": "Approve: accept edits (acceptEdits mode)",
    "deny": "Keep planning",
}


class PlanApproval:
    """The exit_plan_mode tool's approver."""

    def __init__(self, shell: PlanShell) -> None:
        self.shell = shell

    async def __call__(self, tool_call_id: str, plan: str, cancel: AbortSignal) -> PlanDecision:
        """Ask the user about ``plan``; switch the mode when approved."""
        from tools.exit_plan_mode import PlanDecision

        control = self.shell.permissions
        if control.mode != "plan":
            return PlanDecision("not_planning", control.mode)
        broker = control.broker
        request = PermissionRequested(
            id=broker.new_id(),
            tool_call_id=tool_call_id,
            tool_name="exit_plan_mode",
            args={"plan": plan},
            title="the plan",
            reason="Planning is done: approve the plan to let the agent carry it out.",
            preview=plan,
            options=["allow_once", "allow_session", "deny"],
            question="Approve this plan?",
            labels=dict(LABELS),
        )
        outcome = await broker.ask(request)
        if outcome.by == "non_interactive":
            control.gate.denied_for_approval += 1
            return PlanDecision("unavailable", "plan", "one-shot and JSON mode cannot ask")
        if outcome.by == "timeout":
            return PlanDecision("keep_planning", "plan", "no answer in time")
        answer = outcome.answer
        if answer is None or answer.choice == "deny":
            return PlanDecision("keep_planning", "plan", answer.message if answer else "")
        mode = control.set_mode("acceptEdits" if answer.choice == "allow_session" else "default")
        return PlanDecision("approved", mode)
