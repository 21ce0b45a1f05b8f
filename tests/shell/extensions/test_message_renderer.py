"""``pi.send_message`` and ``pi.register_message_renderer``: the TypeScript pi's
``message-renderer.ts`` in Python (``examples/extensions/message_renderer.py``), and hostile
renderers (raising, huge, escape sequences, the wrong type)."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

from rich.console import Console

from pi_cli.modes.plain.ui_render import PlainUi
from pi_cli.shell import CustomMessageShown, Notice
from pi_cli.shell.extensions.messages import MAX_LINE_CHARS, MAX_VIEW_LINES
from tests.agent_core.scripted_stream import ScriptedStream
from tests.shell.extensions.helpers import shell_with, texts, write_extension

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "extensions"


async def shown(events: list[CustomMessageShown], count: int = 1) -> CustomMessageShown:
    for _ in range(2000):  # the renderer runs on its extension's thread: the event follows
        if len(events) >= count:
            break
        await asyncio.sleep(0.01)
    assert len(events) >= count, "no custom message was shown"
    return events[count - 1]


async def noticed(notices: list[Notice], part: str) -> None:
    for _ in range(2000):  # the handler runs on its extension's thread
        if part in texts(notices):
            return
        await asyncio.sleep(0.01)


def collect(shell: object) -> list[CustomMessageShown]:
    events: list[CustomMessageShown] = []
    shell.subscribe(  # type: ignore[attr-defined]
        lambda e: events.append(e) if isinstance(e, CustomMessageShown) else None
    )
    return events


def plain(event: CustomMessageShown) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    PlainUi(console, lambda: None)(event)
    return console.file.getvalue()  # type: ignore[attr-defined]


async def test_the_status_example_draws_its_level_and_keeps_the_entry(
    project: Path, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text(
        json.dumps({"extensions": [str(EXAMPLES / "message_renderer.py")]})
    )
    shell = shell_with(project, ScriptedStream(), persist_session=True)
    events = collect(shell)
    await shell.submit("/status warn disk almost full")
    event = await shown(events)
    assert event.custom_type == "status-update" and event.content == "disk almost full"
    first = event.view.lines[0]
    assert [(s.text, s.role) for s in first] == [
        ("[WARN]", "warning"),
        (" disk almost full", "text"),
    ]
    assert event.details["level"] == "warn"  # type: ignore[index]
    assert plain(event).strip() == "[WARN] disk almost full"
    assert event.expanded is not None  # the renderer's expanded view adds the time
    assert "".join(s.text for s in event.expanded.lines[1]).startswith("  at ")
    await shell.submit("/status all good")
    second = await shown(events, 2)
    assert [(s.text, s.role) for s in second.view.lines[0]][0] == ("[INFO]", "success")
    entries = [json.loads(line) for line in shell.session.path.read_text().splitlines()]
    kept = [e for e in entries if e.get("type") == "custom_message"]
    assert [(e["customType"], e["content"], e["details"]["level"]) for e in kept] == [
        ("status-update", "disk almost full", "warn"),
        ("status-update", "all good", "info"),
    ]  # pi-ts's entry shape
    assert kept[0]["id"] == event.entry_id
    await shell.aclose()


SENDER = """
    from pi_cli.shell.extensions import ExtensionAPI

    def register(pi: ExtensionAPI) -> None:
        @pi.command("say")
        def say(args: str, ctx) -> None:
            ctx.send_message("{kind}", args, details={{"n": 1}})
"""


def sender(pi_home: Path, kind: str, renderer: str | None) -> None:
    folder = pi_home / "extensions"
    write_extension(folder, "sender", SENDER.format(kind=kind))
    if renderer is not None:
        write_extension(folder, "drawer", renderer)


async def test_without_a_renderer_the_default_view_shows_type_and_text(
    project: Path, pi_home: Path
) -> None:
    sender(pi_home, "note", None)
    shell = shell_with(project)
    events = collect(shell)
    await shell.submit("/say hello\x1b[31m red")
    event = await shown(events)
    assert event.view.title == "[note]"
    assert plain(event).splitlines() == ["[note]", "hello red"]  # the escape sequence is gone
    await shell.aclose()


RAISING = """
    from pi_cli.shell.extensions import ExtensionAPI

    def register(pi: ExtensionAPI) -> None:
        def render(message, expanded):
            raise RuntimeError("renderer broke")
        pi.register_message_renderer("note", render)
"""


async def test_a_renderer_that_raises_is_reported_and_disabled(
    project: Path, pi_home: Path
) -> None:
    sender(pi_home, "note", RAISING)
    notices: list[Notice] = []
    shell = shell_with(project, notices=notices)
    events = collect(shell)
    await shell.submit("/say first")
    event = await shown(events)
    assert plain(event).splitlines() == ["[note]", "first"]  # the default renderer drew it
    assert "Extension drawer message renderer 'note' raised" in texts(notices)
    assert "renderer broke" in texts(notices) and "it is disabled" in texts(notices)
    assert shell.extensions.runtime.items["drawer"].state == "disabled"
    await shell.submit("/say second")  # the sender goes on; its messages are drawn by default
    assert plain(await shown(events, 2)).splitlines() == ["[note]", "second"]
    await shell.aclose()


WRONG_TYPE = """
    from pi_cli.shell.extensions import ExtensionAPI

    def register(pi: ExtensionAPI) -> None:
        pi.register_message_renderer("note", lambda message, expanded: {"not": "a view"})
