"""Session commands: ``/name`` (a session's name) and ``/label`` (a label on a tree entry)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_cli.shell.commands import CommandResult, SlashCommand, split_args
from pi_cli.shell.session.names import (
    first_prompt,
    session_name,
    set_label,
    set_session_name,
    short_title,
)
from pi_cli.shell.session.store import SessionError
from pi_cli.shell.session.tree import HIDDEN_TYPES

if TYPE_CHECKING:
    from pi_cli.shell.commands import ShellAPI


async def _name(shell: ShellAPI, args: str) -> CommandResult:
    session = shell.session
    if not args.strip():
        name = session_name(session)
        if name:
            return CommandResult(output=f"Session name: {name}")
        title = short_title(first_prompt(session))
        shown = f" (title from the first prompt: {title})" if title else ""
        return CommandResult(output=f"This session has no name{shown}. Usage: /name <name>")
    set_session_name(session, args)
    return CommandResult(output=f"Session named {session_name(session)}")


def _shown_leaf(shell: ShellAPI) -> str | None:
    """The leaf, or its nearest ancestor the tree shows (not a checkpoint or a label)."""
    session = shell.session
    current = session.leaf_id
    while current is not None and session.entries[current].type in HIDDEN_TYPES:
        current = session.entries[current].parent_id
    return current


async def _label(shell: ShellAPI, args: str) -> CommandResult:
    words = split_args(args)
    clear = "--clear" in words
    words = [w for w in words if w != "--clear"]
    session = shell.session
    target = _shown_leaf(shell)
    if words and words[0] in session.entries:
        target, words = words[0], words[1:]
    if target is None:
        return CommandResult(output="Nothing to label yet.", error=True)
    if not words and not clear:
        return CommandResult(
            output="Usage: /label [entry id] <label> | /label [entry id] --clear", error=True
        )
    try:
        set_label(session, target, None if clear else " ".join(words))
    except SessionError as exc:
        return CommandResult(output=str(exc), error=True)
    done = "Cleared the label of" if clear else f"Labelled {' '.join(words)!r}:"
    return CommandResult(output=f"{done} entry {target} (see /tree)")


def session_commands() -> list[SlashCommand]:
    """``/name`` and ``/label``."""
    return [
        SlashCommand("name", "Show or set the session's name", _name, usage="[name]"),
        SlashCommand(
            "label",
            "Label an entry of the session tree (default: the last one); shown in /tree",
            _label,
            usage="[entry id] <label> | --clear",
        ),
    ]
