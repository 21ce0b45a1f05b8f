"""The status footer: cwd, session, model, thinking, tokens, cache, cost and context use."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

CTX_WARN, CTX_DANGER = 70.0, 90.0


def short_tokens(count: int) -> str:
    """``1234`` -> ``1.2k``."""
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


@dataclass
class Status:
    """Everything the footer shows."""

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

    @property
    def context_percent(self) -> float:
        """Share of the context window in use."""
        return 100.0 * self.context_tokens / self.context_window if self.context_window else 0.0


class StatusFooter(Horizontal):
    """One line of labels; the context label turns ``-warn`` > 70 % and ``-danger`` > 90 %."""

    NAMES = ("cwd", "session", "mode", "model", "tokens", "cache", "cost", "context")

    def compose(self) -> ComposeResult:
        # Kept as attributes, not queried: updates may arrive while the app shuts down.
        self.labels = {
            n: Label("", id=f"status-{n}", classes="status-item", markup=False) for n in self.NAMES
        }
        yield from self.labels.values()

    def show(self, status: Status) -> None:
        """Update every label."""
        thinking = f" · {status.thinking}" if status.thinking and status.thinking != "off" else ""
        values = {
            "cwd": status.cwd,
            "session": status.session,
            "mode": status.mode,
            "model": f"{status.model}{thinking}",
            "tokens": f"↑{short_tokens(status.input)} ↓{short_tokens(status.output)}",
            "cache": f"R{short_tokens(status.cache_read)} W{short_tokens(status.cache_write)}",
            "cost": f"${status.cost:.3f}",
            "context": f"ctx {status.context_percent:.0f}%",
        }
        for name, value in values.items():
            self.labels[name].update(value)
        context = self.labels["context"]
        percent = status.context_percent
        context.set_class(CTX_WARN < percent <= CTX_DANGER, "-warn")
        context.set_class(percent > CTX_DANGER, "-danger")
