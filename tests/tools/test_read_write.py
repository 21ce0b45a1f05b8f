"""read and write tools on real files."""

from __future__ import annotations

import base64
import os
import stat
from pathlib import Path

import pytest

from agent_core import ImageContent, ToolError
from tests.tools._helpers import run
from tools import create_read_tool, create_write_tool

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)


async def test_read_text_raw(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\nworld\n")
    result = await run(create_read_tool(tmp_path), path="a.txt")
    assert result.text == "hello\nworld"


async def test_read_offset_and_limit(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"l{i}\n" for i in range(1, 11)))
    result = await run(create_read_tool(tmp_path), path="a.txt", offset=3, limit=2)
    assert result.text == "l3\nl4\n\n[6 more lines in file. Use offset=5 to continue.]"
    last = await run(create_read_tool(tmp_path), path="a.txt", offset=9)
    assert last.text == "l9\nl10"


async def test_read_truncates_at_2000_lines(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"{i}\n" for i in range(1, 5001)))
    tool = create_read_tool(tmp_path)
    result = await run(tool, path="big.txt")
    body, note = result.text.split("\n\n")
    assert body.splitlines()[-1] == "2000" and len(body.splitlines()) == 2000
    assert note == "[Showing lines 1-2000 of 5000. Use offset=2001 to continue.]"
    assert result.details["truncation"]["truncated_by"] == "lines"
    follow = await run(tool, path="big.txt", offset=4001)
    assert follow.text.splitlines()[0] == "4001" and follow.text.endswith("5000")


async def test_read_truncates_at_50kb_never_mid_line(tmp_path: Path) -> None:
    line = "x" * 99  # 100 bytes with the newline -> 512 lines fit in 51200 bytes minus one newline
    (tmp_path / "wide.txt").write_text((line + "\n") * 1000)
    result = await run(create_read_tool(tmp_path), path="wide.txt", offset=11)
    body, note = result.text.split("\n\n")
    lines = body.split("\n")
    assert all(item == line for item in lines)
    assert len(body.encode()) <= 50 * 1024
    assert len(lines) == 512  # 512 * 100 - 1 = 51199 <= 51200; 513 lines would not fit
    assert (
        note
        == f"[Showing lines 11-{10 + 512} of 1000 (50.0KB limit). Use offset={11 + 512} to continue.]"
    )


async def test_read_single_line_over_limit(tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("short\n" + "y" * 60_000 + "\n")
    result = await run(create_read_tool(tmp_path), path="one.txt", offset=2)
    head, marker = result.text.split(" … ")
    assert head == "y" * 48 * 1024
    assert marker == (
        "[line 2 cut: 48.0KB of 58.6KB shown; read on with bash: "
        "tail -c +49159 one.txt | head -c 20000]"
    )
    assert result.details["long_lines"] == [2]


async def test_read_image_as_image_content(tmp_path: Path) -> None:
    (tmp_path / "pic.png").write_bytes(PNG)
    result = await run(create_read_tool(tmp_path), path="pic.png")
    images = [block for block in result.content if isinstance(block, ImageContent)]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    assert base64.b64decode(images[0].data) == PNG


async def test_read_jpeg_gif_webp_sniffed(tmp_path: Path) -> None:
    samples = {
        "a.jpg": (b"\xff\xd8\xff\xe0" + b"\0" * 20, "image/jpeg"),
        "b.gif": (b"GIF89a" + b"\0" * 20, "image/gif"),
        "c.webp": (b"RIFF\x10\0\0\0WEBPVP8 " + b"\0" * 10, "image/webp"),
    }
    tool = create_read_tool(tmp_path)
    for name, (data, mime) in samples.items():
        (tmp_path / name).write_bytes(data)
        result = await run(tool, path=name)
        assert result.content[1].mime_type == mime  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("setup", "path", "kwargs", "message"),
    [
        (None, "missing.txt", {}, "File not found: missing.txt"),
        ("dir", "sub", {}, "is a directory"),
        ("binary", "bin.dat", {}, "appears to be a binary file"),
        ("latin1", "latin.txt", {}, "not valid UTF-8"),
        ("small", "small.txt", {"offset": 10}, "Offset 10 is beyond end of file (3 lines total)"),
    ],
)
async def test_read_errors(
    tmp_path: Path, setup: str | None, path: str, kwargs: dict, message: str
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "bin.dat").write_bytes(b"\x7fELF\x00\x01\x02")
    (tmp_path / "latin.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    (tmp_path / "small.txt").write_text("1\n2\n3\n")
    with pytest.raises(ToolError, match=message.replace("(", r"\(").replace(")", r"\)")):
        await run(create_read_tool(tmp_path), path=path, **kwargs)


async def test_read_empty_file(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    assert (await run(create_read_tool(tmp_path), path="empty.txt")).text == ""


async def test_paths_absolute_home_and_unicode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    (home / "dir ü").mkdir(parents=True)
    (home / "dir ü" / "naïve 文件.txt").write_text("unicode ok\n")
    monkeypatch.setenv("HOME", str(home))
    tool = create_read_tool(tmp_path / "elsewhere")
    assert (await run(tool, path="~/dir ü/naïve 文件.txt")).text == "unicode ok"
    assert (await run(tool, path=str(home / "dir ü" / "naïve 文件.txt"))).text == "unicode ok"
    assert (await run(create_read_tool(home), path="@dir ü/naïve 文件.txt")).text == "unicode ok"


async def test_read_macos_narrow_space_variant(tmp_path: Path) -> None:
    (tmp_path / "Shot 10.00.00\u202fAM.png").write_bytes(PNG)
    result = await run(create_read_tool(tmp_path), path="Shot 10.00.00 AM.png")
    assert isinstance(result.content[1], ImageContent)


async def test_write_creates_parents_and_reports_bytes(tmp_path: Path) -> None:
    result = await run(create_write_tool(tmp_path), path="a/b/ç.txt", content="héllo\n")
    target = tmp_path / "a" / "b" / "ç.txt"
    assert target.read_text() == "héllo\n"
    assert "7 bytes written" in result.text and result.details["bytes"] == 7
    assert result.details["created"] is True
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]


async def test_write_overwrite_keeps_mode_and_symlink(tmp_path: Path) -> None:
    real = tmp_path / "script.sh"
    real.write_text("old")
    real.chmod(0o751)
    link = tmp_path / "link.sh"
    link.symlink_to(real)
    result = await run(create_write_tool(tmp_path), path="link.sh", content="new")
    assert "Overwrote" in result.text
    assert link.is_symlink() and real.read_text() == "new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o751


async def test_write_new_file_respects_umask(tmp_path: Path) -> None:
    await run(create_write_tool(tmp_path), path="n.txt", content="x")
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE((tmp_path / "n.txt").stat().st_mode) == 0o666 & ~mask


async def test_write_to_directory_fails(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    with pytest.raises(ToolError, match="is a directory"):
        await run(create_write_tool(tmp_path), path="d", content="x")


async def test_read_hides_bom_and_crlf(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    assert (await run(create_read_tool(tmp_path), path="w.txt")).text == "one\ntwo"
