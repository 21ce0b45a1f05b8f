"""Pastes and images: a long paste collapses to ``[paste #1 +80 lines]`` and is sent whole; a
pasted image path or an ``@shot.png`` mention attaches the image as a content block."""

from __future__ import annotations

import base64
from pathlib import Path

from textual import events

from pi_cli.tui.document.entries import PastedBlock
from pi_cli.tui.paste import Attachments, pasted_path
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import (
    SIZE,
    blocks_of,
    click_block,
    make_app,
    make_shell,
    type_text,
    wait_until,
)
from tests.tui.screen_text import screen_text

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _images(stream: ScriptedStream, call: int) -> list[object]:
    last_user = [msg for msg in stream.contexts[call].messages if msg.role == "user"][-1]
    return [block for block in last_user.content if block.type == "image"]


async def test_a_long_paste_collapses_and_is_sent_whole(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("got it")))
    app = make_app(make_shell(tmp_path, stream, tools=[]))
    pasted = "\r\n".join(f"pasted line {i}" for i in range(1, 81))  # CRLF, as terminals send
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "review this: ")
        app.editor.post_message(events.Paste(pasted))
        await pilot.pause()
        assert app.editor.text == "review this: [paste #1 +80 lines]"
        assert "pasted line 40" not in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 1)
        sent = stream.user_texts(0)[-1]
        assert sent == "review this: " + pasted.replace("\r\n", "\n")
        assert app.editor.attachments.pastes == {}
        # Sent, it stays collapsed in the transcript; a click on it unfolds the whole text.
        await wait_until(pilot, lambda: "got it" in screen_text(app))
        shown = screen_text(app)
        assert "▶ › review this: [pasted 80 lines]" in shown, shown
        assert "pasted line 40" not in shown
        block = blocks_of(app, PastedBlock)[0]
        await click_block(pilot, block)
        await wait_until(pilot, lambda: not block.collapsed)
        app.transcript.view.scroll_to_block(block)
        await wait_until(pilot, lambda: "pasted line 2" in screen_text(app))
        assert "▼ › review this: [pasted 80 lines]" in screen_text(app)


async def test_a_resumed_long_prompt_is_collapsed_to_its_first_line(tmp_path: Path) -> None:
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions

    project = tmp_path / "project"
    project.mkdir()
    long_prompt = "summarise this log:\n" + "\n".join(f"log line {i}" for i in range(1, 41))
    earlier = CodingAgent(ShellOptions(cwd=project, stream_fn=ScriptedStream(reply(text("ok")))))
    await earlier.submit(long_prompt)
    await earlier.aclose()
    shell = CodingAgent(
        ShellOptions(cwd=project, stream_fn=ScriptedStream(), continue_session=True)
    )
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "summarise this log:" in screen_text(app))
        assert "▶ › summarise this log: [+40 lines]" in screen_text(app)
        assert "log line 20" not in screen_text(app)


async def test_a_short_paste_goes_in_as_it_is(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        app.editor.post_message(events.Paste("two\r\nlines"))
        await pilot.pause()
        assert app.editor.text == "two\nlines"


def test_placeholders_expand_only_for_their_own_number() -> None:
    attachments = Attachments()
    first = attachments.collapse("x\n" * 30)
    second = attachments.collapse("y" * 5000)
    assert first == "[paste #1 +30 lines]" and second == "[paste #2 +1 line]"
    typed = f"{second} and {first} and [paste #9 +3 lines]"
    expected = "y" * 5000 + " and " + "x\n" * 30 + " and [paste #9 +3 lines]"
    assert attachments.expand(typed) == expected
    assert attachments.collapse("short") is None


def test_pasted_paths_as_terminals_send_dropped_files(tmp_path: Path) -> None:
    shot = tmp_path / "my shot.png"
    shot.write_bytes(PNG)
    for text_ in (
        str(shot),
        f"'{shot}'",
        str(shot).replace(" ", "\\ "),
        f"file://{shot}".replace(" ", "%20"),
    ):
        assert pasted_path(text_, tmp_path) == shot, text_
    assert pasted_path("my shot.png", tmp_path) == shot  # relative to the project
    assert pasted_path(str(tmp_path / "missing.png"), tmp_path) is None
    assert pasted_path(f"{shot}\n{shot}", tmp_path) is None  # two lines: plain text
    assert pasted_path(str(tmp_path), tmp_path) is None


async def test_a_pasted_image_path_and_an_at_mention_attach_images(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(PNG)
    (tmp_path / "fake.png").write_text("not an image at all")
    stream = ScriptedStream(reply(text("a cat")), reply(text("nothing")))
    app = make_app(make_shell(tmp_path, stream, tools=[]))
    notes: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
        await type_text(pilot, "what is in ")
        app.editor.post_message(events.Paste(str(tmp_path / "shot.png")))
        await pilot.pause()
        assert app.editor.text == "what is in [image #1: shot.png] "
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 1)
        (image,) = _images(stream, 0)
        assert image.mime_type == "image/png" and base64.b64decode(image.data) == PNG
        app.editor.set_text("and in @fake.png ?")
        await pilot.press("end", "enter")
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 2)
        assert _images(stream, 1) == []  # not a real image: a warning, the text still goes
        assert any("not a PNG, JPEG, GIF or WebP image" in note for note in notes)
