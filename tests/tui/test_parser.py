"""ESC CR (Alt+Enter in tmux/xterm) is reported as alt+enter; everything else is unchanged."""

from __future__ import annotations

import pytest
from textual._xterm_parser import XTermParser

from pi_cli.tui.parser import PiXTermParser, install


def keys(parser_class: type[XTermParser], data: str) -> list[str]:
    """Feed raw terminal input and flush (as the input thread does at EOF / escape timeout)."""
    parser = parser_class()
    events = list(parser.feed(data)) + list(parser.feed(""))
    return [event.key for event in events if hasattr(event, "key")]


def test_stock_textual_loses_the_alt_of_esc_cr() -> None:
    # The reason the adaptation exists; if Textual fixes it, this test tells us to drop ours.
    assert keys(XTermParser, "\x1b\r") == ["enter"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ("\x1b\r", ["alt+enter"]),  # tmux / xterm Alt+Enter
        ("\x1b\rab", ["alt+enter", "a", "b"]),  # typing straight after it is not swallowed
        ("ab\x1b\r", ["a", "b", "alt+enter"]),
        ("\r", ["enter"]),  # plain Enter stays Enter
        ("\n", ["ctrl+j"]),  # the legacy newline chord
        ("\t", ["tab"]),
        ("\x1b", ["escape"]),  # a lone Esc is still Esc
        ("\x1b[13;5u", ["ctrl+enter"]),  # kitty protocol
        ("\x1b[13;3u", ["alt+enter"]),
        ("\x1b[13;2u", ["shift+enter"]),
        ("\x1b[1;3A", ["alt+up"]),  # tmux Alt+Up
    ],
)
def test_pi_parser_keys(data: str, expected: list[str]) -> None:
    assert keys(PiXTermParser, data) == expected


def test_install_points_the_linux_driver_at_our_parser() -> None:
    from textual.drivers import linux_driver

    original = linux_driver.XTermParser
    try:
        install()
        assert linux_driver.XTermParser is PiXTermParser
    finally:
        linux_driver.XTermParser = original  # type: ignore[misc]
