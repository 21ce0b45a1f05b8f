"""``/init``: the model studies the project and writes ``AGENTS.md`` (as Claude Code's, Codex's and
opencode's ``/init`` do). The file is written by the model with the write tool, from what it
learns by reading; an existing AGENTS.md is improved, not replaced blindly."""

from __future__ import annotations

from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand

INIT_PROMPT = """\
Analyze this project and write an AGENTS.md file at {path}: the instructions a coding agent \
needs to work here effectively. {existing}

First study the project: list the top-level files, read the README, the build and package \
files ({manifests}), CI configuration, and a few representative source and test files. Read \
any CLAUDE.md, .cursorrules, .cursor/rules or .github/copilot-instructions.md and keep what \
matters from them.

Then write AGENTS.md (use the write tool), concise and specific to this project:
- Project overview: what it is and how the code is organized (main directories, entry points).
- Build, lint and test commands, including how to run a single test.
- Code style and conventions actually used here (formatting, naming, imports, error handling, types).
- Architecture notes a newcomer would otherwise get wrong, and anything surprising.
Only include what you verified in the files; no generic advice, no invented commands. Keep it \
under about 150 lines. When done, reply with a two-line summary of what you wrote.
"""
MANIFESTS = "package.json, pyproject.toml, Cargo.toml, go.mod, Makefile, ..."


async def _init(shell: ShellAPI, args: str) -> CommandResult:
    if not any(tool.name == "write" for tool in shell.tools):
        return CommandResult(
            output="/init needs the write tool (enable it with --tools ...,write).", error=True
        )
    path = shell.cwd / "AGENTS.md"
    existing = (
        "An AGENTS.md already exists: read it first and improve it, keeping what is still right."
        if path.exists()
        else ""
    )
    prompt = INIT_PROMPT.format(path=path, existing=existing, manifests=MANIFESTS).strip()
    if args.strip():
        prompt += f"\n\nAlso: {args.strip()}"
    return CommandResult(prompt=prompt)


def init_commands() -> list[SlashCommand]:
    """``/init``."""
    return [SlashCommand("init", "Study the project and write AGENTS.md", _init, usage="[focus]")]
