"""The ASGI application of ``pi serve`` (Starlette): the HTTP API, the WebSocket, the web client.

Every route is behind :class:`~pi_cli.server.auth.Guard`. A session's WebSocket is the RPC
channel: text messages in are commands (handled one at a time, in order, as on stdin), lines
out are its responses and the session's events; the client's queue is
:class:`~pi_cli.server.channel.ClientChannel`. Sessions are :class:`~pi_cli.server.hub.SessionHub`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from pi_cli.modes.rpc.connection import RpcConnection
from pi_cli.server.channel import ClientChannel
from pi_cli.server.hub import HubError, SessionHub, check_id
from pi_cli.server.openapi import openapi
from pi_cli.server.web import web_routes
from pi_cli.server.wire import MAX_BODY, OpenSession
from pi_cli.shell import Settings

LABELS = frozenset({"tui", "plain", "web", "acp", "rpc", "detach", "client"})


class BodyTooLarge(Exception):
    """A request body over :data:`MAX_BODY`."""


def problem(text: str, status: int) -> JSONResponse:
    """An error body."""
    return JSONResponse({"error": text}, status_code=status)


async def read_body(request: Request) -> bytes:
    """The body, refused past :data:`MAX_BODY` (counted as it arrives, not trusted from a header)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise BodyTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def build_app(
    hub: SessionHub,
    server_info: dict[str, Any] | None = None,
    stop: Callable[[], None] | None = None,
) -> Starlette:
    """The application serving ``hub`` (``server_info``: what ``/api/server`` says; ``stop``
    ends the server)."""
    routes = [
        Route("/api/sessions", list_sessions, methods=["GET"]),
        Route("/api/sessions", open_session, methods=["POST"]),
        Route("/api/sessions/{id}", get_session, methods=["GET"]),
        Route("/api/sessions/{id}", close_session, methods=["DELETE"]),
        Route("/api/sessions/{id}/rpc", rpc, methods=["POST"]),
        Route("/api/sessions/{id}/fork", fork_session, methods=["POST"]),
        WebSocketRoute("/api/sessions/{id}/ws", attach),
        Route("/api/openapi.json", api_description, methods=["GET"]),
        Route("/api/server", server_status, methods=["GET"]),
        Route("/api/server/stop", stop_server, methods=["POST"]),
        *web_routes(),
    ]
    app = Starlette(routes=routes, exception_handlers={HubError: _hub_error})  # type: ignore[dict-item]
    app.state.hub = hub
    app.state.info = server_info or {}
    app.state.stop = stop
    return app


def _hub(request: Request | WebSocket) -> SessionHub:
    hub: SessionHub = request.app.state.hub
    return hub


async def list_sessions(request: Request) -> Response:
    """``GET /api/sessions``."""
    return JSONResponse({"sessions": _hub(request).listing(), "server": request.app.state.info})


async def open_session(request: Request) -> Response:
    """``POST /api/sessions``."""
    try:
        body = OpenSession.model_validate_json(await read_body(request))
    except BodyTooLarge:
        return problem("request body too large", 413)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        return problem(f"{where}: {first['msg']}" if where else first["msg"], 400)
    hosted = await _hub(request).open(body)
    return JSONResponse(hosted.summary(), status_code=201)


async def get_session(request: Request) -> Response:
    """``GET /api/sessions/{id}`` (an id or a unique prefix)."""
    ref = request.path_params["id"]
    check_id(ref)
    listing = _hub(request).listing()
    found = [s for s in listing if s["id"] == ref] or [
        s for s in listing if s["id"].startswith(ref)
    ]
    if len(found) != 1:
        raise HubError(f"no session {ref!r} (pi ps lists them)", 404 if not found else 409)
    return JSONResponse(found[0])


async def close_session(request: Request) -> Response:
    """``DELETE /api/sessions/{id}``."""
    key = await _hub(request).close(request.path_params["id"])
    return JSONResponse({"id": key, "closed": True})


