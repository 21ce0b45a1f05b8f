"""The model's scheduling tools, pi's names for Claude Code's CronCreate / CronList / CronDelete.

``schedule_create`` takes CronCreate's arguments (``cron``, ``prompt``, ``recurring``,
``durable``) plus pi's: ``interval`` instead of a cron expression, ``at`` for one time,
``max_firings`` and ``expires_in`` to bound it. Every schedule is stored in the session (so
``durable`` is accepted and always true). Creating and deleting go through the permission gate
like any tool (they ask in the default mode); listing is read-only.
"""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from msgspec import Meta

from agent_core import AbortSignal, Tool, ToolArguments, ToolBase, ToolError, ToolResult
from agent_core.tool import OnToolUpdate
from pi_cli.shell.schedules._state import MAX_PROMPT_CHARS
from pi_cli.shell.schedules._timing import format_time, iso

if TYPE_CHECKING:
    from pi_cli.shell.schedules._schedules import Schedules
    from pi_cli.shell.schedules._state import Schedule


class CreateArgs(ToolArguments, forbid_unknown_fields=True):
    """Arguments of schedule_create (CronCreate's, and pi's bounds)."""

    prompt: Annotated[
        str, Meta(max_length=MAX_PROMPT_CHARS, description="The prompt to send at each firing.")
    ]
    cron: Annotated[
        Annotated[str, Meta(max_length=200)] | None,
        Meta(
            description='Standard 5-field cron expression in UTC: "M H DoM Mon DoW" (e.g. '
            '"*/5 * * * *" = every 5 minutes, "0 9 * * 1-5" = weekdays at 09:00 UTC).'
        ),
    ] = None
    interval: Annotated[
        Annotated[str, Meta(max_length=40)] | None,
        Meta(description='Instead of cron: fire every interval, e.g. "30s", "5m", "2h", "1d".'),
    ] = None
    at: Annotated[
        Annotated[str, Meta(max_length=60)] | None,
        Meta(
            description='Instead of cron: fire once at this time: "14:30" (UTC), '
            '"2026-12-03T09:00Z", or "+20m".'
        ),
    ] = None
    recurring: Annotated[
        bool,
        Meta(
            description="true (default): fire on every match until deleted or bounded; false: "
            "fire once at the next match, then end."
        ),
    ] = True
    durable: Annotated[
        bool,
        Meta(
            description="Accepted for Claude Code's shape: pi always keeps schedules in the session."
        ),
    ] = True
    max_firings: Annotated[
        Annotated[int, Meta(ge=1, le=1_000_000)] | None,
        Meta(description="End after this many firings."),
    ] = None
    expires_in: Annotated[
        Annotated[str, Meta(max_length=40)] | None,
        Meta(description='End after this long, e.g. "8h" (nothing ends otherwise until deleted).'),
    ] = None


class DeleteArgs(ToolArguments):
    """Arguments of schedule_delete."""

    id: Annotated[
        str, Meta(max_length=64, description="The id schedule_create or schedule_list gave.")
    ]


class ListArgs(ToolArguments):
    """schedule_list takes no arguments."""


def job(schedule: "Schedule") -> dict[str, Any]:
    """A schedule as schedule_list reports it (CronList's fields, and pi's)."""
    return {
        "id": schedule.id,
        "cron": schedule.cron,
        "interval": schedule.every_s,
        "humanSchedule": schedule.describe(),
        "prompt": schedule.prompt,
        "recurring": schedule.recurring,
        "durable": True,
        "fired": schedule.fired,
        "nextFireAt": iso(schedule.next_due()),
    }


class ScheduleCreateTool(ToolBase):
    """Schedule a prompt (Claude Code's CronCreate)."""

    name = "schedule_create"
    parameters = CreateArgs
    description = (
        "Schedule a prompt to be sent to you later in this session: on a cron expression "
        "(UTC), every interval, or once at a time. Each firing arrives as a new user prompt "
        "(after the current run if one is live). Use it for 'remind me at 14:30', 'check the "
        "deploy every 10 minutes'. Schedules stay in the session until deleted or bounded "
        "(max_firings, expires_in); prefer bounds for polling."
    )

    def __init__(self, schedules: "Schedules") -> None:
        self.schedules = schedules

    def title(self, args: Mapping[str, Any]) -> str:
        when = next((str(args[k]) for k in ("cron", "interval", "at") if args.get(k)), "")
        prompt = " ".join(str(args.get("prompt") or "").split())[:60]
        return f"{when}: {prompt}" if when else prompt

    async def execute(
        self,
        tool_call_id: str,
        args: CreateArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        from pi_cli.shell.schedules._schedules import ScheduleError

        try:
            created = self.schedules.create_from_text(
                args.prompt, cron=args.cron, interval=args.interval, at=args.at,
                recurring=args.recurring, max_firings=args.max_firings, expires_in=args.expires_in,
            )  # fmt: skip
        except ScheduleError as exc:
            raise ToolError(str(exc)) from None
        due = created.next_due()
        when = f"next firing {format_time(due)}" if due is not None else "no firing left"
        text = f"Scheduled {created.id}: {created.describe()}{created.bounds()}; {when}."
        if not self.schedules.live:
            text += " (It fires while this session is open interactively, not in this run.)"
        details = {**job(created), "humanSchedule": created.describe()}
        return ToolResult.of_text(text, details=details)


class ScheduleListTool(ToolBase):
    """List the session's schedules (Claude Code's CronList)."""

    name = "schedule_list"
    parameters = ListArgs
    read_only = True  # the permission engine: it changes nothing
    description = "List the scheduled prompts of this session (ids, schedules, next firings)."

    def __init__(self, schedules: "Schedules") -> None:
        self.schedules = schedules

    async def execute(
        self,
        tool_call_id: str,
        args: ListArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        active = self.schedules.active()
        jobs = [job(schedule) for schedule in active]
        if not active:
            return ToolResult.of_text("No scheduled prompts.", details={"jobs": []})
        text = "\n".join(schedule.line() for schedule in active)
        return ToolResult.of_text(text, details={"jobs": jobs})


class ScheduleDeleteTool(ToolBase):
    """Delete a schedule (Claude Code's CronDelete)."""

    name = "schedule_delete"
    parameters = DeleteArgs
    description = "Delete a scheduled prompt of this session by its id."

    def __init__(self, schedules: "Schedules") -> None:
        self.schedules = schedules

    async def execute(
        self,
        tool_call_id: str,
        args: DeleteArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        from pi_cli.shell.schedules._schedules import ScheduleError

        try:
            deleted = self.schedules.delete(args.id)
        except ScheduleError as exc:
            raise ToolError(str(exc)) from None
        return ToolResult.of_text(
            f"Deleted {deleted.id} ({deleted.describe()}).", details={"id": deleted.id}
        )


def schedule_tools(schedules: "Schedules") -> list[Tool]:
    """The three tools bound to ``schedules``."""
    return [
        ScheduleCreateTool(schedules),
        ScheduleListTool(schedules),
        ScheduleDeleteTool(schedules),
    ]
