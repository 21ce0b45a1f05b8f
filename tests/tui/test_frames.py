"""The transcript's frames while a run streams: 25 a second while turns come at a model's pace,
10 a second while turns come faster than frames show them (a burst of quick tool calls: drawn
with the app's tick, a timer as the fallback); a change waiting for its frame is drawn as soon
as the run ends."""

from __future__ import annotations

from typing import Any

import pytest

from pi_cli.tui.document import frames
from pi_cli.tui.document.frames import BURST_FRAME_S, FRAME_S, FramePacer

FALLBACK_S = BURST_FRAME_S + FRAME_S  # a burst's frame when no tick draws it first


class FakeTimer:
    def __init__(self, wait: float, callback: Any) -> None:
        self.wait, self.callback, self.stopped = wait, callback, False

    def stop(self) -> None:
        self.stopped = True


class FakeView:
    """What the pacer uses of the view: layouts asked for, timers set."""

    def __init__(self) -> None:
        self.layouts = 0
        self.timers: list[FakeTimer] = []

    def refresh(self, *, layout: bool) -> None:
        assert layout
        self.layouts += 1

    def set_timer(self, wait: float, callback: Any, name: str) -> FakeTimer:
        timer = FakeTimer(wait, callback)
        self.timers.append(timer)
        return timer


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [100.0]
    monkeypatch.setattr(frames.time, "monotonic", lambda: now[0])
    return now


def fire(view: FakeView, clock: list[float]) -> float:
    """Let the pending frame timer fire (the clock moves on by its wait); returns the wait."""
    timer = view.timers.pop()
    assert not timer.stopped
    clock[0] += timer.wait
    timer.callback()
    return timer.wait


def test_idle_changes_are_laid_out_at_once(clock: list[float]) -> None:
    view = FakeView()
    pacer = FramePacer(view)  # type: ignore[arg-type]
    pacer.changed()
    pacer.changed()
    assert view.layouts == 2 and not view.timers


def test_a_run_at_a_models_pace_gets_25_frames_a_second(clock: list[float]) -> None:
    view = FakeView()
    pacer = FramePacer(view)  # type: ignore[arg-type]
    pacer.set_throttled(True)
    pacer.turn_started()
    pacer.changed()  # the first change is drawn at once
    assert view.layouts == 1
    for _ in range(5):  # deltas of the answer
        pacer.changed()
        pacer.changed()  # a second change in the same frame sets no second timer
        assert len(view.timers) == 1
        assert fire(view, clock) == pytest.approx(FRAME_S)
    pacer.turn_started()  # one turn in a frame is still a model's pace
    pacer.changed()
    assert fire(view, clock) == pytest.approx(FRAME_S)
    assert view.layouts == 7


def test_turns_faster_than_frames_get_10_frames_a_second_until_they_slow(
    clock: list[float],
) -> None:
    view = FakeView()
    pacer = FramePacer(view)  # type: ignore[arg-type]
    pacer.set_throttled(True)
    pacer.changed()
    for _ in range(3):  # three quick tool turns before the next frame
        pacer.turn_started()
        pacer.changed()
    assert fire(view, clock) == pytest.approx(FRAME_S)  # that frame finds the burst
    pacer.turn_started()
    pacer.turn_started()
    pacer.changed()
    assert fire(view, clock) == pytest.approx(FALLBACK_S)  # the burst goes on
    pacer.changed()  # no new turn since: the pace is back
    assert fire(view, clock) == pytest.approx(FALLBACK_S)
    pacer.changed()
    assert fire(view, clock) == pytest.approx(FRAME_S)


def test_the_end_of_a_run_draws_the_waiting_change_now(clock: list[float]) -> None:
    view = FakeView()
    pacer = FramePacer(view)  # type: ignore[arg-type]
    pacer.set_throttled(True)
    pacer.changed()
    for _ in range(3):
        pacer.turn_started()
    pacer.changed()
    timer = view.timers[-1]
    pacer.set_throttled(False)
    assert timer.stopped and view.layouts == 2
    pacer.set_throttled(True)  # the next run starts at 25 frames a second
    clock[0] += 1.0
    pacer.changed()
    pacer.changed()
    assert view.timers[-1].wait == pytest.approx(FRAME_S)


def test_in_a_burst_the_tick_draws_the_waiting_frame(clock: list[float]) -> None:
    view = FakeView()
    pacer = FramePacer(view)  # type: ignore[arg-type]
    pacer.set_throttled(True)
    pacer.draw_pending()  # nothing waits: no frame
    assert view.layouts == 0
    pacer.changed()
    pacer.turn_started()
    pacer.turn_started()
    pacer.changed()
    fire(view, clock)  # the frame that finds the burst
    assert view.layouts == 2
    clock[0] += 0.01
    pacer.turn_started()
    pacer.changed()
    timer = view.timers[-1]
    assert timer.wait > BURST_FRAME_S  # the tick (every BURST_FRAME_S) comes first
    clock[0] += BURST_FRAME_S - 0.01
    pacer.draw_pending()  # the tick
    assert timer.stopped and view.layouts == 3
    pacer.draw_pending()
    assert view.layouts == 3
