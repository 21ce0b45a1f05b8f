"""pi-ts's lifecycle events: ``before_agent_start`` (prompt, system prompt, injected messages),
``session_switch``/``session_fork``/``session_tree``, ``session_compact``, ``model_select``, and
``pi.events`` between extensions (typed payloads; a failing subscriber is disabled alone)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

from pi_cli.shell import Notice
from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.shell.extensions.helpers import shell_with, texts, write_extension

FAST = Settings.model_validate({"extensionTimeoutS": 0.5})

# pi-ts's examples/extensions/pirate.ts and claude-rules.ts, in Python: the system prompt of a
# run is extended, and a message with the project's rules goes with the prompt.
PIRATE = """
    from pi_cli.shell.extensions import AgentStartEvent, BeforeAgentStart

    def register(pi):
        @pi.on("before_agent_start")
        def pirate(event: AgentStartEvent, ctx):
            if event.prompt.startswith("arr "):
                return BeforeAgentStart(
                    prompt=event.prompt[4:],
                    system_prompt=event.system_prompt + "\\nSpeak like a pirate.",
                    messages=("Project rules: no tabs.",),
                )
"""


async def test_before_agent_start_rewrites_the_run_and_the_next_run_is_pi_s_again(
    project: Path, pi_home: Path
) -> None:
    write_extension(pi_home / "extensions", "pirate", PIRATE)
    stream = ScriptedStream(reply(text("aye")), reply(text("plain")))
    shell = shell_with(project, stream)
    await shell.submit("arr hello")
    assert stream.contexts[0].system_prompt.endswith("Speak like a pirate.")
    assert stream.user_texts(0) == ["hello", "Project rules: no tabs."]
    await shell.submit("hello again")
    assert "pirate" not in stream.contexts[1].system_prompt
    assert stream.user_texts(1)[-1] == "hello again"
    # the injected message stays in the conversation (and the session)
    assert [m.text for m in shell.messages if m.role == "user"][:2] == [
        "hello",
        "Project rules: no tabs.",
    ]
    await shell.aclose()


async def test_before_agent_start_handlers_chain_and_take_dicts_and_in_place_changes(
    project: Path, pi_home: Path
) -> None:
    write_extension(
        pi_home / "extensions",
        "a_first",
        """
        def register(pi):
            @pi.on("before_agent_start")
            def first(event):
                event.system_prompt = "ONE"
        """,
    )
    write_extension(
        pi_home / "extensions",
        "b_second",
        """
        def register(pi):
            @pi.on("before_agent_start")
            async def second(event, ctx):
                return {"systemPrompt": event.system_prompt + " TWO",
                        "message": {"customType": "note", "content": "extra", "display": True}}
        """,
    )
    stream = ScriptedStream(reply(text("ok")))
    shell = shell_with(project, stream)
    await shell.submit("hi")
    assert stream.contexts[0].system_prompt == "ONE TWO"
    assert stream.user_texts(0) == ["hi", "extra"]
    await shell.aclose()


async def test_a_hostile_before_agent_start_is_bounded_and_the_run_goes_on(
    project: Path, pi_home: Path
) -> None:
    for name, body in (
        ("hangs", "time.sleep(3600)"),
        ("raises", "raise RuntimeError('boom')"),
        ("junk", "return {'messages': [object()]}"),
    ):
        write_extension(
            pi_home / "extensions",
            name,
            f"""
            import time

            def register(pi):
                @pi.on("before_agent_start")
                def handler(event):
                    {body}
            """,
        )
    notices: list[Notice] = []
    stream = ScriptedStream(reply(text("fine")), reply(text("again")))
    shell = shell_with(project, stream, notices=notices, settings=FAST)
    began = time.monotonic()
    await shell.submit("go")
    assert time.monotonic() - began < 30
    assert stream.user_texts(0) == ["go"]
    said = texts(notices)
    assert "Extension hangs before_agent_start did not finish within 0.5 s" in said
    assert "Extension raises before_agent_start raised RuntimeError: boom" in said
    assert "Extension junk: extension junk: a message is text" in said
    assert shell.extensions.runtime.items["hangs"].state == "disabled"
    assert shell.extensions.runtime.items["junk"].state == "live"
    await shell.submit("more")  # the disabled ones are not asked again
    assert stream.user_texts(1)[-1] == "more"
    await shell.aclose()


async def test_session_and_model_events_arrive_with_pi_ts_names(
    project: Path, pi_home: Path
) -> None:
    write_extension(
        pi_home / "extensions",
        "watcher",
        """
        seen = []

        def register(pi):
            for name in ("session_switch", "session_fork", "session_tree", "model_select",
                         "session_compact"):
                pi.on(name, lambda event, ctx: seen.append(event))
            pi.on("*", lambda event: seen.append(("star", event.type)))
        """,
    )
    shell = shell_with(project, ScriptedStream(reply(text("one"))), persist_session=True)
    await shell.submit("first")
    first_file, first_model = str(shell.session.path), shell.model_id
    shell.new_session()
    shell.set_model("other/model-b")
    module = shell.extensions.runtime.items["watcher"]
    seen: list[object] = next(
        m.seen for n, m in sys.modules.items() if n.startswith("pi_extension_watcher")
    )
    for _ in range(1000):  # notifications are not waited for: they arrive on its thread
        if any(getattr(e, "type", None) == "model_select" for e in seen):
            break
        await asyncio.sleep(0.01)
    switch = next(e for e in seen if getattr(e, "type", None) == "session_switch")
    assert switch.reason == "new" and switch.previous_session_file == first_file
    assert switch.session_file == str(shell.session.path)
    select = next(e for e in seen if getattr(e, "type", None) == "model_select")
    assert select.model == "other/model-b" and select.previous_model == first_model
    stars = {e[1] for e in seen if isinstance(e, tuple)}
    assert "session_changed" in stars and "session_switch" not in stars
    assert module.state == "live"
    await shell.aclose()


# pi-ts's examples/extensions/event-bus.ts: one extension announces, another listens.
ANNOUNCER = """
    from dataclasses import dataclass

    @dataclass
    class TodoChanged:
        count: int

    def register(pi):
        @pi.command("todo-add")
        def add(args, ctx):
            pi.events.emit("todo:changed", {"count": int(args)})
            pi.events.emit("todo:changed", TodoChanged(int(args) + 1))
            pi.events.emit("todo:changed", "not a payload")
            return "added"
