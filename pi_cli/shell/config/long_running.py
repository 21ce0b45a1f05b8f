"""The settings of long-running work: ``goal`` (``/goal``, ``--goal``), ``monitor`` (the monitor
tool's pacing and caps)."""

from __future__ import annotations

from pydantic import Field

from pi_cli.shell.config.sections import SettingsSection


class GoalSettings(SettingsSection):
    """``goal``: how a goal is pursued (``/goal``, ``--goal``)."""

    max_rounds: int = Field(
        default=20,
        ge=1,
        le=1000,
        description="Rounds (model runs) a goal is pursued before it is budget-limited; "
        "`/goal resume` grants as many again.",
    )
    judge_model: str | None = Field(
        default=None,
        description="The model that judges a goal without a check command, as "
        "`provider/model` (unset: the session's model).",
    )
    check_timeout_s: float = Field(
        default=600.0,
        gt=0,
        description="How long a goal's check command may run (seconds); one that runs longer "
        "counts as not met.",
    )


class MonitorSettings(SettingsSection):
    """``monitor``: how a monitor's lines are delivered (the ``monitor`` tool)."""

    interval_s: float = Field(
        default=2.0,
        ge=0.05,
        le=3600,
        description="At most one delivery per monitor in this many seconds; lines arriving "
        "meanwhile go together in the next one.",
    )
    max_lines: int = Field(
        default=50,
        ge=1,
        le=5000,
        description="Lines per delivery; more matching lines are counted and said, not sent.",
    )
    max_line_bytes: int = Field(
        default=500,
        ge=20,
        le=100_000,
        description="Bytes of one delivered line; a longer line is cut (and counted).",
    )
