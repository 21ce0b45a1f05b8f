"""Find a local model server on loopback when no model and no provider key are configured.

Ollama (``GET /api/tags``), llama.cpp server, LM Studio and vLLM (``GET /v1/models``) are probed
concurrently with raw asyncio sockets (no HTTP client import: this runs on every start-up
without a key) under one total time budget, so a missing or hung server costs at most
:data:`PROBE_BUDGET_S`.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar

T = TypeVar("T")

PROBE_BUDGET_S = 0.150
LOOPBACK = "127.0.0.1"
_MAX_BODY = 1 << 20  # model lists are small; never buffer an unbounded answer


@dataclass(frozen=True)
class LocalServer:
    """One kind of local server and where to look for it.

    Attributes:
        key: provider prefix of the model spec (``ollama``, ``llamacpp``, ...) and settings key.
        label: human name (``Ollama``).
        port: loopback port.
        path: the model-list endpoint (``/api/tags`` or ``/v1/models``).
    """

    key: str
    label: str
    port: int
    path: str

    @property
    def address(self) -> str:
        """``127.0.0.1:PORT``."""
        return f"{LOOPBACK}:{self.port}"

    @property
    def api_base(self) -> str:
        """The OpenAI-compatible base URL (Ollama serves one under ``/v1`` too)."""
        return f"http://{self.address}/v1"


DEFAULT_SERVERS: tuple[LocalServer, ...] = (
    LocalServer("ollama", "Ollama", 11434, "/api/tags"),
    LocalServer("llamacpp", "llama.cpp server", 8080, "/v1/models"),
    LocalServer("lmstudio", "LM Studio", 1234, "/v1/models"),
    LocalServer("vllm", "vLLM", 8000, "/v1/models"),
)


@dataclass(frozen=True)
class DetectedServer:
    """A server that answered, with the models it lists (in its order)."""

    server: LocalServer
    models: tuple[str, ...]


@dataclass(frozen=True)
class LocalModel:
    """The model chosen from a detected server."""

    server: LocalServer
    name: str

    @property
    def spec(self) -> str:
        """The model spec for :func:`agent_core.providers.resolve_model` (``ollama/qwen3``)."""
        return f"{self.server.key}/{self.name}"

    @property
    def api_base(self) -> str:
        """Where to send requests (explicit, so overridden ports are honoured)."""
        return self.server.api_base

    def describe(self) -> str:
        """``qwen2.5-coder:7b from Ollama at 127.0.0.1:11434``."""
        return f"{self.name} from {self.server.label} at {self.server.address}"


def probing_disabled(env: Mapping[str, str] | None = None) -> bool:
    """True when ``PI_NO_LOCAL_PROBE`` is set to a true value (tests, offline scripts)."""
    value = (os.environ if env is None else env).get("PI_NO_LOCAL_PROBE", "")
    return value.strip().lower() not in ("", "0", "false", "no")


def probe_targets(overrides: Mapping[str, int] | None = None) -> list[LocalServer]:
    """The servers to probe, with ports replaced by ``overrides`` (settings ``local_probe_ports``).

    With overrides, only the overridden servers are probed: a test pointing Ollama at a free
    port must not find whatever happens to listen on the developer's 8080.
    """
    if not overrides:
        return list(DEFAULT_SERVERS)
    return [
        LocalServer(s.key, s.label, int(overrides[s.key]), s.path)
        for s in DEFAULT_SERVERS
        if s.key in overrides
    ]


# ---------------------------------------------------------------------------- probing


async def _http_get_json(port: int, path: str) -> Any:
    reader, writer = await asyncio.open_connection(LOOPBACK, port)
    try:
        # HTTP/1.0 + Connection: close keeps servers from answering with chunked encoding.
        writer.write(
            f"GET {path} HTTP/1.0\r\nHost: {LOOPBACK}:{port}\r\nAccept: application/json\r\n"
            "Connection: close\r\n\r\n".encode("ascii")
        )
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split()
        if len(parts) < 2 or parts[1] != "200":
            return None
        headers = {
            k.strip().lower(): v.strip()
            for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)
        }
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) <= _MAX_BODY:
            body = await reader.readexactly(int(length))
        else:
            body = await reader.read(_MAX_BODY)
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = _dechunk(body)
        return json.loads(body)
    finally:
        writer.close()


def _dechunk(body: bytes) -> bytes:
    out, rest = bytearray(), body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out += rest[:size]
        rest = rest[size + 2 :]
    return bytes(out)


def _model_names(server: LocalServer, data: Any) -> tuple[str, ...]:
    if not isinstance(data, dict):
        return ()
    if server.path == "/api/tags":
        items, key = data.get("models"), "name"
    else:
        items, key = data.get("data"), "id"
    if not isinstance(items, list):
        return ()
    names = []
    for item in items:
        if isinstance(item, dict):
            name = item.get(key) or item.get("model")
            if isinstance(name, str) and name:
                names.append(name)
    return tuple(names)


async def _probe_one(server: LocalServer) -> DetectedServer | None:
    try:
        data = await _http_get_json(server.port, server.path)
    except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
        return None  # refused, reset, not HTTP, not JSON: not a usable server
    models = _model_names(server, data)
    return DetectedServer(server, models) if models else None


async def probe_local_servers(
    servers: list[LocalServer] | None = None,
    *,
    budget_s: float = PROBE_BUDGET_S,
    first_only: bool = False,
) -> list[DetectedServer]:
    """Probe ``servers`` concurrently; return those that listed models, in priority order.

    Args:
        servers: what to probe (default :data:`DEFAULT_SERVERS`).
        budget_s: total wall-clock budget; probes still running then are cancelled.
        first_only: return as soon as the highest-priority answering server is known.
    """
    servers = list(DEFAULT_SERVERS if servers is None else servers)
    if not servers:
        return []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget_s
    tasks = [asyncio.create_task(_probe_one(s)) for s in servers]
    try:
        while True:
            if first_only:
                for task in tasks:  # priority order: stop at the first one still running
                    if not task.done():
                        break
                    if task.result() is not None:
                        return [task.result()]  # type: ignore[list-item]
            pending = [t for t in tasks if not t.done()]
            remaining = deadline - loop.time()
            if not pending or remaining <= 0:
                break
            await asyncio.wait(pending, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
        return [t.result() for t in tasks if t.done() and t.result() is not None]  # type: ignore[misc]
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _run_sync(coro_factory: Callable[[], Coroutine[Any, Any, T]], default: T) -> T:
    """Run a coroutine to completion from sync code, also when called inside a running loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    # Inside a loop (RPC mode, async tests) asyncio.run is not allowed: use a short-lived thread.
    box: list[T] = []
    thread = threading.Thread(target=lambda: box.append(asyncio.run(coro_factory())), daemon=True)
    thread.start()
    thread.join()
    return box[0] if box else default


def detect_local_servers(
    overrides: Mapping[str, int] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    budget_s: float = PROBE_BUDGET_S,
    first_only: bool = False,
) -> list[DetectedServer]:
    """Every answering local server (``[]`` when probing is disabled by ``PI_NO_LOCAL_PROBE``)."""
    if probing_disabled(env):
        return []
    targets = probe_targets(overrides)
    return _run_sync(
        lambda: probe_local_servers(targets, budget_s=budget_s, first_only=first_only), []
    )


def detect_local_model(
    overrides: Mapping[str, int] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    budget_s: float = PROBE_BUDGET_S,
) -> LocalModel | None:
    """The first model of the highest-priority answering server, or None."""
    found = detect_local_servers(overrides, env, budget_s=budget_s, first_only=True)
    if not found:
        return None
    return LocalModel(found[0].server, found[0].models[0])


def announce(model: LocalModel, stream: TextIO | None = None) -> None:
    """Tell the user which local model is used (stderr: stdout may be a protocol)."""
    print(f"using local model {model.describe()}", file=stream or sys.stderr, flush=True)
