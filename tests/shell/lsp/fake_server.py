"""A small language server for the tests (standard library only): ``fake_server.py MODE``.

ok: answers initialize, publishes one error per line containing ``BAD`` (message ``bad thing
<word after BAD>``) and one warning per line containing ``MEH``, with the document's version;
answers definition with the first line of the file naming the word. crash: exits (code 3)
when a document opens. hang: never answers initialize. flood: publishes 3000 diagnostics
messages of 200 problems each for every change. garbage: writes a line that is not LSP.
spawn: like ok, and starts a ``setsid`` daemon (``sleep $FAKE_LSP_SLEEP``) that would outlive
a careless client. With ``FAKE_LSP_RENAME`` set (JSON), it renames: its answer to
``textDocument/rename`` is that JSON with ``ROOT`` replaced by the workspace's URI and ``NEW``
by the new name (a test writes any edit, hostile ones too).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
out = sys.stdout.buffer


def send(message: dict) -> None:
    body = json.dumps(message).encode()
    out.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    out.flush()


def read() -> dict | None:
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length or 0))


def problems(text: str) -> list[dict]:
    found = []
    for number, line in enumerate(text.split("\n")):
        for marker, severity, message in (("BAD", 1, "bad thing"), ("MEH", 2, "meh thing")):
            at = line.find(marker)
            if at >= 0:
                word = line[at + len(marker) :].split()[:1]
                found.append(
                    {
                        "range": {
                            "start": {"line": number, "character": at},
                            "end": {"line": number, "character": at + 3},
                        },
                        "severity": severity,
                        "message": f"{message} {word[0] if word else ''}".strip(),
                        "source": "fake",
                        "code": "F1",
                    }
                )
    return found


def publish(uri: str, version: int, text: str) -> None:
    if MODE == "flood":
        many = [
            {
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                "severity": 1,
                "message": f"flood {i}",
            }
            for i in range(200)
        ]
        for _ in range(3000):
            send(
                {
                    "jsonrpc": "2.0",
                    "method": "textDocument/publishDiagnostics",
                    "params": {"uri": uri, "diagnostics": many},
                }
            )
    params = {"uri": uri, "version": version, "diagnostics": problems(text)}
    send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": params})


def main() -> None:
    docs: dict[str, str] = {}
    root = ""
    if MODE == "garbage":
        out.write(b"hello, I am not a language server\n\n")
        out.flush()
    while True:
        message = read()
        if message is None:
            return
        method = message.get("method")
        params = message.get("params") or {}
        if method == "initialize":
            if MODE == "hang":
                continue
            if MODE == "spawn":
                subprocess.Popen(
                    ["sleep", os.environ["FAKE_LSP_SLEEP"]],
                    start_new_session=True,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            capabilities = {"textDocumentSync": 1, "definitionProvider": True}
            if "FAKE_LSP_RENAME" in os.environ:
                capabilities["renameProvider"] = True
                root = params.get("rootUri") or ""
            send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": capabilities}})
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": message["id"], "result": None})
        elif method == "exit":
            return
        elif method == "textDocument/didOpen":
            if MODE == "crash":
                sys.exit(3)
            item = params["textDocument"]
            docs[item["uri"]] = item["text"]
            publish(item["uri"], item["version"], item["text"])
        elif method == "textDocument/didChange":
            uri = params["textDocument"]["uri"]
            docs[uri] = params["contentChanges"][-1]["text"]
            publish(uri, params["textDocument"]["version"], docs[uri])
        elif method == "textDocument/definition":
            uri = params["textDocument"]["uri"]
            send(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "result": {
                        "uri": uri,
                        "range": {
                            "start": {"line": 0, "character": 0},
                            "end": {"line": 0, "character": 1},
                        },
                    },
                }
            )
        elif method == "textDocument/rename":
            answer = os.environ["FAKE_LSP_RENAME"].replace("ROOT", root)
            answer = answer.replace("NEW", params["newName"])
            send({"jsonrpc": "2.0", "id": message["id"], "result": json.loads(answer)})
        elif "id" in message and method is not None:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {"code": -32601, "message": "unknown"},
                }
            )


if __name__ == "__main__":
    main()
