"""``task`` with ``worktree: true``: a sub-agent works in a git worktree of its own.

The worktree is one of pi's (:mod:`pi_cli.shell.worktrees`: ``../<repo>-agent-<id>`` on branch
``worktree-agent-<id>`` from ``HEAD``), added to the session's workspace so the permission
checks and the sandbox let the child write there (and nowhere new besides). The child's file and
process tools are made again over the worktree (same sandbox, same tools' environment); other
tools (MCP...) are the parent's. When it ends, its report says what it left: the worktree's
uncommitted changes and commits, with the branch to merge; a worktree it left unchanged is
removed.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_core import Tool, ToolError
from pi_cli.shell.worktrees import WorktreeError, create_worktree, find_worktree, remove_worktree


@dataclass(frozen=True)
class ChildWorktree:
    """A child's worktree: its name, folder, branch, and the child's working folder in it."""

    name: str
    path: Path
    branch: str
    cwd: Path
    origin: Path  # the parent's working folder (the main checkout)


def open_child_worktree(parent_cwd: Path) -> ChildWorktree:
    """A fresh worktree for one child (ToolError when the parent is not in a git checkout)."""
    try:
        tree = create_worktree(parent_cwd, f"agent-{secrets.token_hex(3)}")
    except WorktreeError as exc:
        raise ToolError(f"worktree: true needs a git repository: {exc}") from None
    from pi_cli.shell.worktrees import repo_root

    inside = parent_cwd.resolve().relative_to(repo_root(parent_cwd).resolve())
    cwd = tree.path / inside
    cwd.mkdir(parents=True, exist_ok=True)
    return ChildWorktree(tree.name, tree.path, tree.branch, cwd, parent_cwd)


def worktree_tools(
    tools: list[Tool], cwd: Path, env: Mapping[str, str], sandbox: Any
) -> list[Tool]:
    """``tools`` made again over ``cwd`` where pi makes them (others kept as they are)."""
    from tools import TOOL_FACTORIES, create_tools

    names = [t.name for t in tools if t.name in TOOL_FACTORIES]
    made = {t.name: t for t in create_tools(names, cwd, env, sandbox=sandbox)}
    return [made.get(t.name, t) for t in tools]


def worktree_report(tree: ChildWorktree) -> str:
    """What the child left in its worktree (removed when it left nothing)."""
    try:
        state = find_worktree(tree.origin, tree.name)
        if state.clean:
            remove_worktree(tree.origin, tree.name)
            return f"[worktree {tree.name}: no changes; removed]"
    except WorktreeError as exc:
        return f"[worktree {tree.name} at {tree.path}: {exc}]"
    files = sorted({line[3:] for line in state.dirty})
    shown = ", ".join(files[:10]) + (f" and {len(files) - 10} more" if len(files) > 10 else "")
    parts = []
    if files:
        parts.append(f"{len(files)} uncommitted file{'s' * (len(files) > 1)} ({shown})")
    if state.unpushed:
        parts.append(f"{state.unpushed} commit{'s' * (state.unpushed > 1)}")
    return (
        f"[worktree {tree.name} at {tree.path}, branch {tree.branch}: {', '.join(parts)}; "
        f"merge the branch, or `pi worktree remove {tree.name}` to drop it]"
    )
