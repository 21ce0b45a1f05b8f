"""The exported page in a real headless browser (Debian ``chromium``, installed by ``.ci/run``):
it renders offline in the theme's colours and nothing on it runs. Skipped when absent."""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from pi_cli.shell.export_html import export_session
from tests.shell.export_html.test_export_html import HOSTILE, hostile_session

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--host-resolver-rules=MAP * ~NOTFOUND",  # nothing can be fetched from anywhere
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def first_pixel(png: bytes) -> tuple[int, int, int]:
    """The top-left pixel of an 8-bit RGB/RGBA PNG (enough of a decoder for a screenshot)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    position, data, width, channels = 8, b"", 0, 3
    while position < len(png):
        (length,) = struct.unpack(">I", png[position : position + 4])
        kind = png[position + 4 : position + 8]
        body = png[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            width, _, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            data += body
        position += 12 + length
    raw = zlib.decompress(data)
    row = raw[1 : 1 + width * channels]
    # For the first pixel of the first row every filter (None, Sub, Up, Average of zeros is
    # half of nothing, Paeth) leaves the bytes as they are, except Average (3): not expected.
    assert raw[0] in (0, 1, 2, 4)
    return row[0], row[1], row[2]


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)")
def test_the_page_renders_offline_in_theme_colours_and_runs_nothing(tmp_path: Path) -> None:
    page = export_session(hostile_session(tmp_path), tmp_path / "page.html", theme="dark")
    shot = tmp_path / "shot.png"
    done = chromium(
        f"--screenshot={shot}", "--window-size=1000,900", page.as_uri(), profile=tmp_path / "p1"
    )
    assert shot.is_file() and shot.stat().st_size > 5000, done.stderr[-2000:]
    assert first_pixel(shot.read_bytes()) == (0x16, 0x16, 0x1E)  # the dark theme's background
    dom = chromium("--dump-dom", page.as_uri(), profile=tmp_path / "p2").stdout
    assert "<script" not in dom.lower()  # nothing the session said became a script
    assert HOSTILE.replace("<", "&lt;").replace(">", "&gt;") in dom
    assert "Refused to" not in done.stderr  # no blocked load: the page asks for nothing
