"""Queued messages under the transcript: ``Steering: ...`` / ``Follow-up: ...`` until delivered."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class QueueView(Static):
    """Shows the steer and follow-up queues; hidden (no ``-shown`` class) when both are empty."""

    def __init__(self) -> None:
        super().__init__("", id="queue", markup=False)
        self.steering: list[str] = []
        self.follow_ups: list[str] = []

    def show_queues(self, steering: list[str], follow_ups: list[str]) -> None:
        """Render the queues (texts in delivery order)."""
        if steering == self.steering and follow_ups == self.follow_ups:
            return  # unchanged: ``update`` would lay the whole screen out again for nothing
        self.steering, self.follow_ups = list(steering), list(follow_ups)
        lines = [Content.styled(f"Steering: {_one_line(t)}", "$queue-steer") for t in steering]
        lines += [
            Content.styled(f"Follow-up: {_one_line(t)}", "$queue-follow-up") for t in follow_ups
        ]
        if lines:
            lines.append(
                Content.styled("↳ Alt+Q edit one · Alt+Up edit all · Esc abort", "$hint-text")
            )
        self.update(Content("\n").join(lines))
        self.set_class(bool(lines), "-shown")
