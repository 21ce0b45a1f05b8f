"""RPC commands of loops and scheduled prompts (ours, not pi's).

``get_schedules`` lists the active ones (``{schedules: [info]}``, the shape of the
``schedules_changed`` event's); ``create_schedule`` takes ``schedule_create``'s fields
(``prompt``; one of ``cron``, ``interval``, ``at``; ``recurring``, ``maxFirings``, ``expiresIn``)
and answers ``{schedule: info}``; ``delete_schedule`` stops one (``scheduleId``, an id prefix)
or every one (``"all"``) and answers ``{deleted: [ids]}``. Each change is also a
``schedules_changed`` event; each firing a ``schedule_fired``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_core import to_wire
from pi_cli.modes.rpc.base import Handler, RpcContext, RpcError, text_arg
from pi_cli.shell import ScheduleError


def _optional(command: dict[str, Any], key: str, kind: type) -> Any:
    value = command.get(key)
    if value is not None and (
        not isinstance(value, kind) or isinstance(value, bool) != (kind is bool)
    ):
        raise RpcError(f'"{key}" must be a {kind.__name__}')
    return value


def schedule_commands(rpc: RpcContext) -> Mapping[str, Handler]:
    """The schedules group."""
    schedules = rpc.shell.schedules

    async def get_schedules(command: dict[str, Any]) -> Any:
        return {"schedules": to_wire(schedules.event())["schedules"]}

    async def create_schedule(command: dict[str, Any]) -> Any:
        try:
            created = schedules.create_from_text(
                text_arg(command, "prompt"),
                cron=_optional(command, "cron", str),
                interval=_optional(command, "interval", str),
                at=_optional(command, "at", str),
                recurring=command.get("recurring") is not False,
                max_firings=_optional(command, "maxFirings", int),
                expires_in=_optional(command, "expiresIn", str),
                by="user",
            )
        except ScheduleError as exc:
            raise RpcError(str(exc)) from None
        return {"schedule": to_wire(created.info())}

    async def delete_schedule(command: dict[str, Any]) -> Any:
        ref = text_arg(command, "scheduleId")
        if ref == "all":
            ids = [schedule.id for schedule in schedules.active()]
            schedules.delete_all()
            return {"deleted": ids}
        try:
            return {"deleted": [schedules.delete(ref).id]}
        except ScheduleError as exc:
            raise RpcError(str(exc)) from None

    return {
        "get_schedules": get_schedules,
        "create_schedule": create_schedule,
        "delete_schedule": delete_schedule,
    }
