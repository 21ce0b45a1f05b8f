"""MCP server configuration in Claude Code's format (no SDK import: this runs on every start).

Sources, lowest precedence first (a later one replaces a server of the same name whole):
``mcpServers`` in ``$PI_HOME/settings.json``, in ``.pi/settings.json`` (trusted folders only: the
settings layers drop it otherwise), and ``.mcp.json`` at the project root (trusted only).

Shapes: ``{"command", "args", "env", "cwd"}`` (stdio; ``"type": "stdio"`` optional),
``{"type": "http", "url", "headers"}`` (streamable HTTP) and ``{"type": "sse", "url",
"headers"}``. ``${VAR}`` and ``${VAR:-default}`` are expanded in every string from the tools'
(key-free) environment; a missing variable without a default makes that server fail to start
with a message naming it, the others go on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

Transport = Literal["stdio", "http", "sse"]
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
MCP_JSON = ".mcp.json"


class ServerConfig(NamedTuple):
    """One configured server, variables expanded.

    ``problem``: why it cannot start (bad shape, missing variables); ``source``: the file.
    """

    name: str
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = {}
    cwd: str | None = None
    url: str = ""
    headers: Mapping[str, str] = {}
    source: str = ""
    problem: str | None = None
    raw: Mapping[str, Any] = {}


def expand(value: str, env: Mapping[str, str], missing: list[str]) -> str:
    """``value`` with ``${VAR}`` / ``${VAR:-default}`` replaced; unknown names go to ``missing``."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        missing.append(name)
        return ""

    return _VAR.sub(one, value)


def _strings(value: object) -> bool:
    """A mapping of names to strings (``env``, ``headers``)."""
    return isinstance(value, Mapping) and all(isinstance(x, str) for x in value.values())


def parse_server(name: str, raw: object, env: Mapping[str, str], source: str = "") -> ServerConfig:
    """One entry of ``mcpServers`` (never raises: a bad entry carries its ``problem``)."""
    if not isinstance(raw, Mapping):
        return ServerConfig(name, "stdio", source=source, problem="its entry is not an object")
    kind = raw.get("type", "stdio" if "command" in raw else ("http" if "url" in raw else None))
    kind = "http" if kind == "streamable-http" else kind
    missing: list[str] = []

    def problem(text: str) -> ServerConfig:
        return ServerConfig(name, "stdio", source=source, problem=text, raw=raw)

    if kind == "stdio":
        command, args = raw.get("command"), raw.get("args", [])
        if not isinstance(command, str) or not command.strip():
            return problem('"command" is missing or not a string')
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            return problem('"args" must be a list of strings')
        if not _strings(raw.get("env", {})):
            return problem('"env" must map names to strings')
        cwd = raw.get("cwd")
        config = ServerConfig(
            name,
            "stdio",
            command=expand(command, env, missing),
            args=tuple(expand(a, env, missing) for a in args),
            env={k: expand(v, env, missing) for k, v in raw.get("env", {}).items()},
            cwd=expand(cwd, env, missing) if isinstance(cwd, str) else None,
            source=source,
            raw=raw,
        )
    elif kind in ("http", "sse"):
        url = raw.get("url")
        if not isinstance(url, str) or not url.strip():
            return problem('"url" is missing or not a string')
        if not _strings(raw.get("headers", {})):
            return problem('"headers" must map names to strings')
        config = ServerConfig(
            name,
            "http" if kind == "http" else "sse",
            url=expand(url, env, missing),
            headers={k: expand(v, env, missing) for k, v in raw.get("headers", {}).items()},
            source=source,
            raw=raw,
        )
        if not config.url.startswith(("http://", "https://")):
            return problem(f"the url {config.url!r} is not http:// or https://")
    else:
        return problem(f"unknown type {kind!r} (use stdio, http or sse)")
    if missing:
        names = ", ".join(dict.fromkeys(missing))
        return config._replace(problem=f"environment variable not set: {names}")
    return config


def read_mcp_json(path: Path) -> tuple[dict[str, Any], str | None]:
    """The ``mcpServers`` of a ``.mcp.json`` file, and a problem reading it (or None)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        return {}, None
    except IsADirectoryError:  # the sandbox's placeholder while none exists
        return {}, None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        return {}, f"Cannot read {path}: {exc}"
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if servers is None:
        return {}, None
    if not isinstance(servers, dict):
        return {}, f'{path}: "mcpServers" is not an object'
    return servers, None


def collect(
    layers: Sequence[tuple[str, Mapping[str, Any]]],
    project_root: Path | None,
    env: Mapping[str, str],
    extra: tuple[str, Mapping[str, Any]] | None = None,
) -> tuple[list[ServerConfig], list[str]]:
    """Every configured server (later sources win by name) and the problems reading them.

    ``layers``: (label, settings data) of each pi settings file, lowest first, already gated
    by trust; ``project_root``: where ``.mcp.json`` is read (``None``: untrusted, not read);
    ``extra``: (label, servers) a front end adds, highest precedence.
    """
    found: dict[str, ServerConfig] = {}
    problems: list[str] = []
    sources: list[tuple[str, Any]] = list(layers)
    if project_root is not None:
        servers, problem = read_mcp_json(project_root / MCP_JSON)
        if problem:
            problems.append(problem)
        sources.append((MCP_JSON, {"mcpServers": servers}))
    if extra is not None and extra[1]:
        sources.append((extra[0], {"mcpServers": extra[1]}))
    for label, data in sources:
        entries = data.get("mcpServers") if isinstance(data, Mapping) else None
        if entries is None:
            continue
        if not isinstance(entries, Mapping):
            problems.append(f'{label}: "mcpServers" is not an object')
            continue
        for name, raw in entries.items():
            found[str(name)] = parse_server(str(name), raw, env, label)
    return list(found.values()), problems