"""


async def test_a_renderer_returning_the_wrong_type_is_disabled(
    project: Path, pi_home: Path
) -> None:
    sender(pi_home, "note", WRONG_TYPE)
    notices: list[Notice] = []
    shell = shell_with(project, notices=notices)
    events = collect(shell)
    await shell.submit("/say x")
    assert (await shown(events)).view.title == "[note]"
    assert "returned what is not a view" in texts(notices)
    await shell.aclose()


HOSTILE = """
    from pi_cli.shell.extensions import ExtensionAPI, MessageView, ViewSpan

    def register(pi: ExtensionAPI) -> None:
        def render(message, expanded):
            lines = [[ViewSpan(text="\\x1b]0;owned\\x07\\x1b[2J" + "x" * 5000, role="error")]]
            lines += [[ViewSpan(text=f"line {i}")] for i in range(100_000)]
            return MessageView(title="\\x1b[31mred\\ntitle\\x1b[0m", lines=lines)
        pi.register_message_renderer("note", render)
"""


async def test_huge_output_is_capped_and_escape_sequences_cleaned(
    project: Path, pi_home: Path
) -> None:
    sender(pi_home, "note", HOSTILE)
    shell = shell_with(project)
    events = collect(shell)
    await shell.submit("/say x")
    view = (await shown(events)).view
    assert view.title == "red title"
    assert len(view.lines) == MAX_VIEW_LINES
    first = "".join(s.text for s in view.lines[0])
    assert first == "x" * MAX_LINE_CHARS and "\x1b" not in first
    assert view.lines[-1][0].text.endswith("more lines")
    assert "\x1b" not in plain(await shown(events))
    await shell.aclose()


async def test_text_returned_by_a_renderer_is_a_view(project: Path, pi_home: Path) -> None:
    renderer = """
        from pi_cli.shell.extensions import ExtensionAPI

        def register(pi: ExtensionAPI) -> None:
            pi.register_message_renderer("note", lambda m, expanded: f"» {m.content}\\n({m.details['n']})")
    """
    sender(pi_home, "note", renderer)
    shell = shell_with(project)
    events = collect(shell)
    await shell.submit("/say hi")
    assert plain(await shown(events)).splitlines() == ["» hi", "(1)"]
    await shell.aclose()


OVERLAY = """
    from pi_cli.shell.extensions import ExtensionAPI, MessageView, ViewSpan

    def register(pi: ExtensionAPI) -> None:
        @pi.command("deploy")
        async def deploy(args: str, ctx) -> None:
            lines = [[ViewSpan(text="3 files changed", role="warning")]]
            lines += [[ViewSpan(text=f"\\x1b[31mfile {i}")] for i in range(1000)]
            view = MessageView(title="Deploy?", lines=lines)
            choice = await ctx.ui.overlay(view, ["Ship it", "Not now"])
            ctx.ui.notify(f"chose {choice}")
"""


async def test_an_overlay_is_a_select_with_a_view_answered_by_the_front_end(
    project: Path, pi_home: Path
) -> None:
    from pi_cli.modes.rpc.dialogs import dialog_line
    from pi_cli.shell import DialogAnswer, DialogRequested

    write_extension(pi_home / "extensions", "deployer", OVERLAY)
    notices: list[Notice] = []
    shell = shell_with(project, notices=notices)
    shell.dialogs.asking = "interactive"
    asked: list[DialogRequested] = []

    def answer(event: object) -> None:
        if isinstance(event, DialogRequested):
            asked.append(event)
            asyncio.get_running_loop().call_soon(
                shell.answer, event.id, DialogAnswer(values=("Ship it",))
            )

    shell.subscribe(answer)
    await shell.submit("/deploy")
    await noticed(notices, "chose")
    assert "chose Ship it" in texts(notices)
    request = asked[0]
    assert request.kind == "select" and request.title == "Deploy?"
    assert [o.label for o in request.options] == ["Ship it", "Not now"]
    assert request.view is not None and len(request.view.lines) == MAX_VIEW_LINES
    assert request.view.lines[0][0].role == "warning"
    assert request.message is not None and request.message.startswith("Deploy?\n3 files changed")
    assert "\x1b" not in request.message
    line = dialog_line(request)  # RPC: pi's select, with the view as data beside it
    assert line["method"] == "select" and line["view"]["lines"][0][0]["role"] == "warning"
    await shell.aclose()


async def test_an_overlay_with_nobody_to_ask_returns_none(project: Path, pi_home: Path) -> None:
    write_extension(pi_home / "extensions", "deployer", OVERLAY)
    notices: list[Notice] = []
    shell = shell_with(project, notices=notices)  # one-shot: nobody answers
    await shell.submit("/deploy")
    await noticed(notices, "chose")
    assert "chose None" in texts(notices)
    await shell.aclose()


async def test_details_that_are_not_json_are_the_handlers_error(
    project: Path, pi_home: Path
) -> None:
    source = """
        from pi_cli.shell.extensions import ExtensionAPI

        def register(pi: ExtensionAPI) -> None:
            @pi.command("bad")
            def bad(args: str, ctx) -> None:
                ctx.send_message("note", "x", details={"when": object()})
    """
    write_extension(pi_home / "extensions", "bad", source)
    notices: list[Notice] = []
    shell = shell_with(project, notices=notices)
    events = collect(shell)
    await shell.submit("/bad")
    await noticed(notices, "must be JSON")
    assert "message details must be JSON" in texts(notices) and not events
    await shell.aclose()