async def fork_session(request: Request) -> Response:
    """``POST /api/sessions/{id}/fork``: a new session with that one's conversation so far."""
    hosted = await _hub(request).fork(request.path_params["id"])
    return JSONResponse(hosted.summary(), status_code=201)


async def rpc(request: Request) -> Response:
    """``POST /api/sessions/{id}/rpc``: one command, its response line."""
    hosted = await _hub(request).attachable(request.path_params["id"])
    try:
        raw = await read_body(request)
    except BodyTooLarge:
        return problem("request body too large", 413)
    return JSONResponse(await one_command(hosted, raw))


async def api_description(request: Request) -> Response:
    """``GET /api/openapi.json``."""
    return JSONResponse(openapi())


async def server_status(request: Request) -> Response:
    """``GET /api/server``."""
    hub = _hub(request)
    return JSONResponse({**request.app.state.info, "idle": hub.idle, "sessions": len(hub.sessions)})


async def stop_server(request: Request) -> Response:
    """``POST /api/server/stop``."""
    stop = request.app.state.stop
    if stop is not None:
        asyncio.get_running_loop().call_soon(stop)
    return JSONResponse({"stopping": stop is not None})


async def attach(websocket: WebSocket) -> None:
    """``/api/sessions/{id}/ws``."""
    await serve_websocket(_hub(websocket), websocket)


async def _hub_error(request: Request, exc: HubError) -> Response:
    return problem(str(exc), exc.status)


async def one_command(hosted: Any, raw: bytes) -> dict[str, Any]:
    """Run one command line on ``hosted`` and return its response line."""
    answered: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

    def write(data: dict[str, Any]) -> None:
        if data.get("type") == "response" and not answered.done():
            answered.set_result(data)

    connection = RpcConnection(hosted.shell, write, hosted.output)
    await connection.handle_line(raw)
    if not answered.done():
        try:
            command = json.loads(raw)
        except ValueError:
            command = {}
        if isinstance(command, dict) and command.get("type") == "extension_ui_response":
            return {"type": "response", "command": "extension_ui_response", "success": True}
    return await answered


def lag_limit(settings: Settings) -> int:
    """How far (bytes) a client may fall behind a session's stream before it is dropped."""
    return int(settings.server.client_lag_mib * 1024 * 1024)


async def serve_websocket(hub: SessionHub, websocket: WebSocket) -> None:
    """Attach a client to a session until it leaves or is dropped (the run goes on)."""
    try:
        hosted = await hub.attachable(websocket.path_params["id"])
    except HubError as exc:
        await websocket.send_denial_response(problem(str(exc), exc.status))
        return
    label = websocket.query_params.get("client", "client")
    await websocket.accept()
    channel = ClientChannel(label if label in LABELS else "client", limit=lag_limit(hub.settings))
    connection = hosted.attach(channel)
    channel.token = websocket.scope.get("state", {}).get("token")  # type: ignore[attr-defined]
    pump = asyncio.ensure_future(channel.pump(websocket.send_text))
    reader = asyncio.ensure_future(_read(websocket, connection))
    finished = asyncio.ensure_future(channel.finished.wait())
    try:
        await asyncio.wait({pump, reader, finished}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        hosted.detach(channel)
        for task in (pump, reader, finished):
            task.cancel()
        reason = channel.dropped
        with contextlib.suppress(Exception):  # the peer may be gone already
            await asyncio.wait_for(
                websocket.close(code=1008 if reason else 1000, reason=reason or ""), 1
            )


async def _read(websocket: WebSocket, connection: RpcConnection) -> None:
    """Commands in, one at a time (a closed or broken connection ends the loop)."""
    while True:
        try:
            message = await websocket.receive()
        except WebSocketDisconnect:
            return
        if message["type"] == "websocket.disconnect":
            return
        data = message.get("text")
        if data is None and message.get("bytes") is not None:
            data = message["bytes"].decode("utf-8", "replace")
        if data is not None:
            await connection.handle_line(data)
