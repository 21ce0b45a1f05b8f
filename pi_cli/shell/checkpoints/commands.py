"""``/rewind``: the prompts of this branch with what changed after each; rewind code,
conversation or both to one of them; undo the last rewind.

``/rewind`` lists (the TUI opens its picker), ``/rewind N [both|code|conversation] [--yes|--keep]``
rewinds to prompt ``N`` (or an entry id), ``/rewind undo`` undoes the last rewind. Files
changed by hand since the point need ``--yes`` (overwrite) or ``--keep`` (leave them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_cli.shell.commands import CommandResult, SlashCommand, split_args

if TYPE_CHECKING:  # the rewind machinery loads when /rewind is used, not with every shell
    from pi_cli.shell.checkpoints.rewind import RewindPoint, RewindResult
    from pi_cli.shell.commands import ShellAPI

MODES = {"both": (True, True), "code": (True, False), "conversation": (False, True)}


def format_points(points: list[RewindPoint]) -> str:
    """The numbered list ``/rewind`` and ``pi rewind`` print."""
    if not points:
        return "No prompts on this branch yet."
    lines = [f"{i:>3}. {p.entry_id}  {p.text}  ({p.changes()})" for i, p in enumerate(points, 1)]
    lines.append(
        "/rewind N [both|code|conversation] rewinds to before prompt N; /rewind undo undoes "
        "the last rewind."
    )
    return "\n".join(lines)


def describe_rewind(result: RewindResult) -> str:
    """One paragraph saying what a rewind did."""
    parts = []
    restored = result.restored
    if restored is not None:
        parts.append(
            f"Restored {len(restored.written)} file(s), removed {len(restored.deleted)} "
            "created since."
        )
        if restored.failed:
            parts.append("Could not restore: " + "; ".join(restored.failed[:5]))
        if (
            result.plan
            and result.plan.by_hand
            and not set(result.plan.by_hand) & set(restored.written)
        ):
            parts.append("Kept as they are (changed by hand): " + ", ".join(result.plan.by_hand))
    elif result.plan is not None:
        parts.append("The files are already as they were then.")
    if result.moved:
        parts.append("The conversation continues from before that prompt.")
    if result.undo_id:
        parts.append("/rewind undo puts everything back.")
    return " ".join(parts) or "Nothing to rewind."


def resolve_point(points: list[RewindPoint], ref: str) -> str:
    """An entry id from ``N`` (1 = the oldest prompt listed) or an entry id (prefix)."""
    if ref.isdigit():
        index = int(ref)
        if not 1 <= index <= len(points):
            from pi_cli.shell.checkpoints.rewind import RewindError

            raise RewindError(f"No prompt {index}: the list has {len(points)}")
        return points[index - 1].entry_id
    matches = [p.entry_id for p in points if p.entry_id.startswith(ref)]
    if len(matches) == 1:
        return matches[0]
    return ref  # any other entry of the session (checked by the rewind)


async def _rewind(shell: ShellAPI, args: str) -> CommandResult:
    from pi_cli.shell.checkpoints.rewind import NeedsConfirmation, RewindError

    words = split_args(args)
    overwrite = True if "--yes" in words else (False if "--keep" in words else None)
    words = [w for w in words if w not in ("--yes", "--keep")]
    try:
        if not words:
            points = await shell.checkpoints.points()
            return CommandResult(output=format_points(points), action="pick_rewind")
        if words[0] == "undo":
            result = await shell.checkpoints.undo(overwrite)
        else:
            mode = words[1] if len(words) > 1 else "both"
            if mode not in MODES or len(words) > 2:
                return CommandResult(
                    output="Usage: /rewind [N [both|code|conversation]]", error=True
                )
            code, conversation = MODES[mode]
            entry_id = resolve_point(await shell.checkpoints.points(), words[0])
            result = await shell.checkpoints.rewind(
                entry_id, code=code, conversation=conversation, overwrite=overwrite
            )
    except NeedsConfirmation as exc:
        return CommandResult(
            output=f"{exc}\nAdd --yes to overwrite them or --keep to leave them.", error=True
        )
    except RewindError as exc:
        return CommandResult(output=str(exc), error=True)
    text = f"\nEdit and resend: {result.text}" if result.text else ""
    return CommandResult(output=describe_rewind(result) + text)


def rewind_commands() -> list[SlashCommand]:
    """``/rewind``."""
    return [
        SlashCommand(
            "rewind",
            "Rewind code and/or conversation to before an earlier prompt (undo: /rewind undo)",
            _rewind,
            usage="[N|undo] [both|code|conversation] [--yes|--keep]",
        )
    ]
