"""The status footer: two labelled lines that fit the terminal's width (three with a status
line command: its output first).

Line 1 is what pi is doing now (spinner, elapsed time, tokens streamed, retry countdown) and
hints (``Press Ctrl+C again to quit``), plus the *extra* items other features add, such as the
permission mode or the background shells: ``footer.set_item("mode", "auto", priority=...)``.
Line 2 is where and what: cwd, session, model and thinking level, then tokens, cache, cost and
context use. When a line is too narrow, the fields of lowest priority go first; the cwd is cut
from the left.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.content import Content
from textual.widget import Widget

CTX_WARN, CTX_DANGER = 70.0, 90.0
GOAL_STYLES = {
    "pursuing": "$activity-text",
    "paused": "$warning",
    "met": "$tool-success-text",
    "unmet": "$ctx-danger",
    "budget-limited": "$ctx-danger",
}
"""The goal's field by its state (theme variables only)."""
GAP = "  "


def short_tokens(count: int) -> str:
    """``1234`` -> ``1.2k``; ``1_234_567`` -> ``1.2M``."""
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


@dataclass
class Status:
    """What the shell says: line 2 of the footer."""

    cwd: str
    session: str
    model: str
    thinking: str
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    context_tokens: int = 0
    context_window: int = 0
    mode: str = ""
    """The permission mode (``auto``, ``plan``...; Shift+Tab cycles it)."""
    background: int = 0
    """Background shells still running, monitors aside (``/bashes`` lists them)."""
    monitors: int = 0
    """Monitors still running (``/monitors`` lists them)."""
    agents: int = 0
    """Background sub-agents still running (``/agents`` lists them)."""
    goal: str = ""
    """The session's goal (``/goal``): ``goal pursuing 2/20: the tests pass``."""
    goal_state: str = ""
    """Its state (``pursuing``, ``met``...): the field's colour."""
    loops: str = ""
    """The session's active loops and schedules (``/loop``): ``⏲ 2 loops · next 08:35``."""

    @property
    def context_percent(self) -> float:
        """Share of the context window in use."""
        return 100.0 * self.context_tokens / self.context_window if self.context_window else 0.0


@dataclass(frozen=True)
class Item:
    """One footer field: its text, style (theme variables only) and priority (higher stays).

    A ``shrink`` field (the cwd) is cut from the left, down to :data:`MIN_SHRUNK` cells,
    before it would be dropped.
    """

    text: str
    style: str = "$footer-text"
    priority: int = 50
    shrink: bool = False


MIN_SHRUNK = 12
SOFT_SHRUNK = 28  # a long cwd is cut to this before any other field is dropped


@dataclass
class FooterState:
    """Everything the footer draws."""

    status: Status
    activity: Item | None = None
    hint: Item | None = None
    extras: dict[str, Item] = field(default_factory=dict)


def cache_text(status: Status) -> str:
    """``cache 82% hit``: the share of the input read from the provider's prompt cache (what
    makes a long session cheap and fast); ``cache –`` before any input."""
    seen = status.input + status.cache_read + status.cache_write
    return f"cache {100 * status.cache_read / seen:.0f}% hit" if seen else "cache –"


def status_items(status: Status) -> tuple[list[Item], list[Item]]:
    """Line 2 as (left items, right items)."""
    thinking = (
        f" · thinking {status.thinking}" if status.thinking and status.thinking != "off" else ""
    )
    percent = status.context_percent
    ctx_style = "$ctx-danger" if percent > CTX_DANGER else "$ctx-warn" if percent > CTX_WARN else ""
    window = status.context_window
    window_text = "" if not window else f"/{window // 1000}k" if window >= 1000 else f"/{window}"
    left = [
        Item(status.cwd, priority=70, shrink=True),
        Item(f"session {status.session}", "$footer-dim", priority=20),
    ]
    if status.mode:
        left.append(Item(f"mode {status.mode}", "$warning", priority=85))
    if status.background:  # /bashes lists them
        left.append(Item(f"⚙ {status.background} bg", "$warning", priority=75))
    if status.monitors:  # /monitors lists them
        left.append(Item(f"◉ {status.monitors} monitor", "$warning", priority=76))
    if status.agents:  # /agents lists them
        plural = "s" if status.agents > 1 else ""
        left.append(Item(f"⤷ {status.agents} agent{plural}", "$warning", priority=76))
    if status.goal:
        left.append(Item(status.goal, GOAL_STYLES.get(status.goal_state, "$footer-text"), 82))
    if status.loops:  # /loop lists them
        left.append(Item(status.loops, "$activity-text", priority=78))
    right = [
        Item(f"{status.model}{thinking}", "$footer-model", priority=95),
        Item(f"↑{short_tokens(status.input)} ↓{short_tokens(status.output)}", priority=40),
        Item(cache_text(status), "$footer-dim", priority=10),
        Item(f"${status.cost:.3f}", priority=30),
        Item(f"ctx {percent:.0f}%{window_text}", ctx_style or "$footer-text", priority=80),
    ]
    return left, right


