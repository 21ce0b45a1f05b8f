"""The dialog broker: a question out as an event, the answer back in, never a hang."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from pi_cli.shell import DialogAnswer, DialogBroker, DialogRequested, DialogResolved, UiChanged


def broker(
    asking: Any = "interactive", timeout: float | None = 120.0
) -> tuple[DialogBroker, list[Any]]:
    events: list[Any] = []
    return DialogBroker(events.append, asking, timeout), events


async def answer_when_asked(b: DialogBroker, answer: object) -> bool:
    while not b.pending:
        await asyncio.sleep(0)
    return b.answer(b.pending[0].id, answer)


async def test_nobody_to_ask_answers_at_once_cancelled() -> None:
    b, events = broker("none")
    assert await b.confirm("Proceed?") is False
    assert await b.input("Name") is None
    choice = await b.select("Pick", ["a", "b"])
    assert choice.cancelled and choice.by == "no_user" and choice.value is None
    kinds = [(type(e).__name__, getattr(e, "by", None)) for e in events]
    assert kinds == [("DialogRequested", None), ("DialogResolved", "no_user")] * 3
    assert events[1].confirmed is False and events[1].cancelled


async def test_single_select_by_label_case_insensitive_and_the_wire_shape() -> None:
    b, events = broker()
    task = asyncio.ensure_future(b.select("Deploy where?", [("staging", "safe"), "production"]))
    assert await answer_when_asked(b, {"value": "STAGING"})
    answer = await task
    assert answer.values == ("staging",) and answer.value == "staging" and not answer.cancelled
    request, resolved = events
    assert request.options[0].description == "safe" and request.options[1].description is None
    from agent_core import to_wire

    assert to_wire(request) == {
        "type": "dialog_requested",
        "id": "dialog-1",
        "kind": "select",
        "title": "Deploy where?",
        "options": [{"label": "staging", "description": "safe"}, {"label": "production"}],
        "multiple": False,
        "allowOther": False,
    }
    assert to_wire(resolved) == {
        "type": "dialog_resolved",
        "id": "dialog-1",
        "by": "user",
        "cancelled": False,
        "value": "staging",
        "values": ["staging"],
    }


async def test_multiple_choice_with_an_answer_of_ones_own() -> None:
    b, _ = broker()
    task = asyncio.ensure_future(
        b.select("Which?", ["a", "b", "c"], multiple=True, allow_other=True)
    )
    assert await answer_when_asked(b, {"values": ["c", "a", "a", "something else"]})
    answer = await task
    assert answer.values == ("c", "a") and answer.other == "something else"


@pytest.mark.parametrize(
    ("kwargs", "answer", "problem"),
    [
        ({}, {"value": "nope"}, "not one of the options"),
        ({}, {"values": ["a", "b"]}, "one answer"),
        ({}, {"other": "mine"}, "of your own"),
        ({"multiple": True}, {"values": []}, "choose an option"),
        ({}, {"values": "a"}, "must be a list"),
        ({}, {"value": 3}, "must be a string"),
        ({}, 12, "mapping, a string or a bool"),
        ({"allow_other": True}, {"other": "   "}, "choose an option"),
    ],
)
async def test_answers_that_do_not_fit_are_refused_and_the_question_stays(
    kwargs: dict[str, Any], answer: object, problem: str
) -> None:
    b, _ = broker()
    task = asyncio.ensure_future(b.select("Pick", ["a", "b"], **kwargs))
    while not b.pending:
        await asyncio.sleep(0)
    request_id = b.pending[0].id
    with pytest.raises(ValueError, match=problem):
        b.answer(request_id, answer)
    assert b.knows(request_id)  # still waiting: a front end may answer again
    assert b.answer(request_id, {"cancelled": True})
    assert (await task).cancelled
    assert not b.answer(request_id, {"value": "a"})  # answered already


async def test_confirm_input_and_editor() -> None:
    b, _ = broker()
    task = asyncio.ensure_future(b.confirm("Sure?", "It is final."))
    assert await answer_when_asked(b, {"confirmed": True})
    assert await task is True
    task = asyncio.ensure_future(b.confirm("Sure?"))
    assert await answer_when_asked(b, "no")
    assert await task is False
    task2 = asyncio.ensure_future(b.input("Name", placeholder="you", default="pi"))
    assert await answer_when_asked(b, {"value": "Ada"})
    assert await task2 == "Ada"
    task3 = asyncio.ensure_future(b.editor("Notes", default="a\nb"))
    assert await answer_when_asked(b, DialogAnswer(text="line 1\n\x00line 2"))
    assert await task3 == "line 1\n\x00line 2"  # the asker gets what was typed, unchanged
    task4 = asyncio.ensure_future(b.input("Huge"))
    with pytest.raises(ValueError, match="longer than"):
        await answer_when_asked(b, {"value": "x" * 200_000})
    b.answer(b.pending[0].id, {"cancelled": True})
    assert await task4 is None


async def test_a_remote_client_that_does_not_answer_times_out_and_the_request_says_when() -> None:
    b, events = broker("remote", timeout=0.05)
    assert await b.confirm("Anyone?") is False
    request, resolved = events
    assert request.timeout_ms == 50 and resolved.by == "timeout" and resolved.cancelled
    assert not b.pending


async def test_the_askers_own_timeout_wins_even_interactively() -> None:
    b, events = broker("interactive", timeout=None)
    assert await b.input("Quick", timeout_s=0.02) is None
    assert events[-1].by == "timeout"


async def test_abort_cancels_the_wait_and_resolves_aborted() -> None:
    b, events = broker()
    task = asyncio.ensure_future(b.confirm("Wait for me"))
    while not b.pending:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert isinstance(events[-1], DialogResolved) and events[-1].by == "aborted"
    assert not b.pending


async def test_questions_are_asked_one_at_a_time_in_order() -> None:
    b, events = broker()
    first = asyncio.ensure_future(b.input("first"))
    second = asyncio.ensure_future(b.input("second"))
    await asyncio.sleep(0.01)
    shown = [e.title for e in events if isinstance(e, DialogRequested)]
    assert shown == ["first"]  # the second waits for the first
    b.answer(b.pending[0].id, "1")
    await first
    await answer_when_asked(b, "2")
    assert (await first, await second) == ("1", "2")


@pytest.mark.parametrize(
    ("kind", "kwargs", "problem"),
    [
        ("select", {"title": "x"}, "needs options"),
        ("select", {"title": "x", "options": ["a", "a"]}, "distinct"),
        ("select", {"title": "x", "options": ["a", " "]}, "not empty"),
        ("select", {"title": "x", "options": [str(i) for i in range(300)]}, "at most"),
        ("confirm", {"title": " "}, "needs a title"),
        ("input", {"title": "x", "timeout_s": 0}, "positive"),
    ],
)
def test_malformed_requests_are_refused(kind: Any, kwargs: dict[str, Any], problem: str) -> None:
    b, events = broker()
    with pytest.raises(ValueError, match=problem):
        b.request(kind, **kwargs)
    assert events == []


def test_ui_pieces_are_state_changes_only() -> None:
    b, events = broker()
    b.set_ui("footer", "ext.branch", text="main")
    b.set_ui("footer", "ext.branch", text="main")  # unchanged: no event
    b.set_ui("panel", "ext.todo", lines=["a", "b"])
    b.set_ui("status", "ext.gone")  # clearing what is not there: nothing
    b.set_ui("footer", "ext.branch")
    assert [(e.slot, e.key, e.text, e.lines) for e in events if isinstance(e, UiChanged)] == [
        ("footer", "ext.branch", "main", None),
        ("panel", "ext.todo", None, ["a", "b"]),
        ("footer", "ext.branch", None, None),
    ]
    assert [(e.slot, e.key) for e in b.ui_state()] == [("panel", "ext.todo")]
