"""A hand-written stdio MCP server that misbehaves on purpose (raw JSON-RPC, no SDK).

``python rogue_server.py MODE``: ``ok`` answers properly (tools ``echo``, ``slow``, ``die``,
``fail``, ``read_only`` and one with an invalid schema); ``hang`` never answers ``initialize``;
``garbage`` writes a non-JSON line instead of answering; ``fuzz`` writes :data:`BAD_FRAMES`
(malformed JSON-RPC of every kind) before each answer, answers the first ``echo`` call with a
malformed response and logs every error reply pi sends back; ``exit`` dies at once with a
message on stderr. ``slow`` sleeps for its ``seconds`` argument (a tool time-out, an abort) and records
``notifications/cancelled`` in the file named by ``ROGUE_LOG``; ``die`` kills the server
mid-call. ``ROGUE_INIT_DELAY`` (seconds) delays the answer to ``initialize``. ``ROGUE_DAEMONS=<tag>``
starts two ``setsid`` daemons at start: ``sleep <tag>1`` orphaned at once (its parent exits)
and ``sleep <tag>2`` left as the server's child. ``ROGUE_ENV`` lists environment variables whose presence the server reports.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

TOOLS = [
    {
        "name": "echo",
        "description": "Echo the text back.\nSecond line.",
        "inputSchema": {
            "type": "object",
            "properties": {"text": {"type": "string"}, "times": {"type": "integer", "minimum": 1}},
            "required": ["text"],
        },
    },
    {
        "name": "slow",
        "description": "Sleep.",
        "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}},
    },
    {"name": "die", "description": "Exit mid-call.", "inputSchema": {"type": "object"}},
    {"name": "fail", "description": "Return isError.", "inputSchema": {"type": "object"}},
    {"name": "env", "description": "Report variables.", "inputSchema": {"type": "object"}},
    {
        "name": "peek",
        "description": "A read-only tool.",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "bad schema!",
        "description": "Its schema is no schema.",
        "inputSchema": {"type": "object", "properties": {"x": {"type": 12}}},
    },
    {"name": "big", "description": "A huge result.", "inputSchema": {"type": "object"}},
]


BAD_FRAMES: list[bytes] = [
    b"Starting rogue server v1.0...",
    b"[]",
    b'[{"jsonrpc": "2.0", "method": "ping", "id": 1}]',
    b"5",
    b'"text"',
    b"null",
    b"{",
    b"\xff\xfe not utf-8",
    b"{}",
    b'{"jsonrpc": "2.0", "id": [1], "result": {}}',
    b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}',
    b'{"jsonrpc": "2.0", "id": true, "method": "ping"}',
    b'{"jsonrpc": "2.0", "method": 5, "id": 7}',
    b'{"jsonrpc": "2.0", "method": "ping", "id": 8, "params": 5}',
    b'{"jsonrpc": "1.0", "method": "ping", "id": 9}',
    b'{"jsonrpc": "2.0", "id": 424242, "result": {}}',
    b'{"jsonrpc": "2.0", "id": 1e999, "method": "ping"}',
    b'{"jsonrpc": "2.0", "id": 3, "error": "boom"}',
    b'{"jsonrpc": "2.0", "id": "s1", "method": "no/such/method"}',
    b"[" * 100_000,
]
"""Lines no JSON-RPC peer should send; pi answers each with an error (or drops it) and goes on."""


def send_bad_frames() -> None:
    out = sys.stdout.buffer
    for frame in BAD_FRAMES:
        out.write(frame + b"\n")
    out.flush()


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def log(text: str) -> None:
    path = os.environ.get("ROGUE_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")


MALFORMED_ONCE: list[bool] = []


def call(request_id: object, name: str, args: dict, mode: str = "ok") -> None:
    if mode == "fuzz" and name == "echo" and not MALFORMED_ONCE:
        MALFORMED_ONCE.append(True)
        send({"jsonrpc": "2.0", "id": request_id, "result": 5})  # no result object
        return
    if name == "echo":
        text = str(args.get("text")) * int(args.get("times", 1))
        send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"content": [{"type": "text", "text": text}]},
            }
        )
    elif name == "slow":
        time.sleep(float(args.get("seconds", 30)))
        send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"content": [{"type": "text", "text": "slept"}]},
            }
        )
    elif name == "die":
        sys.stderr.write("rogue: dying on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    elif name == "fail":
        send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"isError": True, "content": [{"type": "text", "text": "it went wrong"}]},
            }
        )
    elif name == "env":
        names = os.environ.get("ROGUE_ENV", "").split(",")
        found = {n: n in os.environ for n in names if n}
        send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"content": [], "structuredContent": found},
            }
        )
    elif name == "big":
        text = "\n".join(f"line {i}" for i in range(5000))
        send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"content": [{"type": "text", "text": text}]},
            }
        )
    else:
        send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"content": [{"type": "text", "text": "peeked"}]},
            }
        )


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    log(f"started {os.getpid()}")
    daemons = os.environ.get("ROGUE_DAEMONS")
    if daemons:
        import subprocess

        orphan = f"sleep {daemons}1 < /dev/null > /dev/null 2>&1 & exit 0"
        subprocess.run(["setsid", "sh", "-c", orphan], check=True)
        subprocess.Popen(["setsid", "sleep", f"{daemons}2"], stdin=subprocess.DEVNULL)
    if mode == "exit":
        sys.stderr.write("rogue: cannot start (missing config)\n")
        sys.exit(2)
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if method is None:  # pi's answers: its error replies to the bad frames
            log(f"reply {json.dumps(message, sort_keys=True)}")
            continue
        if mode == "fuzz":
            send_bad_frames()
        if method == "initialize":
            time.sleep(float(os.environ.get("ROGUE_INIT_DELAY", "0")))  # a slow start
            if mode == "hang":
                continue
            if mode == "garbage":
                sys.stdout.write("Starting rogue server v1.0...\n")
                sys.stdout.flush()
                continue
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "result": {
                        "protocolVersion": message["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "rogue", "version": "1"},
                    },
                }
            )
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": TOOLS}})
        elif method == "tools/call":
            params = message["params"]
            threading.Thread(
                target=call,
                args=(request_id, params["name"], params.get("arguments") or {}, mode),
                daemon=True,
            ).start()
        elif method == "notifications/cancelled":
            log(f"cancelled {message['params'].get('requestId')}")
        elif request_id is not None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "error": {"code": -32601, "message": "no such method"},
                }
            )


if __name__ == "__main__":
    main()
