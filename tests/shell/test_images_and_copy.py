"""Images attached to prompts (content blocks checked by their bytes) and /copy."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from agent_core import messages as M
from pi_cli.shell.prompt.images import MAX_IMAGE_BYTES, ImageError, image_mime, load_image
from pi_cli.shell.session.skill_text import skill_call_of
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import make_shell

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def test_image_types_come_from_the_bytes(tmp_path: Path) -> None:
    assert image_mime(PNG) == "image/png"
    assert image_mime(b"\xff\xd8\xff\xe0rest") == "image/jpeg"
    assert image_mime(b"GIF89a...") == "image/gif"
    assert image_mime(b"RIFF\x00\x00\x00\x00WEBPVP8 ") == "image/webp"
    assert image_mime(b"<svg/>") is None
    shot = tmp_path / "shot.jpg"  # the name lies: the bytes are a PNG
    shot.write_bytes(PNG)
    block = load_image(shot)
    assert block.mime_type == "image/png" and base64.b64decode(block.data) == PNG


@pytest.mark.parametrize("case", ["missing", "directory", "not-an-image", "too-big"])
def test_bad_image_files_are_one_clear_error(tmp_path: Path, case: str) -> None:
    path = tmp_path / "x.png"
    if case == "directory":
        path.mkdir()
    elif case == "not-an-image":
        path.write_text("hello")
    elif case == "too-big":
        with path.open("wb") as handle:
            handle.write(PNG)
            handle.truncate(MAX_IMAGE_BYTES + 1)
    with pytest.raises(ImageError) as caught:
        load_image(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


async def test_copy_gives_the_last_answer_with_text(tmp_path: Path, pi_home: Path) -> None:
    shell = make_shell(tmp_path, ScriptedStream(reply(text("first"))), tools=[])
    result = await shell.submit("/copy")
    assert result is not None and result.error and result.clipboard is None
    shell.agent.replace_messages(
        [
            M.UserMessage(content="q"),
            M.AssistantMessage(content=[M.TextContent(text="the answer")]),
            M.UserMessage(content="q2"),
            M.AssistantMessage(content=[M.ToolCall(id="c", name="bash", arguments={})]),
        ]
    )
    result = await shell.submit("/copy")
    assert result is not None and result.clipboard == "the answer" and not result.error
    assert (pi_home / "last-answer.md").read_text() == "the answer"
    assert shell.commands.get("copy") is not None and shell.commands.get("copy").while_running


def test_skill_calls_read_short() -> None:
    call = '<skill name="greeter" location="/a/SKILL.md">\n# G\nbody\n</skill>\n\nsay hi'
    assert skill_call_of(call) == ("/skill:greeter say hi", "say hi", "# G\nbody")
    assert skill_call_of('<skill name="g" location="/a">\nx\n</skill>') == ("/skill:g", "", "x")
    assert skill_call_of("just a prompt with <skill name=") is None
