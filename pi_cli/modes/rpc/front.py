"""RPC commands for interactive front ends driving a shell from elsewhere (ours, not pi's).

The TUI and the plain REPL attached to a ``pi serve`` session call the shell through these:

- ``submit`` hands input over as an editor does and answers once it was handled, with what a
  command said (``{result: {output, error, action, prompt, clipboard, quit} | null}``);
- ``get_slash_commands`` lists every command (built-ins too) for completion and ``/help``;
- ``get_tree`` / ``navigate_tree`` are ``/tree``'s picker; ``set_permission_mode`` /
  ``cycle_permission_mode`` the mode (Shift+Tab);
- ``get_front_state`` is what a footer and a header show besides ``get_state``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from agent_core import to_wire
from pi_cli.modes.rpc.base import Handler, RpcContext, RpcError, images_arg, text_arg
from pi_cli.modes.rpc.ui import request_line
from pi_cli.shell import CommandResult

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent

INTENTS = ("auto", "steer", "follow_up")


def result_wire(result: CommandResult | None) -> dict[str, Any] | None:
    """A command's result on the wire (``None`` for a prompt)."""
    if result is None:
        return None
    return {
        "output": result.output,
        "error": result.error,
        "action": result.action,
        "prompt": result.prompt,
        "clipboard": result.clipboard,
        "edit": str(result.edit) if result.edit is not None else None,
        "quit": result.quit,
    }


def front_state(shell: CodingAgent) -> dict[str, Any]:
    """``get_front_state``: what an interactive front end shows besides ``get_state``."""
    used, window = shell.context_usage()
    timeout = shell.permissions.approval_timeout_s
    return {
        "cwd": str(shell.cwd),
        "model": shell.model_id,
        "thinkingLevel": shell.thinking,
        "state": shell.state,
        "streaming": shell.streaming,
        "sessionId": shell.session.session_id,
        "sessionFile": str(shell.session.path) if shell.session.path else None,
        "settings": shell.settings.model_dump(mode="json", by_alias=True),
        "permissionMode": shell.permissions.mode,
        "contextWindow": window,
        "contextTokens": used,
        "backgroundShells": [_shell_info(i) for i in shell.sandbox.shells.infos()],
        "mcp": to_wire(shell.mcp.status_event())["servers"],
        "todos": list(shell.agent_tools.todos.items),
        "lsp": _lsp_servers(shell),
        "goal": to_wire(shell.goals.event()).get("goal"),
        "schedules": to_wire(shell.schedules.event())["schedules"],
        "pendingApprovals": [request_line(r, timeout) for r in shell.permissions.pending],
        "ui": [to_wire(piece) for piece in shell.dialogs.ui_state()],
        "contextFiles": [str(f.path) for f in shell.sources.context_files],
        "skills": [s.name for s in shell.sources.skills],
        "extensionKeys": _extension_keys(shell),
    }


def _extension_keys(shell: CodingAgent) -> list[dict[str, str]]:
    """The extensions' key bindings (an attached front end binds them; pressing one runs
    ``run_extension_key``)."""
    extensions = shell.extensions
    if extensions is None:
        return []
    return [
        {"id": k.id, "keys": k.keys, "description": k.description, "extension": k.extension}
        for k in extensions.keys()
    ]


def _lsp_servers(shell: CodingAgent) -> list[dict[str, Any]]:
    """The started language servers' states (none until one was asked for)."""
    started = shell.lsp.started
    return to_wire(started.status_event())["servers"] if started is not None else []


def tree_wire(shell: CodingAgent) -> dict[str, Any]:
    """``get_tree``: the session tree (what ``/tree`` shows)."""
    entries = []
    for entry in shell.tree_entries():
        wire = asdict(entry)
        entries.append(
            {
                "id": wire["id"],
                "parentId": wire["parent_id"],
                "type": wire["type"],
                "preview": wire["preview"],
                "depth": wire["depth"],
                "isLeaf": wire["is_leaf"],
                "onPath": wire["on_path"],
                "role": wire["role"],
                "label": wire["label"],
            }
        )
    return {"entries": entries}


def start_extension_key(shell: CodingAgent, key_id: str) -> dict[str, Any]:
    """``run_extension_key``: the handler runs on the extension's thread, as for a local key."""
    extensions = shell.extensions
    if extensions is None or all(k.id != key_id for k in extensions.keys()):
        raise RpcError(f"no extension key {key_id!r} (get_front_state lists them)")
    extensions.start_key(key_id)
    return {"keyId": key_id}


def _shell_info(info: Any) -> dict[str, Any]:
    return {
        "id": info.id,
        "command": info.command,
        "state": info.state,
        "exitCode": info.exit_code,
        "pid": info.pid,
        "startedAt": info.started_at,
        "sandboxed": info.sandboxed,
    }


def front_commands(rpc: RpcContext) -> Mapping[str, Handler]:
    """The remote front ends' group."""
    shell = rpc.shell

    async def submit(command: dict[str, Any]) -> Any:
        intent = command.get("intent", "auto")
        if intent not in INTENTS:
            raise RpcError('"intent" must be one of auto, steer, follow_up')
        future = shell.submit(text_arg(command), intent, images_arg(command))

        async def handled() -> Any:
            return {"result": result_wire(await future)}

        rpc.spawn(command, handled())

    async def get_slash_commands(command: dict[str, Any]) -> Any:
        return {
            "commands": [
                {
                    "name": c.name,
                    "description": c.description,
                    "usage": c.usage,
                    "aliases": list(c.aliases),
                    "source": c.source,
                    "whileRunning": c.while_running,
                }
                for c in shell.commands.visible()
            ]
        }

    async def get_tree(command: dict[str, Any]) -> Any:
        return tree_wire(shell)

    async def navigate_tree(command: dict[str, Any]) -> Any:
        await rpc.settle()
        return {"text": shell.navigate_to(text_arg(command, "entryId"))}

    async def set_permission_mode(command: dict[str, Any]) -> Any:
        try:
            return {"mode": shell.permissions.set_mode(text_arg(command, "mode"))}
        except ValueError as exc:  # ModeError: a user-facing message
            raise RpcError(str(exc)) from None

    async def cycle_permission_mode(command: dict[str, Any]) -> Any:
        return {"mode": shell.permissions.cycle()}

    async def get_front_state(command: dict[str, Any]) -> Any:
        return front_state(shell)

    async def run_extension_key(command: dict[str, Any]) -> Any:
        return start_extension_key(shell, text_arg(command, "keyId"))

    return {
        "submit": submit,
        "get_slash_commands": get_slash_commands,
        "get_tree": get_tree,
        "navigate_tree": navigate_tree,
        "set_permission_mode": set_permission_mode,
        "cycle_permission_mode": cycle_permission_mode,
        "get_front_state": get_front_state,
        "run_extension_key": run_extension_key,
    }
