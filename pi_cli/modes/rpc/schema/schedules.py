"""RPC commands of loops and scheduled prompts (``/loop``, ``schedule_create``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pi_cli.modes.rpc.schema.base import Command


class GetSchedules(Command):
    """List the session's active loops and schedules."""

    type: Literal["get_schedules"]


class CreateSchedule(Command):
    """Schedule a prompt: on a cron expression (UTC), every interval, or once at a time."""

    type: Literal["create_schedule"]
    prompt: str
    cron: str | None = Field(default=None, description='5 fields in UTC: "*/5 * * * *".')
    interval: str | None = Field(default=None, description='"30s", "5m", "2h", "1d".')
    at: str | None = Field(default=None, description='"14:30" (UTC), an ISO time or "+20m".')
    recurring: bool = True
    max_firings: int | None = None
    expires_in: str | None = Field(default=None, description='End after this long: "8h".')


class DeleteSchedule(Command):
    """Stop a schedule (its id, or a unique prefix) or every one (``"all"``)."""

    type: Literal["delete_schedule"]
    schedule_id: str


SCHEDULE_COMMANDS = (GetSchedules, CreateSchedule, DeleteSchedule)
