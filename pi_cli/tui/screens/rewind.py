"""``/rewind`` in the TUI: pick a prompt (newest first, with what changed after it), then what to
restore; files changed by hand since then are named and need a yes (or are kept as they are).

The flow runs in a worker of the app (:func:`pick_rewind`); the shell does the work
(``shell.checkpoints``). A rewind of the conversation puts the prompt back into the editor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pi_cli.tui.screens.choice import ChoiceScreen
from pi_cli.tui.screens.picker import PickerScreen

if TYPE_CHECKING:
    from pi_cli.shell import RewindPlan, RewindPoint
    from pi_cli.tui.host import TuiHost as PickerHost

MODES = {
    "both": ("Restore code and conversation", True, True),
    "code": ("Restore code only", True, False),
    "conversation": ("Restore conversation only", False, True),
}


def point_rows(points: list[RewindPoint]) -> list[tuple[str, str]]:
    """Picker rows, the newest prompt first: ``N. prompt  (2 files +10 -3)``."""
    rows = []
    for number, point in reversed(list(enumerate(points, 1))):
        rows.append((point.entry_id, f"{number:>3}. {point.text}  ({point.changes()})"))
    return rows


def plan_lines(plan: RewindPlan) -> list[str]:
    """What restoring the code would do, one line per file."""
    return ["Restoring the code would:", *(f"  {line}" for line in plan.lines())]


async def pick_rewind(host: PickerHost) -> None:
    """The whole ``/rewind`` dialogue; Esc at a later question goes back to the one before."""
    from pi_cli.shell import RewindError, describe_rewind

    shell = host.shell
    assert shell is not None
    try:
        points = await shell.checkpoints.points()
    except RewindError as exc:
        host.notify(str(exc), severity="error")
        return
    if not points:
        host.notify("No prompts on this branch to rewind to.")
        return
    rows = point_rows(points)
    entry_id: str | None = rows[0][0]
    while True:
        entry_id = await host.push_screen_wait(
            PickerScreen("Rewind to before which prompt? (type to filter)", rows, current=entry_id)
        )
        if not entry_id:
            return
        point = next(p for p in points if p.entry_id == entry_id)
        plan = await shell.checkpoints.plan(entry_id) if point.has_code else None
        choice = await _what_to_restore(host, point, plan)
        if choice != "back":
            break
    if choice is None:
        return
    _, code, conversation, overwrite = choice
    try:
        result = await shell.checkpoints.rewind(
            entry_id, code=code, conversation=conversation, overwrite=overwrite
        )
    except RewindError as exc:
        host.notify(str(exc), severity="error")
        return
    if result.text:
        host.editor.set_text(result.text)
    host.notify(describe_rewind(result))


Restore = tuple[str, bool, bool, bool | None]  # mode, code, conversation, overwrite


async def _what_to_restore(
    host: PickerHost, point: RewindPoint, plan: RewindPlan | None
) -> Restore | Literal["back"] | None:
    """What to restore (and whether to overwrite files changed by hand since): ``"back"`` when
    Esc asked for the prompt list again, ``None`` when cancelled."""
    options = [
        (key, label)
        for key, (label, code, _) in MODES.items()
        if not code or plan and not plan.problem
    ]
    options.append(("cancel", "Cancel"))
    body = plan_lines(plan) if plan is not None else ["There is no snapshot of the code then."]
    while True:
        mode = await host.push_screen_wait(
            ChoiceScreen(f"Rewind to: {point.text}", body, options, escape="Back to the prompts")
        )
        if mode is None:
            return "back"
        if mode == "cancel":
            return None
        _, code, conversation = MODES[mode]
        if not (code and plan is not None and plan.by_hand):
            return mode, code, conversation, None
        answer = await host.push_screen_wait(
            ChoiceScreen(
                "Files changed by hand since then",
                ["These files were changed by hand after that prompt:", *plan.by_hand],
                [
                    ("overwrite", "Overwrite them too"),
                    ("keep", "Keep them as they are, restore the rest"),
                    ("cancel", "Cancel"),
                ],
                escape="Back",
            )
        )
        if answer == "cancel":
            return None
        if answer is not None:
            return mode, code, conversation, answer == "overwrite"
