"""The startup header: version line, loaded context files, skills and the key hints that work."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

from pi_cli.tui.keymap import has_extended_keys, key_hints
from pi_cli.tui.status import home_relative

if TYPE_CHECKING:
    from pi_cli.shell import FrontShell


def header_parts(
    shell: FrontShell | None, cwd: Path, keymap: dict[str, str], extended: bool | None
) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """(context files, skills, key hints) for the header; ``extended`` None: guess here."""
    if extended is None:  # asking tmux costs a process: not before the first frame
        extended = False if os.environ.get("TMUX") else has_extended_keys()
    hints = key_hints(keymap, extended)
    if shell is None:
        return [], [], hints

    def short(path: Path) -> str:
        try:
            return str(path.relative_to(cwd))
        except ValueError:
            return home_relative(path)

    return (
        [short(f.path) for f in shell.sources.context_files],
        [s.name for s in shell.sources.skills],
        hints,
    )


def _header_content(
    context_files: list[str], skills: list[str], hints: list[tuple[str, str]], loading: bool
) -> Content:
    lines = [Content.styled("pi — interactive coding agent", "bold $turn-title")]
    context = "loading…" if loading else (", ".join(context_files) or "none")
    lines.append(Content.styled("Context: " + context, "$notice-text"))
    if skills:
        lines.append(Content.styled("Skills: " + ", ".join(skills), "$notice-text"))
    column = max((len(keys) for keys, _ in hints), default=0) + 2
    for keys, meaning in hints:
        lines.append(
            Content.assemble((f"{keys:<{column}}", "bold $hint-text"), (meaning, "$hint-text"))
        )
    return Content("\n").join(lines)


class StartupHeader(Static):
    """Shown once at the top of the transcript (``loading`` until the shell is ready)."""

    def __init__(
        self,
        context_files: list[str],
        skills: list[str],
        hints: list[tuple[str, str]],
        loading: bool = False,
    ) -> None:
        super().__init__(
            _header_content(context_files, skills, hints, loading), id="startup-header"
        )

    def show(
        self, context_files: list[str], skills: list[str], hints: list[tuple[str, str]]
    ) -> None:
        """Replace the placeholder with what the shell loaded."""
        self.update(_header_content(context_files, skills, hints, loading=False))
