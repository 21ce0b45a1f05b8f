"""JSON-RPC 2.0 frames from a peer, checked before any SDK sees them.

A peer (an ACP client, an MCP server) may send anything on its line: not JSON, a batch, a bare
number, a response whose ``id`` is an array. The SDKs pi uses assume well-formed objects and
end the whole connection on one bad line. :func:`check_frame` decides per line: a message the
SDK can take, or the error object to answer with (JSON-RPC 2.0 section 5: parse error, invalid
request, ``id`` null when it cannot be read), so the session goes on.
"""

from __future__ import annotations

import json
import math
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600

JsonObject = dict[str, Any]


class Frame:
    """One checked line: ``message`` to pass on, or ``error`` to answer with (and ``id``);
    neither: nothing to do (a peer's error response that answers no request)."""

    __slots__ = ("error", "id", "message")

    def __init__(
        self, message: JsonObject | None = None, error: JsonObject | None = None, id: Any = None
    ) -> None:
        self.message = message
        self.error = error
        self.id = id

    def reply(self) -> JsonObject:
        """The error response for a rejected frame."""
        return {"jsonrpc": "2.0", "id": self.id, "error": self.error}


def _rejected(code: int, text: str, request_id: Any = None) -> Frame:
    return Frame(error={"code": code, "message": text}, id=request_id)


def valid_id(value: object) -> bool:
    """A JSON-RPC id: a string, an integer, a finite number or null (never a bool)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, str | int)


def check_frame(raw: bytes | str) -> Frame:
    """Parse and check one line (see the module doc)."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        data = json.loads(text)
    except (UnicodeDecodeError, ValueError) as exc:
        return _rejected(PARSE_ERROR, f"Parse error: {str(exc)[:200]}")
    except RecursionError:
        return _rejected(PARSE_ERROR, "Parse error: nested too deeply")
    if isinstance(data, list):
        return _rejected(INVALID_REQUEST, "Invalid Request: batches are not supported")
    if not isinstance(data, dict):
        return _rejected(INVALID_REQUEST, "Invalid Request: a message is a JSON object")
    return check_message(data)


def check_message(data: JsonObject) -> Frame:
    """Check an already decoded message object."""
    request_id = data.get("id")
    if "id" in data and not valid_id(request_id):
        return _rejected(INVALID_REQUEST, "Invalid Request: id must be a string or a number")
    version = data.get("jsonrpc", "2.0")
    if version != "2.0":
        return _rejected(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', request_id)
    if "method" in data:
        return _request(data, request_id)
    if "id" not in data:
        return _rejected(INVALID_REQUEST, "Invalid Request: neither a request nor a response")
    return _response(data)


def _request(data: JsonObject, request_id: Any) -> Frame:
    if not isinstance(data["method"], str):
        return _rejected(INVALID_REQUEST, "Invalid Request: method must be a string", request_id)
    params = data.get("params")
    if params is not None and not isinstance(params, dict | list):
        return _rejected(
            INVALID_REQUEST, "Invalid Request: params must be an object or an array", request_id
        )
    return Frame(message=data)


def _response(data: JsonObject) -> Frame:
    has_result, error = "result" in data, data.get("error")
    if has_result == ("error" in data):
        return _rejected(INVALID_REQUEST, "Invalid Request: a response has a result or an error")
    if "error" in data and not (
        isinstance(error, dict)
        and isinstance(error.get("code"), int)
        and not isinstance(error.get("code"), bool)
        and isinstance(error.get("message"), str)
    ):
        return _rejected(
            INVALID_REQUEST, "Invalid Request: an error has an integer code and a message"
        )
    if data["id"] is None:
        # The peer's error about a line it could not read: nothing waits for it, and answering
        # a response could start two strict peers answering each other forever.
        return Frame()
    return Frame(message=data)


def encode(message: JsonObject) -> bytes:
    """One line of JSON (ASCII, so no byte in it can be a line break)."""
    return (json.dumps(message, separators=(",", ":")) + "\n").encode("ascii")
