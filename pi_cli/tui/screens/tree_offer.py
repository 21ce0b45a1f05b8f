"""After choosing an entry in ``/tree``: continue from there, and optionally restore the code of
that point and summarise the branch left behind (pi's ``branch_summary``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_cli.tui.screens.choice import ChoiceScreen

if TYPE_CHECKING:
    from pi_cli.tui.host import TuiHost as PickerHost


async def continue_from(host: PickerHost, entry_id: str) -> bool:
    """Ask how to continue from ``entry_id``, then do it through the shell; ``False`` when Esc
    asked to go back to the tree."""
    from pi_cli.shell import CompactionError, RewindError, describe_rewind

    shell = host.shell
    assert shell is not None
    plan = await shell.checkpoints.plan(entry_id)
    restorable = plan.problem is None and bool(plan.changes)
    summarise = plan.leaves_branch  # moving there leaves entries behind: summarise them?
    options = [("plain", "Continue from here (files stay as they are)")]
    files = f"{len(plan.changes)} file{'s' if len(plan.changes) != 1 else ''}"
    if restorable:
        options.append(("code", f"Continue from here and restore its code ({files})"))
    if summarise:
        options.append(("summary", "Summarise the branch left behind, then continue"))
    if summarise and restorable:
        options.append(("summary+code", "Summarise the branch, continue and restore the code"))
    options.append(("cancel", "Cancel"))
    body = [f"  {line}" for line in plan.lines()] if restorable else []
    if plan.by_hand and restorable:
        body.append("Files marked [changed by hand] are overwritten only if you restore the code.")
    choice = await host.push_screen_wait(
        ChoiceScreen("Continue from this entry", body, options, escape="Back to the tree")
    )
    if choice is None:
        return False
    if choice == "cancel":
        return True
    code = choice in ("code", "summary+code")
    try:
        result = await shell.checkpoints.rewind(
            entry_id,
            code=code,
            conversation=True,
            summarize=choice.startswith("summary"),
            overwrite=True if code and plan.by_hand else None,
        )
    except (RewindError, CompactionError) as exc:
        host.notify(str(exc), severity="error")
        return True
    if result.text:
        host.editor.set_text(result.text)
    if code:
        host.notify(describe_rewind(result))
    return True
