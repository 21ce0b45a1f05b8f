"""Models of the session, queue, approval, checkpoint and front-end commands."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from pi_cli.modes.rpc.schema.base import Command

# ---------------------------------------------------------------------- sessions


class Compact(Command):
    """Summarise older messages now."""

    type: Literal["compact"]
    custom_instructions: str | None = None


class NewSession(Command):
    """A fresh session."""

    type: Literal["new_session"]


class SwitchSession(Command):
    """Resume another session of this project (``sessionPath``: a path or an id)."""

    type: Literal["switch_session"]
    session_path: str | None = None
    session: str | None = None


class Fork(Command):
    """Fork before ``entryId`` (a user message: its text comes back), or the whole path."""

    type: Literal["fork"]
    entry_id: str | None = None


class Clone(Command):
    """Copy the current path into a new session."""

    type: Literal["clone"]


class GetForkMessages(Command):
    """The user messages a fork may start before."""

    type: Literal["get_fork_messages"]


class ExportHtml(Command):
    """Export the session as one HTML file."""

    type: Literal["export_html"]
    output_path: str | None = None


class SetSessionName(Command):
    """Name the session."""

    type: Literal["set_session_name"]
    name: str


# ---------------------------------------------------------------------- queue


class GetQueue(Command):
    """What is queued: ``{items: [{id, text, kind}]}``."""

    type: Literal["get_queue"]


class EditQueued(Command):
    """Replace the text of one queued item."""

    type: Literal["edit_queued"]
    item_id: str
    text: str


class RemoveQueued(Command):
    """Drop one queued item."""

    type: Literal["remove_queued"]
    item_id: str


class MoveQueued(Command):
    """Move one queued item (within its group)."""

    type: Literal["move_queued"]
    item_id: str
    index: int


class PromoteQueued(Command):
    """Make a queued follow-up or held input a steer."""

    type: Literal["promote_queued"]
    item_id: str


class TakeQueued(Command):
    """Take everything queued back."""

    type: Literal["take_queued"]


# ---------------------------------------------------------------------- approvals


class ExtensionUiResponse(Command):
    """The answer to an ``extension_ui_request`` (an approval): ``value`` (an option label or
    a choice id), ``confirmed`` or ``cancelled``. No response line follows a valid one."""

    type: Literal["extension_ui_response"]
    id: str = Field(description="The request's id.")
    value: str | None = None
    confirmed: bool | None = None
    cancelled: bool | None = None
    scope: Literal["project", "user"] | None = None
    message: str | None = None


# ---------------------------------------------------------------------- checkpoints


class Rewind(Command):
    """List rewind points, plan (``dryRun``) or rewind to ``entryId``; ``undo`` undoes."""

    type: Literal["rewind"]
    entry_id: str | None = None
    mode: Literal["both", "code", "conversation"] = "both"
    dry_run: bool = False
    overwrite: bool | None = None
    undo: bool = False
    summarize: bool = Field(
        default=False, description="Ours: summarise the branch left behind (pi's branch summary)."
    )


class Restore(Command):
    """Restore the code of ``entryId`` (the conversation stays); ``undo`` undoes."""

    type: Literal["restore"]
    entry_id: str | None = None
    overwrite: bool | None = None
    undo: bool = False


# ---------------------------------------------------------------------- remote front ends


class GetSlashCommands(Command):
    """Ours: every slash command (built-ins too) with its usage, aliases and source."""

    type: Literal["get_slash_commands"]


class GetTree(Command):
    """Ours: the session tree (what ``/tree`` shows)."""

    type: Literal["get_tree"]


class NavigateTree(Command):
    """Ours: continue from an entry of the tree; a user message's text comes back."""

    type: Literal["navigate_tree"]
    entry_id: str


class SetPermissionMode(Command):
    """Ours: the permission mode (default, acceptEdits, auto, plan, dontAsk, bypassPermissions)."""

    type: Literal["set_permission_mode"]
    mode: str


class CyclePermissionMode(Command):
    """Ours: the next permission mode of the Shift+Tab cycle."""

    type: Literal["cycle_permission_mode"]


class RunExtensionKey(Command):
    """Ours: run the handler of an extension's key binding (``keyId``, as ``get_front_state``'s
    ``extensionKeys`` lists them): what an attached front end does when that key is pressed."""

    type: Literal["run_extension_key"]
    key_id: str


class GetFrontState(Command):
    """Ours: what an interactive front end shows besides ``get_state``: settings, usage,
    permission mode, background shells, MCP servers, todos, pending approvals, loaded files."""

    type: Literal["get_front_state"]
