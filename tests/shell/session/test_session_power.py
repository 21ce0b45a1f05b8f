"""Session power: the durable queue, names and titles, labels in the tree, branch summaries."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pi_cli.shell.session.names import session_name, short_title, title_of
from pi_cli.shell.session.store import SessionStore
from tests.agent_core.scripted_stream import reply, text, tool_call
from tests.shell.helpers import make_shell, notices


def entries(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


async def _queue_then_abort(project: Path) -> Path:
    shell, _, recorder = make_shell(project, reply(hang=True))
    task = asyncio.ensure_future(shell.submit("start"))
    while not shell.agent.state.is_streaming:
        await asyncio.sleep(0.01)
    await shell.submit("steer me")
    await shell.submit("and later", intent="follow_up")
    shell.abort()
    await task
    await shell.wait_idle()
    returned = recorder.of_type("queue_returned")
    assert [i.text for i in returned[-1].items] == ["steer me", "and later"]
    assert shell.session.path is not None
    return shell.session.path


async def test_an_aborted_queue_comes_back_on_the_next_start_once(project: Path) -> None:
    path = await _queue_then_abort(project)
    stored = [e for e in entries(path) if e["type"] == "queue"]
    assert stored[-1]["reason"] == "aborted" and [i["text"] for i in stored[-1]["items"]] == [
        "steer me",
        "and later",
    ]
    assert "queue" not in {e.type for e in SessionStore.open(path).entries.values()}  # no tree node
    second, _, recorder = make_shell(project, continue_session=True, offer_stored_queue=True)
    restored = [e for e in recorder.of_type("queue_returned") if e.reason == "restored"]
    assert [i.text for i in restored[0].items] == ["steer me", "and later"]
    assert any("2 messages still queued" in n for n in notices(recorder))
    third, _, again = make_shell(project, continue_session=True, offer_stored_queue=True)
    assert not again.of_type("queue_returned")  # offered once


async def test_a_failed_run_stores_its_queue_and_the_next_run_clears_it(project: Path) -> None:
    shell, _, recorder = make_shell(
        project,
        reply(tool_call("c1", "bash", {"command": "sleep 0.5"})),
        reply(error="provider exploded"),
        reply(text("fine again")),
        tools=["bash"],
    )
    task = asyncio.ensure_future(shell.submit("go"))
    while not recorder.of_type("tool_execution_start"):
        await asyncio.sleep(0.01)
    await shell.submit("a follow-up", intent="follow_up")
    await task
    await shell.wait_idle()
    assert recorder.of_type("queue_returned")[-1].reason == "error"
    path = shell.session.path
    assert path is not None
    assert any(
        e["type"] == "queue" and e["reason"] == "error" and e["items"][0]["text"] == "a follow-up"
        for e in entries(path)
    )
    await shell.submit("a new prompt")  # the user dealt with what came back
    await shell.wait_idle()
    last_queue = [e for e in entries(path) if e["type"] == "queue"][-1]
    assert last_queue["items"] == [] and last_queue["reason"] == "sent"
    _, _, later = make_shell(project, continue_session=True, offer_stored_queue=True)
    assert not later.of_type("queue_returned")


async def test_delivered_steers_never_come_back(project: Path) -> None:
    shell, _, _ = make_shell(
        project,
        reply(tool_call("c1", "bash", {"command": "sleep 0.3"})),
        reply(text("saw the steer")),
        tools=["bash"],
    )
    task = asyncio.ensure_future(shell.submit("go"))
    while not shell.agent.state.is_streaming:
        await asyncio.sleep(0.01)
    await shell.submit("steer now")
    await task
    await shell.wait_idle()
    assert shell.session.path is not None
    queues = [e for e in entries(shell.session.path) if e["type"] == "queue"]
    assert queues[0]["items"][0]["text"] == "steer now" and queues[-1]["items"] == []
    _, _, recorder = make_shell(project, continue_session=True, offer_stored_queue=True)
    assert not recorder.of_type("queue_returned")


async def test_names_titles_and_labels_in_the_tree(project: Path) -> None:
    shell, _, _ = make_shell(project, reply(text("A1")), reply(text("A2")))
    long_prompt = "Fix the flaky login test in tests/test_auth.py and explain why it failed\nmore"
    await shell.submit(long_prompt)
    await shell.submit("second")
    assert session_name(shell.session) is None
    title = title_of(shell.session)
    assert title == short_title(long_prompt) and title.endswith("…") and len(title) <= 60
    shown = await shell.submit("/name")
    assert "no name" in shown.output and "Fix the flaky login" in shown.output
    await shell.submit("/name   Login   fix ")
    assert session_name(shell.session) == "Login fix" == title_of(shell.session)

    tree = shell.tree_entries()
    assert [e.type for e in tree] == ["message"] * 4  # no checkpoint or name entries shown
    first = tree[0].id
    labelled = await shell.submit(f"/label {first} start here")
    assert not labelled.error and "start here" in labelled.output
    await shell.submit("/label the end")  # the leaf (its last shown entry)
    tree = shell.tree_entries()
    assert tree[0].label == "start here" and tree[0].preview.startswith("[start here] user:")
    assert tree[-1].label == "the end" and tree[-1].is_leaf
    assert all(e.depth == 0 for e in tree)  # label entries did not make branches
    await shell.submit(f"/label {first} --clear")
    assert shell.tree_entries()[0].label is None
    listing = (await shell.submit("/tree")).output
    assert "[the end] assistant: A2" in listing
    resumed = SessionStore.open(shell.session.path)
    assert session_name(resumed) == "Login fix"
    assert [m.text for m in resumed.build_context()] == [long_prompt, "A1", "second", "A2"]


async def test_leaving_a_branch_can_summarise_it(project: Path) -> None:
    shell, stream, _ = make_shell(
        project,
        reply(text("A1")),
        reply(text("tried plan B")),
        reply(text("## Goal\nPlan B was tried and failed.")),
        reply(text("back on plan A")),
    )
    await shell.submit("q1")
    await shell.submit("try plan B")
    plan_b = next(p for p in await shell.checkpoints.points() if p.text == "try plan B")
    result = await shell.checkpoints.rewind(plan_b.entry_id, code=False, summarize=True)
    assert result.text == "try plan B"
    summary_request = stream.contexts[2].messages[0].text
    assert "<conversation>" in summary_request and "tried plan B" in summary_request
    assert shell.session.path is not None
    summaries = [e for e in entries(shell.session.path) if e["type"] == "branch_summary"]
    assert len(summaries) == 1 and summaries[0]["summary"].startswith(
        "The user explored a different conversation branch"
    )
    assert summaries[0]["fromId"] == shell.session.entries[plan_b.entry_id].parent_id
    await shell.submit("continue with plan A")
    sent = [m.text for m in stream.contexts[3].messages]
    assert any(t.startswith("The following is a summary of a branch") for t in sent)
    assert "Plan B was tried and failed." in "\n".join(sent)
    tree = [e.preview for e in shell.tree_entries()]
    assert any(p.startswith("[branch summary] ## Goal") for p in tree)


async def test_a_one_shot_run_leaves_a_stored_queue_for_the_next_editor(project: Path) -> None:
    await _queue_then_abort(project)
    one_shot, _, recorder = make_shell(project, continue_session=True)  # as pi -c -p does
    assert not recorder.of_type("queue_returned") and not notices(recorder)
    await one_shot.aclose()
    _, _, later = make_shell(project, continue_session=True, offer_stored_queue=True)
    restored = [e for e in later.of_type("queue_returned") if e.reason == "restored"]
    assert [i.text for i in restored[0].items] == ["steer me", "and later"]
