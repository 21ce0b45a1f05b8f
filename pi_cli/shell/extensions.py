"""Installs skills, prompt templates, hooks, compaction and branching into a CodingAgent.

Kept out of ``coding_agent.py`` so the shell's core stays small: the shell calls
:func:`install_extensions` once at the end of its constructor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_cli.shell.branching import branching_commands
from pi_cli.shell.compaction import CompactionError, Compactor
from pi_cli.shell.hooks import install_hooks
from pi_cli.shell.skills import install_skills
from pi_cli.shell.slash_commands import CommandResult, SlashCommand
from pi_cli.shell.templates import install_templates

if TYPE_CHECKING:
    from pi_cli.shell.coding_agent import CodingAgent


async def _compact(shell: CodingAgent, args: str) -> CommandResult:
    try:
        result = await shell.compact(args.strip() or None)
    except CompactionError as exc:
        return CommandResult(output=f"Compaction failed: {exc}", error=True)
    return CommandResult(
        output=f"Compacted: {result.tokens_before} → ~{result.tokens_after} tokens."
    )


def install_extensions(shell: CodingAgent) -> None:
    """Everything that makes the shell adaptable and long-running."""
    shell.compactor = Compactor(shell)
    shell.commands.register(
        SlashCommand(
            "compact", "Summarise older messages to free context", _compact, usage="[instructions]"
        )
    )
    for command in branching_commands():
        shell.commands.register(command)
    install_skills(shell)
    install_templates(shell)
    install_hooks(shell)
