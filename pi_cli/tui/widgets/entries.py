"""Transcript entries that are not turns: user messages (skill calls short), compaction
summaries and notices."""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Collapsible, Static
from textual.widgets.collapsible import CollapsibleTitle


def keep_focus_in_editor(collapsible: Collapsible) -> None:
    """A title must never take the focus: typing always goes to the editor (keys toggle)."""
    for title in collapsible.query(CollapsibleTitle):
        title.can_focus = False


class UserMessageView(Static):
    """A message the model received from the user (``-injected`` for delivered queue items)."""

    def __init__(self, text: str, injected: bool = False) -> None:
        super().__init__(
            "› " + text, classes="user-message" + (" -injected" if injected else ""), markup=False
        )
        self.text = text


class SkillMessageView(Collapsible):
    """``› /skill:name args``; the skill file the model received is inside, collapsed."""

    def __init__(self, short: str, body: str, injected: bool = False) -> None:
        self.text = short
        inner = Static(body, classes="skill-body", markup=False)
        classes = "user-message skill" + (" -injected" if injected else "")
        super().__init__(inner, title=f"› {short}", collapsed=True, classes=classes)

    def on_mount(self) -> None:
        keep_focus_in_editor(self)

    def toggle(self) -> None:
        """Show or hide the skill file."""
        self.collapsed = not self.collapsed


def user_view(text: str, injected: bool = False) -> Widget:
    """The view of a user message (a skill call reads as ``/skill:name args``)."""
    from pi_cli.shell import skill_call_of

    call = skill_call_of(text)
    if call is not None:
        return SkillMessageView(call[0], call[2], injected)
    return UserMessageView(text, injected)


class SummaryView(Collapsible):
    """A compaction: what it saved in the title, the summary inside (collapsed)."""

    def __init__(self, summary: str, title: str = "Compacted context (summary)") -> None:
        inner = Static(summary or "(empty summary)", classes="summary-body", markup=False)
        super().__init__(inner, title=title, collapsed=True, classes="summary")

    def on_mount(self) -> None:
        keep_focus_in_editor(self)

    def toggle(self) -> None:
        """Show or hide the summary."""
        self.collapsed = not self.collapsed


class Notice(Static):
    """A line from the shell (command output, warnings, errors)."""

    def __init__(self, text: str | Content, level: str = "info") -> None:
        super().__init__(text, classes=f"notice -{level}", markup=False)
