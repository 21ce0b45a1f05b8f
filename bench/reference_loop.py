"""The floor for the seed one-shot: the same agent loop written with nothing but the stdlib.

``python bench/reference_loop.py BASE_URL REQUEST.json "prompt"``: ``REQUEST.json`` holds the
system prompt and tool schemas pi sends (``{"system": ..., "tools": [...]}``, written by
``bench_startup.py`` from pi's own first request), so both send the same bytes. Streams each
answer over SSE with ``http.client``, runs ``bash`` with ``subprocess`` and ``read`` with
``open``, and loops until the model answers without a tool call; prints the answer.

Deliberately no error handling, no retries, no session, no permissions: the cost of one
process that talks to the same server and runs the same tools, and nothing else.
"""

import http.client
import json
import subprocess
import sys
import urllib.parse


def stream_turn(conn: http.client.HTTPConnection, path: str, body: dict) -> dict:
    """POST ``body``; the assistant message assembled from the SSE stream."""
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    response = conn.getresponse()
    text: list[str] = []
    calls: dict[int, dict] = {}
    for raw in response:
        line = raw.strip()
        if not line.startswith(b"data:"):
            continue
        data = line[5:].strip()
        if data == b"[DONE]":
            break
        chunk = json.loads(data)
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content"):
                text.append(delta["content"])
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(call["index"], {"id": "", "name": "", "arguments": ""})
                slot["id"] = call.get("id") or slot["id"]
                function = call.get("function") or {}
                slot["name"] = function.get("name") or slot["name"]
                slot["arguments"] += function.get("arguments") or ""
    response.read()
    message: dict = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["arguments"]},
            }
            for _, c in sorted(calls.items())
        ]
    return message


def run_tool(name: str, arguments: dict) -> str:
    """``bash`` through a shell, ``read`` from the file; the text the model sees."""
    if name == "bash":
        done = subprocess.run(
            ["bash", "-c", arguments["command"]], capture_output=True, text=True, check=False
        )
        return (done.stdout + done.stderr).rstrip("\n")
    if name == "read":
        with open(arguments["path"], encoding="utf-8") as f:
            return f.read().rstrip("\n")
    return f"unknown tool {name}"


def main() -> None:
    base, request_file, prompt = sys.argv[1:4]
    with open(request_file, encoding="utf-8") as f:
        template = json.load(f)
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port)
    path = url.path.rstrip("/") + "/chat/completions"
    messages = [
        {"role": "system", "content": template["system"]},
        {"role": "user", "content": prompt},
    ]
    while True:
        body = {
            "model": template["model"],
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
            "tools": template["tools"],
        }
        message = stream_turn(conn, path, body)
        messages.append(message)
        if "tool_calls" not in message:
            print(message["content"])
            return
        for call in message["tool_calls"]:
            result = run_tool(call["function"]["name"], json.loads(call["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})


if __name__ == "__main__":
    main()
