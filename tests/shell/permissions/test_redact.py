"""Redaction by value: raw, JSON-escaped, URL-quoted and repr forms; short values are no secrets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from pi_cli.shell.text.redaction import MASK, REDACTOR, redact, redact_value
from pi_cli.shell.text.terminal import clean
from pi_cli.shell.wire.jsonl import dumps_line


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    REDACTOR.clear()
    yield
    REDACTOR.clear()


def test_every_form_of_a_key_is_masked() -> None:
    key = 'sk-odd"key\\with/slash+plus'
    REDACTOR.add(key + "\r\n")  # registered with its CR too: the stripped form is masked
    assert redact(f"Bearer {key}.") == f"Bearer {MASK}."
    line = dumps_line({"error": f"bad key {key}"}).decode()
    assert key not in json.loads(line)["error"] and MASK in line
    assert redact(f"?key={quote(key, safe='')}") == f"?key={MASK}"
    assert redact(repr({"x-api-key": key})) == repr({"x-api-key": MASK})
    assert redact_value({"a": [f"k={key}"]}) == {"a": [f"k={MASK}"]}


def test_short_values_are_not_secrets() -> None:
    REDACTOR.add("x")
    REDACTOR.add("   ")
    assert not REDACTOR.active and redact("x marks the spot") == "x marks the spot"


def test_the_tui_cleans_keys_and_controls() -> None:
    from pi_cli.tui.messages import clean as tui_clean

    REDACTOR.add("sk-secret-123456")
    assert tui_clean("a\x1b[2Jb sk-secret-123456") == f"ab {MASK}"  # the whole sequence goes
    assert clean("a\x1b]52;c;ZXZpbA==\x07b\x1b[31mc\rd\x9b2J") == "abcd2J"
