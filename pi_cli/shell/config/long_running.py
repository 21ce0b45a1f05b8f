"""The settings of long-running work: ``goal`` (``/goal``, ``--goal``), ``monitor`` (the monitor
tool's pacing and caps)."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from pi_cli.shell.config.sections import SettingsSection


class GoalSettings(SettingsSection):
    """``goal``: how a goal is pursued (``/goal``, ``--goal``)."""

    max_rounds: Annotated[
        int,
        Meta(
            ge=1,
            le=1000,
            description="Rounds (model runs) a goal is pursued before it is budget-limited; "
            "`/goal resume` grants as many again.",
        ),
    ] = 20
    judge_model: Annotated[
        str | None,
        Meta(
            description="The model that judges a goal without a check command, as "
            "`provider/model` (unset: the session's model)."
        ),
    ] = None
    check_timeout_s: Annotated[
        float,
        Meta(
            gt=0,
            description="How long a goal's check command may run (seconds); one that runs longer "
            "counts as not met.",
        ),
    ] = 600.0


class MonitorSettings(SettingsSection):
    """``monitor``: how a monitor's lines are delivered (the ``monitor`` tool)."""

    interval_s: Annotated[
        float,
        Meta(
            ge=0.05,
            le=3600,
            description="At most one delivery per monitor in this many seconds; lines arriving "
            "meanwhile go together in the next one.",
        ),
    ] = 2.0
    max_lines: Annotated[
        int,
        Meta(
            ge=1,
            le=5000,
            description="Lines per delivery; more matching lines are counted and said, not sent.",
        ),
    ] = 50
    max_line_bytes: Annotated[
        int,
        Meta(
            ge=20,
            le=100_000,
            description="Bytes of one delivered line; a longer line is cut (and counted).",
        ),
    ] = 500
