"""The two programs ``bench_server.py`` runs in processes of their own: a streaming
OpenAI-compatible provider (argv: chunks per answer, the delay between chunks) and the 50
attached clients (argv: socket, token, where to write their records; the session ids on stdin)."""

PROVIDER = r"""
import asyncio, json, sys, time

CHUNKS, DELAY = int(sys.argv[1]), float(sys.argv[2])

def chunk(delta=None, finish=None, usage=None):
    choice = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    body = {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [choice] if usage is None else []}
    if usage is not None:
        body["usage"] = usage
    return b"data: " + json.dumps(body).encode() + b"\n\n"

async def handle(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            await reader.readexactly(length)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            async def send(data):
                writer.write(b"%x\r\n" % len(data) + data + b"\r\n")
                await writer.drain()
            await send(chunk({"role": "assistant", "content": ""}))
            for _ in range(CHUNKS):
                await asyncio.sleep(DELAY)
                await send(chunk({"content": "<%.6f> word " % time.time()}))
            await send(chunk(finish="stop"))
            await send(chunk(usage={"prompt_tokens": 10, "completion_tokens": CHUNKS, "total_tokens": 10 + CHUNKS}))
            await send(b"data: [DONE]\n\n")
            writer.write(b"0\r\n\r\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()

async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0, limit=1 << 20)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()

asyncio.run(main())
"""


CLIENTS = r"""
import asyncio, json, sys, time
from websockets.asyncio.client import unix_connect

socket, token, out = sys.argv[1], sys.argv[2], sys.argv[3]
ids = json.loads(sys.stdin.read())

async def one(index, sid, records):
    uri = f"ws://localhost/api/sessions/{sid}/ws?client=rpc"
    async with unix_connect(socket, uri, additional_headers={"Authorization": f"Bearer {token}"}, max_size=None) as ws:
        await ws.recv()
        await ready.wait()
        await ws.send(json.dumps({"type": "prompt", "id": "p", "message": "stream please"}))
        k = 0
        async for message in ws:
            now = time.time()
            kind = json.loads(message).get("type")
            if kind == "response":
                continue
            records.append((index, k, now, kind))
            k += 1
            if kind == "agent_end":
                return

async def main():
    global ready
    ready = asyncio.Event()
    records = []
    tasks = [asyncio.ensure_future(one(i, sid, records)) for i, sid in enumerate(ids)]
    await asyncio.sleep(1.0)  # every client attached
    ready.set()
    await asyncio.gather(*tasks)
    json.dump(records, open(out, "w"))

asyncio.run(main())
"""
