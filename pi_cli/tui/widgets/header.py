"""The startup header: version line, loaded context files, skills and the key hints that work."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


def _header_content(
    context_files: list[str], skills: list[str], hints: list[tuple[str, str]], loading: bool
) -> Content:
    lines = [Content.styled("pi — interactive coding agent", "bold $turn-title")]
    context = "loading…" if loading else (", ".join(context_files) or "none")
    lines.append(Content.styled("Context: " + context, "$notice-text"))
    if skills:
        lines.append(Content.styled("Skills: " + ", ".join(skills), "$notice-text"))
    for keys, meaning in hints:
        lines.append(Content.assemble((f"{keys:<34}", "bold $hint-text"), (meaning, "$hint-text")))
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