def _cut_left(text: str, width: int) -> str:
    return text if len(text) <= width else "…" + text[len(text) - width + 1 :]


def fit_line(left: list[Item], right: list[Item], width: int) -> Content:
    """Left items, a gap, right items: the lowest priorities go first (a ``shrink`` item is cut
    down instead, as far as it can be) until the line fits."""
    items = list(enumerate([*left, *right]))
    shown = {i: item.text for i, item in items}

    def length() -> int:
        return sum(len(t) for t in shown.values()) + len(GAP) * max(0, len(shown) - 1)

    for i, item in items:  # first, a long cwd gives way
        over = length() - width
        if over > 0 and item.shrink and len(item.text) > SOFT_SHRUNK:
            shown[i] = _cut_left(item.text, max(SOFT_SHRUNK, len(item.text) - over))
    for i, item in sorted(items, key=lambda pair: pair[1].priority):
        over = length() - width
        if over <= 0 or len(shown) == 1:
            break
        if item.shrink and len(shown[i]) > MIN_SHRUNK:
            shown[i] = _cut_left(shown[i], max(MIN_SHRUNK, len(shown[i]) - over))
            if length() <= width:
                break
        del shown[i]
    if length() > width and shown:  # one item left, still too long: cut it
        first = min(shown)
        shown[first] = _cut_left(shown[first], max(1, width))

    def join(group: list[tuple[int, Item]]) -> Content:
        return Content(GAP).join(
            Content.styled(shown[i], item.style) for i, item in group if i in shown
        )

    left_c, right_c = join(items[: len(left)]), join(items[len(left) :])
    pad = max(1 if left_c.cell_length and right_c.cell_length else 0,
              width - left_c.cell_length - right_c.cell_length)  # fmt: skip
    return Content.assemble(left_c, " " * pad, right_c)


class StatusFooter(Widget):
    """Two lines (see the module docstring)."""

    DEFAULT_CSS = "StatusFooter { height: 2; }"

    def __init__(self, status: Status | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = FooterState(status or Status("", "", "", ""))
        self.command_line: Content | None = None

    def set_command_line(self, text: str) -> None:
        """The status line command's output (SGR colours kept; "" removes the line): a line
        of its own above the two (:mod:`pi_cli.shell.status_line`)."""
        from rich.text import Text

        line = Content.from_rich_text(Text.from_ansi(text)) if text else None
        if line != self.command_line:
            self.command_line = line
            self.styles.height = 3 if line is not None else 2
            self.refresh(layout=True)

    def show(self, status: Status) -> None:
        """New shell status (line 2); the same one draws nothing again."""
        if status != self.state.status:
            self.state.status = status
            self.refresh()

    def set_activity(self, activity: Item | None) -> None:
        """What pi is doing now (line 1, left); ``None`` when idle."""
        if activity != self.state.activity:
            self.state.activity = activity
            self.refresh()

    def set_hint(self, hint: Item | None) -> None:
        """A transient hint (line 1, right)."""
        if hint != self.state.hint:
            self.state.hint = hint
            self.refresh()

    def set_item(self, name: str, item: Item | None) -> None:
        """Add, change or (``None``) remove an extra item of line 1 (mode, background shells)."""
        extras = self.state.extras
        if extras.get(name) == item:
            return  # every turn sets them: most turns change none
        if item is None:
            del extras[name]
        else:
            extras[name] = item
        self.refresh()

    def lines(self, width: int) -> list[Content]:
        """The two footer lines for ``width`` cells."""
        state = self.state
        first_left = [state.activity] if state.activity else []
        first_right = [*state.extras.values(), *([state.hint] if state.hint else [])]
        left, right = status_items(state.status)
        lines = [fit_line(first_left, first_right, width), fit_line(left, right, width)]
        if self.command_line is not None:
            lines.insert(0, self.command_line.truncate(width, ellipsis=True))
        return lines

    def render(self) -> Content:
        width = self.content_size.width or self.size.width or 80
        return Content("\n").join(self.lines(width))

    @property
    def text(self) -> str:
        """The footer as plain text (tests)."""
        return "\n".join(line.plain for line in self.lines(self.content_size.width or 100))
