"""The ``exit_plan_mode`` tool: in plan mode the model ends with its plan for the user to approve.

The tool knows no permission mode and no front end: the shell passes an ``approve`` callable
that asks the user (through the approval mechanism) and switches the mode when approved.
"""

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from msgspec import Meta

from agent_core import AbortSignal, ToolArguments, ToolBase, ToolError, ToolResult, first_line
from agent_core.tool import OnToolUpdate

MAX_PLAN_CHARS = 40_000


class ExitPlanModeArgs(ToolArguments):
    """Arguments of the exit_plan_mode tool."""

    plan: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=MAX_PLAN_CHARS,
            description="The plan, in Markdown: the concrete steps you will take, concisely",
        ),
    ]


@dataclass(frozen=True)
class PlanDecision:
    """What became of a plan.

    Attributes:
        outcome: ``approved`` (the run goes on in ``mode``), ``keep_planning`` (the user wants
            more planning; ``feedback`` says why), ``not_planning`` (plan mode is not on) or
            ``unavailable`` (nobody can approve here; ``feedback`` says why).
        mode: the permission mode after the decision.
        feedback: the user's words, or why nobody could decide.
    """

    outcome: Literal["approved", "keep_planning", "not_planning", "unavailable"]
    mode: str = ""
    feedback: str = ""


PlanApprover = Callable[[str, str, AbortSignal], Awaitable[PlanDecision]]
"""``(tool_call_id, plan, cancel)`` -> the decision (the shell asks the user)."""


class ExitPlanModeTool(ToolBase):
    """Present the plan for approval at the end of plan mode."""

    name = "exit_plan_mode"
    summary = "In plan mode: present your finished plan to the user for approval"
    guideline = (
        "In plan mode, research read-only, then call exit_plan_mode with your plan; "
        "implement only after the user approves it."
    )
    description = (
        "Use this only in plan mode, when you have finished planning an implementation and "
        "are ready to code: it shows your plan to the user, who approves it (the permission "
        "mode then allows edits and you carry the plan out) or asks you to keep planning. "
        "Do not use it for research-only questions or outside plan mode."
    )
    parameters = ExitPlanModeArgs

    def __init__(self, approve: PlanApprover | None = None) -> None:
        self.approve = approve

    def title(self, args: Mapping[str, Any]) -> str:
        """The plan's first line."""
        plan = args.get("plan") if isinstance(args, Mapping) else None
        return first_line(plan.lstrip("# "), 120) if isinstance(plan, str) else ""

    async def execute(
        self,
        tool_call_id: str,
        args: ExitPlanModeArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Ask for approval and tell the model what to do next."""
        if cancel.aborted:
            raise ToolError("Aborted")
        if self.approve is None:
            raise ToolError("Plan approval is not available here; present the plan as your answer.")
        decision = await self.approve(tool_call_id, args.plan, cancel)
        details = {"outcome": decision.outcome, "mode": decision.mode, "plan": args.plan}
        return ToolResult.of_text(_message(decision), details=details)


def _message(decision: PlanDecision) -> str:
    if decision.outcome == "approved":
        return (
            f"The user approved your plan. The permission mode is now {decision.mode}: carry "
            "out the plan, starting with its first step."
        )
    if decision.outcome == "keep_planning":
        said = f" They said: {decision.feedback}" if decision.feedback else ""
        return (
            "The user did not approve the plan and wants you to keep planning (still in plan "
            f"mode: read-only).{said} Revise the plan and call exit_plan_mode again."
        )
    if decision.outcome == "not_planning":
        return f"Plan mode is not on (the mode is {decision.mode}); carry on with the task."
    return (
        f"Nobody can approve a plan here ({decision.feedback or 'no interactive user'}). Stay "
        "in plan mode: end your turn with the plan as your final answer."
    )


def create_exit_plan_mode_tool(
    cwd: str | Path, approve: PlanApprover | None = None
) -> ExitPlanModeTool:
    """An exit_plan_mode tool (``cwd`` unused)."""
    return ExitPlanModeTool(approve)
