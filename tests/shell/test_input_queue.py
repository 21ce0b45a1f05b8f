"""The shell's input queue: stable ids, one item edited, removed, moved or promoted, and the
loop's drains in both delivery modes."""

from __future__ import annotations

import pytest

from pi_cli.shell.input_queue import InputQueue, QueueError


def _kinds_texts(queue: InputQueue) -> list[tuple[str, str]]:
    return [(item.kind, item.text) for item in queue.items()]


def test_items_are_grouped_steers_follow_ups_held_in_arrival_order() -> None:
    changes: list[list[str]] = []
    queue = InputQueue(on_change=lambda items: changes.append([i.text for i in items]))
    queue.add("f1", "follow_up")
    queue.add("h1", "held")
    queue.add("s1", "steer")
    queue.add("f2", "follow_up")
    queue.add("s2", "steer")
    assert _kinds_texts(queue) == [
        ("steer", "s1"),
        ("steer", "s2"),
        ("follow_up", "f1"),
        ("follow_up", "f2"),
        ("held", "h1"),
    ]
    assert changes[-1] == ["s1", "s2", "f1", "f2", "h1"] and len(changes) == 5
    assert len({item.id for item in queue.items()}) == 5


def test_one_item_is_edited_removed_and_promoted_by_id() -> None:
    queue = InputQueue()
    a = queue.add("a", "follow_up")
    b = queue.add("b", "follow_up")
    queue.add("s", "steer")
    edited = queue.edit(a.id, "a, but better")
    assert edited.id == a.id and edited.kind == "follow_up"
    assert _kinds_texts(queue) == [
        ("steer", "s"),
        ("follow_up", "a, but better"),
        ("follow_up", "b"),
    ]
    promoted = queue.promote(b.id)
    assert promoted.id == b.id and promoted.kind == "steer"
    assert _kinds_texts(queue) == [("steer", "s"), ("steer", "b"), ("follow_up", "a, but better")]
    queue.remove(a.id)
    assert _kinds_texts(queue) == [("steer", "s"), ("steer", "b")]
    with pytest.raises(QueueError, match="delivered"):
        queue.edit(a.id, "gone")
    with pytest.raises(QueueError):
        queue.remove("q999")


def test_move_stays_within_the_items_group() -> None:
    queue = InputQueue()
    steer = queue.add("s", "steer")
    first = queue.add("f1", "follow_up")
    queue.add("f2", "follow_up")
    third = queue.add("f3", "follow_up")
    queue.move(third.id, 1)
    assert [i.text for i in queue.items()] == ["s", "f3", "f1", "f2"]
    queue.move(first.id, 0)  # before the steer is not its group: clamped to the group's start
    assert [i.text for i in queue.items()] == ["s", "f1", "f3", "f2"]
    queue.move(first.id, 99)
    assert [i.text for i in queue.items()] == ["s", "f3", "f2", "f1"]
    queue.move(steer.id, 3)  # alone in its group
    assert [i.text for i in queue.items()] == ["s", "f3", "f2", "f1"]


@pytest.mark.parametrize(
    ("mode", "drains"), [("one-at-a-time", [["s1"], ["s2"], []]), ("all", [["s1", "s2"], []])]
)
def test_drains_honour_the_delivery_mode(mode: str, drains: list[list[str]]) -> None:
    queue = InputQueue(steering_mode=mode, follow_up_mode=mode)  # type: ignore[arg-type]
    queue.add("s1", "steer")
    queue.add("f1", "follow_up")
    queue.add("s2", "steer")
    queue.add("h1", "held")
    seen = [[m.text for m in queue.drain_steering()] for _ in drains]
    assert seen == drains
    assert [m.text for m in queue.drain_follow_ups()] == ["f1"]
    assert _kinds_texts(queue) == [("held", "h1")]  # never drained by a run's loop


def test_leftovers_become_held_before_held_inputs_and_keep_their_ids() -> None:
    queue = InputQueue()
    held = queue.add("typed during compaction", "held")
    late = queue.add("late steer", "steer")
    follow = queue.add("late follow-up", "follow_up")
    queue.hold_leftovers()
    items = queue.items()
    assert [(i.id, i.kind) for i in items] == [
        (late.id, "held"),
        (follow.id, "held"),
        (held.id, "held"),
    ]
    assert queue.take_next_held() == items[0]
    assert [i.text for i in queue.take_all()] == ["late follow-up", "typed during compaction"]
    assert queue.items() == []
