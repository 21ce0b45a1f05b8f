"""Transcript entries that are not turns: prompts (skill calls short), notices, compaction
summaries, and the plain lines inside a turn (errors, retries, an answer before Markdown)."""

from __future__ import annotations

from textual.content import Content

from pi_cli.tui.document import styles
from pi_cli.tui.document.panel import BAR, Panel
from pi_cli.tui.document.rows import Block, Row, wrap


class TextBlock(Block):
    """Wrapped text with padding either side and a style beneath (a base for simple entries)."""

    pad_left = 0
    pad_right = 0

    def __init__(self, text: str | Content, style: str = "") -> None:
        super().__init__()
        self.content = text if isinstance(text, Content) else Content(text)
        self.style = style
        self._rows: tuple[int, list[Row]] | None = None

    def update(self, text: str | Content) -> None:
        """Show other text."""
        self.content = text if isinstance(text, Content) else Content(text)
        self._rows = None
        self.changed()

    def left(self) -> Content:
        """Decoration before each row (padding, a bar)."""
        return Content(" " * self.pad_left)

    def rows(self, width: int) -> list[Row]:
        """All rows at ``width`` (cached)."""
        if self._rows is None or self._rows[0] != width:
            left = self.left()
            inner = max(1, width - left.cell_length - self.pad_right)
            right = Content(" " * self.pad_right)
            rows = [row.framed(left, right) for row in wrap(self.content, inner)]
            if self.style:
                rows = [row.under(self.style) for row in rows]
            self._rows = (width, rows)
        return self._rows[1]

    def measure(self, width: int) -> int:
        return len(self.rows(width))

    def draw(self, index: int, width: int) -> Row:
        return self.rows(width)[index]

    def plain_text(self) -> str:
        return self.content.plain


class UserBlock(TextBlock):
    """A message the model received from the user (``injected``: a delivered queue item)."""

    margin_top = 1
    pad_left = 1
    pad_right = 1

    def __init__(self, text: str, injected: bool = False) -> None:
        super().__init__("› " + text, styles.USER)
        self.text = text
        self.injected = injected

    def left(self) -> Content:
        if self.injected:
            return Content.styled(BAR, styles.STEER_BAR) + Content(" ")
        return super().left()


class NoticeBlock(TextBlock):
    """A line from the shell (command output, warnings, errors)."""

    pad_left = 1
    pad_right = 1

    def __init__(self, text: str | Content, level: str = "info") -> None:
        super().__init__(text, "")
        self.level = level
        if not isinstance(text, Content):
            self.content = Content.styled(text, styles.NOTICE.get(level, styles.NOTICE["info"]))


class NoteBlock(TextBlock):
    """A line inside a turn: an error, an ``aborted`` note, a retry."""

    def __init__(self, text: str, kind: str = "error") -> None:
        super().__init__(Content.styled(text, styles.NOTE_STYLES.get(kind, "")))
        self.kind = kind


class PlainAnswer(TextBlock):
    """An older resumed answer drawn as plain text (Markdown costs more to build in bulk)."""

    pad_right = 1
    margin_bottom = 1


class FoldedPromptBlock(Panel):
    """A prompt shown short (``› …`` as its title) with all the model received inside, folded:
    a click on the title or Ctrl+O on the cursor unfolds it."""

    bar = False
    title_pad = 0
    indent = 3
    body_top = 1
    margin_top = 1

    def __init__(self, short: str, body: str, injected: bool = False) -> None:
        super().__init__(f"› {short}", collapsed=True)
        self.text = short
        self.injected = injected
        self.body.append(TextBlock(Content.styled(body, styles.NOTICE["info"])))

    def title_style(self) -> str:
        return styles.USER

    def draw(self, index: int, width: int) -> Row:
        return super().draw(index, width).under(styles.USER)


class SkillBlock(FoldedPromptBlock):
    """``› /skill:name args``; the skill file the model received is inside, folded."""


class PastedBlock(FoldedPromptBlock):
    """A long prompt: ``› summarise this: [pasted 80 lines]``; the whole text inside, folded."""


class SummaryBlock(Panel):
    """A compaction: what it saved in the title, the summary inside (folded)."""

    indent = 3
    body_top = 1
    margin_top = 1

    def __init__(self, summary: str, title: str = "Compacted context (summary)") -> None:
        super().__init__(title, collapsed=True)
        self.summary = summary
        text = Content.styled(summary or "(empty summary)", styles.NOTICE["info"])
        self.body.append(TextBlock(text))

    def title_style(self) -> str:
        return styles.NOTICE["info"]

    def plain_text(self) -> str:
        return str(self.title)


class MonitorBlock(Panel):
    """``◉ bash_3 · dev server — 2 new lines``: a monitor's delivery, its lines inside."""

    indent = 3
    margin_top = 1

    def __init__(self, text: str, injected: bool = False) -> None:
        header, _, lines = text.partition("\n")
        label = header.removeprefix(MONITOR_PREFIX).replace("] ", " — ", 1)
        super().__init__(f"◉ {label}", collapsed=False)
        self.text = text
        self.injected = injected
        if lines:
            self.body.append(TextBlock(Content.styled(lines, styles.NOTICE["info"])))

    def title_style(self) -> str:
        return styles.NOTICE["warning"]


MONITOR_PREFIX = "[monitor "
"""How a monitor's delivery begins (:class:`tools.bash.monitor.MonitorDelivery`)."""


def user_block(text: str, injected: bool = False, shown: str | None = None) -> Block:
    """The block of a user message: a skill call reads as ``/skill:name args``; a long one
    (a paste) as ``shown`` — the editor's text with its pastes as ``[pasted 80 lines]`` — or,
    resumed, as its first line and how many more; the whole text unfolds; a monitor's delivery
    as its lines."""
    from pi_cli.shell import skill_call_of
    from pi_cli.tui.paste import is_long, short_form

    if text.startswith(MONITOR_PREFIX):
        return MonitorBlock(text, injected)
    call = skill_call_of(text)
    if call is not None:
        return SkillBlock(call[0], call[2], injected)
    if shown is not None and shown != text:
        return PastedBlock(shown, text, injected)
    if is_long(text):
        return PastedBlock(short_form(text), text, injected)
    return UserBlock(text, injected)
