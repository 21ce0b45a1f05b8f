"""One JSON value as one line of bytes: the single encoder for session files, JSON mode and RPC."""

from __future__ import annotations

import json

from pi_cli.shell.text.redaction import REDACTOR


def dumps_line(data: object) -> bytes:
    """``data`` as compact UTF-8 JSON plus ``\\n``.

    Non-ASCII text stays readable (``ensure_ascii=False``); a lone surrogate (``"\\ud800"``,
    valid in a JSON string but not encodable as UTF-8) becomes a ``\\ud800`` escape instead of
    raising, so one odd character can never stop a session write or an event stream. The keys
    pi holds are masked (:mod:`pi_cli.shell.text.redaction`): this is the one writer of session files,
    JSON mode and RPC.
    """
    text = REDACTOR(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return text.encode("utf-8", "backslashreplace") + b"\n"