"""
LISTENER = """
    from pydantic import BaseModel

    class TodoChanged(BaseModel):
        count: int

    got = []

    def register(pi):
        @pi.events.on("todo:changed", payload=TodoChanged)
        def changed(payload, ctx):
            assert isinstance(payload, TodoChanged)
            got.append(payload.count)
            ctx.ui.set_footer("todos", f"{payload.count} todos")
"""
BROKEN = """
    def register(pi):
        @pi.events.on("todo:changed")
        def changed(payload):
            raise RuntimeError("listener bug")
"""


async def test_events_between_extensions_typed_and_a_failing_subscriber_alone_disabled(
    project: Path, pi_home: Path
) -> None:
    write_extension(pi_home / "extensions", "announcer", ANNOUNCER)
    write_extension(pi_home / "extensions", "listener", LISTENER)
    write_extension(pi_home / "extensions", "broken", BROKEN)
    notices: list[Notice] = []
    shell = shell_with(project, notices=notices)
    result = await shell.submit("/todo-add 3")
    assert result is not None and result.output == "added"
    got: list[int] = next(
        m.got for n, m in sys.modules.items() if n.startswith("pi_extension_listener")
    )
    for _ in range(1000):
        if len(got) == 2 and shell.extensions.runtime.items["broken"].state == "disabled":
            break
        await asyncio.sleep(0.01)
    assert got == [3, 4]  # the dict built into the listener's type, the dataclass from fields
    said = texts(notices)
    assert "Extension listener: event 'todo:changed' not delivered: its payload is a str" in said
    assert "Extension broken event todo:changed raised RuntimeError: listener bug" in said
    runtime = shell.extensions.runtime
    assert runtime.items["broken"].state == "disabled"
    assert runtime.items["listener"].state == "live" and runtime.items["announcer"].state == "live"
    assert ("footer", "listener.todos") in {(u.slot, u.key) for u in shell.dialogs.ui_state()}
    await shell.aclose()


async def test_emitting_from_register_is_refused(project: Path, pi_home: Path) -> None:
    write_extension(
        pi_home / "extensions", "early", "def register(pi):\n    pi.events.emit('x', 1)\n"
    )
    notices: list[Notice] = []
    shell_with(project, notices=notices)
    assert "emit from handlers, not register()" in texts(notices)


@pytest.mark.parametrize("event", ["session_switch", "model_select"])
async def test_a_lifecycle_handler_that_raises_disables_its_extension_only(
    project: Path, pi_home: Path, event: str
) -> None:
    write_extension(
        pi_home / "extensions",
        "fragile",
        f"""
        def register(pi):
            @pi.on("{event}")
            def boom(event, ctx):
                raise ValueError("lifecycle bug")
        """,
    )
    write_extension(
        pi_home / "extensions",
        "steady",
        """
        seen = []

        def register(pi):
            pi.on("session_switch", lambda event: seen.append(event.type))
            pi.on("model_select", lambda event: seen.append(event.type))
        """,
    )
    notices: list[Notice] = []
    shell = shell_with(project, ScriptedStream(), notices=notices, persist_session=True)
    await shell.submit("/new")
    shell.set_model("other/model-b")
    runtime = shell.extensions.runtime
    for _ in range(1000):
        if runtime.items["fragile"].state == "disabled":
            break
        await asyncio.sleep(0.01)
    assert f"Extension fragile {event} raised ValueError: lifecycle bug" in texts(notices)
    assert runtime.items["steady"].state == "live"
    seen: list[str] = next(
        m.seen for n, m in sys.modules.items() if n.startswith("pi_extension_steady")
    )
    for _ in range(1000):
        if {"session_switch", "model_select"} <= set(seen):
            break
        await asyncio.sleep(0.01)
    assert {"session_switch", "model_select"} <= set(seen)
    await shell.aclose()
