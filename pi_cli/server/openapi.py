"""``GET /api/openapi.json``: the server's API, generated from the models the code uses.

The HTTP bodies are :mod:`pi_cli.server.wire`'s models; the RPC commands (the body of
``POST /api/sessions/{id}/rpc`` and every message a client sends on the session's WebSocket)
are :mod:`pi_cli.modes.rpc.schema`'s, the same ones RPC mode validates with; the events are the
shell's event models (``ShellEvent``), as RPC mode writes them. Nothing here is written by hand
that the code could contradict: a new command, field or event appears by itself.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec
from pydantic import BaseModel

from pi_cli import __version__
from pi_cli.modes.rpc.schema import COMMAND_MODELS, command_schemas
from pi_cli.server.wire import OpenSession, Problem, SessionList, SessionSummary

REF = "#/components/schemas/{model}"
EXTRA_EVENTS = {
    "response": "The answer to a command: {type, command, success, data | error, id}.",
    "attached": "First line on a session's WebSocket: {clientId, session, state, frontState, "
    "messages, backlog}; then the current run's lines (backlog), then everything live.",
    "shell_state": "The shell became busy or idle: {state} (interactive clients).",
    "queue_update": "pi's queue event: {steering: [text], followUp: [text]}.",
    "thinking_level_changed": "pi's event: {level}.",
    "extension_ui_request": "An approval: {id, method: select, title, message, options, "
    "timeout, toolName, toolCallId, args, rules}; answer with extension_ui_response.",
}


def _schema(model: type[BaseModel], schemas: dict[str, Any]) -> dict[str, str]:
    schema = model.model_json_schema(by_alias=True, ref_template=REF)
    schemas.update(schema.pop("$defs", {}))
    schemas[model.__name__] = schema
    return {"$ref": REF.format(model=model.__name__)}


def _event_schemas(schemas: dict[str, Any]) -> dict[str, Any]:
    from pi_cli.shell import ShellEvent

    template = REF.replace("{model}", "{name}")
    schema = msgspec.json.schema(ShellEvent, ref_template=template)
    schemas.update(schema.pop("$defs", {}))
    extras = [
        {
            "type": "object",
            "title": name,
            "description": text,
            "properties": {"type": {"const": name}},
        }
        for name, text in EXTRA_EVENTS.items()
    ]
    return {"oneOf": [*schema.get("anyOf", schema.get("oneOf", [])), *extras]}


def _json(ref: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ref}}}


def _problems() -> dict[str, Any]:
    problem = {"$ref": REF.format(model="Problem")}
    return {
        "400": _json(problem, "Bad request (a malformed body, or a session id that is no id)."),
        "401": {"description": "No valid token."},
        "403": {"description": "Cross-origin request, or a host name this server does not serve."},
        "404": _json(problem, "No such session."),
    }


@cache
def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document."""
    schemas: dict[str, Any] = {}
    summary = _schema(SessionSummary, schemas)
    listing = _schema(SessionList, schemas)
    opening = _schema(OpenSession, schemas)
    _schema(Problem, schemas)
    schemas.update(command_schemas())
    command = {"oneOf": [{"$ref": REF.format(model=m.__name__)} for m in COMMAND_MODELS.values()]}
    schemas["RpcCommand"] = {
        **command,
        "discriminator": {
            "propertyName": "type",
            "mapping": {name: REF.format(model=m.__name__) for name, m in COMMAND_MODELS.items()},
        },
    }
    schemas["RpcLine"] = _event_schemas(schemas)
    session_id = {
        "name": "id",
        "in": "path",
        "required": True,
        "description": "A session id, or a unique prefix of one.",
        "schema": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$"},
    }
    problems = _problems()
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "pi serve",
            "version": __version__,
            "description": "Sessions of pi hosted by `pi serve`. Each session speaks pi's RPC "
            "protocol: commands (RpcCommand) in, responses and events (RpcLine) out, on "
            "its WebSocket or one command at a time over HTTP. See docs/server.md.",
        },
        "security": [{"bearer": []}, {"cookie": []}],
        "paths": {
            "/api/sessions": {
                "get": {
                    "summary": "List sessions (live ones first, then stored ones)",
                    "responses": {"200": _json(listing, "The sessions."), **problems},
                },
                "post": {
                    "summary": "Open a session (new, or a stored one)",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": opening}},
                    },
                    "responses": {"201": _json(summary, "The session."), **problems},
                },
            },
            "/api/sessions/{id}": {
                "parameters": [session_id],
                "get": {
                    "summary": "One session",
                    "responses": {"200": _json(summary, "It."), **problems},
                },
                "delete": {
                    "summary": "Close a session (a live run is aborted) and forget it",
                    "responses": {"200": _json(summary, "What was closed."), **problems},
                },
            },
            "/api/sessions/{id}/rpc": {
                "parameters": [session_id],
                "post": {
                    "summary": "Run one RPC command; the answer is its response line",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {"schema": {"$ref": REF.format(model="RpcCommand")}}
                        },
                    },
                    "responses": {
                        "200": _json({"$ref": REF.format(model="RpcLine")}, "The response line."),
                        **problems,
                    },
                },
            },
            "/api/sessions/{id}/fork": {
                "parameters": [session_id],
                "post": {
                    "summary": "Fork: a new session with this one's conversation so far",
                    "responses": {"201": _json(summary, "The new session."), **problems},
                },
            },
            "/api/sessions/{id}/ws": {
                "parameters": [session_id],
                "get": {
                    "summary": "Attach: a WebSocket carrying RPC commands in and RpcLine lines out",
                    "description": "Text messages, one JSON object each (at most 8 MiB). The "
                    "first line is `attached`. A client that falls 16 MiB behind is dropped.",
                    "responses": {"101": {"description": "Switching protocols."}, **problems},
                },
            },
            "/api/openapi.json": {
                "get": {
                    "summary": "This document",
                    "responses": {"200": {"description": "OpenAPI 3.1."}},
                }
            },
        },
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "cookie": {"type": "apiKey", "in": "cookie", "name": "pi_token"},
            },
        },
    }
