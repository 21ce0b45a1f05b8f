"""The startup header: version line, loaded context files, skills and the key hints that work."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class StartupHeader(Static):
    """Shown once at the top of the transcript."""

    def __init__(self, context_files: list[str], skills: list[str], hints: list[tuple[str, str]]) -> None:
        lines = [Content.styled("pi — interactive coding agent", "bold $turn-title")]
        lines.append(Content.styled("Context: " + (", ".join(context_files) or "none"), "$notice-text"))
        if skills:
            lines.append(Content.styled("Skills: " + ", ".join(skills), "$notice-text"))
        for keys, meaning in hints:
            lines.append(Content.assemble((f"{keys:<34}", "bold $hint-text"), (meaning, "$hint-text")))
        super().__init__(Content("\n").join(lines), id="startup-header")
