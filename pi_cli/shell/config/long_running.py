"""The settings of long-running work: ``goal`` (``/goal``, ``--goal``)."""

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
