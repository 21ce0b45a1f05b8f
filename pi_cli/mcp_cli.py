"""``pi mcp list|get|add|remove``: manage MCP servers in Claude Code's format.

Scopes: ``user`` (the default: ``mcpServers`` in ``$PI_HOME/settings.json``) and ``project``
(``.mcp.json`` in the current folder, shared through the repository; it applies only in a
trusted folder). Examples::

    pi mcp add time -- uvx mcp-server-time
    pi mcp add -s project -e TOKEN=x git -- uvx mcp-server-git --repository .
    pi mcp add -t http -H "Authorization: Bearer ${API_TOKEN}" docs https://example.com/mcp
    pi mcp remove time
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pi_cli.shell import json_text, one_line, say

USAGE = """usage: pi mcp list
       pi mcp get NAME
       pi mcp add [-s user|project] [-e KEY=VALUE]... [--] NAME COMMAND [ARGS...]
       pi mcp add [-s user|project] -t http|sse [-H 'Name: value']... NAME URL
       pi mcp remove [-s user|project] NAME"""
_VERBS = ("list", "get", "add", "remove")


def accepts(argv: list[str]) -> bool:
    """``pi mcp <verb> ...`` with a known verb; anything else stays a prompt."""
    return bool(argv) and argv[0] in _VERBS


def _user_file() -> Path:
    from pi_cli.shell import pi_home

    return pi_home() / "settings.json"


def _project_file() -> Path:
    return Path.cwd() / ".mcp.json"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig") or "{}")
    except FileNotFoundError:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def _scopes() -> list[tuple[str, Path]]:
    return [("user", _user_file()), ("project", _project_file())]


def _servers(path: Path) -> dict[str, Any]:
    servers = _read(path).get("mcpServers")
    return servers if isinstance(servers, dict) else {}


def _describe(entry: Any) -> str:
    if not isinstance(entry, dict):
        return "(invalid entry)"
    if entry.get("type") in ("http", "sse", "streamable-http") or "url" in entry:
        return f"{entry.get('type', 'http')}: {entry.get('url', '?')}"
    return "stdio: " + " ".join(str(p) for p in [entry.get("command", "?"), *entry.get("args", [])])


def run(argv: list[str]) -> int:
    """Run one ``pi mcp`` command; returns the exit code."""
    verb, rest = argv[0], argv[1:]
    try:
        if verb == "list":
            return _list()
        if verb == "get" and len(rest) == 1:
            return _get(rest[0])
        if verb == "add":
            return _add(rest)
        if verb == "remove":
            return _remove(rest)
    except (OSError, ValueError) as exc:
        say(f"pi: {one_line(exc)}", err=True)
        return 1
    say(USAGE, err=True)
    return 2


def _list() -> int:
    found = False
    for scope, path in _scopes():
        for name, entry in _servers(path).items():
            found = True
            say(f"{one_line(name)}  [{scope}: {one_line(path)}]  {one_line(_describe(entry))}")
    if not found:
        say("No MCP servers configured. Add one: pi mcp add NAME -- COMMAND [ARGS...]")
    if _servers(_project_file()):
        from pi_cli.shell import check_trust

        if not check_trust(Path.cwd()).trusted():
            say("(.mcp.json applies only once this folder is trusted: pi trust)")
    return 0


def _get(name: str) -> int:
    for scope, path in reversed(_scopes()):
        entry = _servers(path).get(name)
        if entry is not None:
            say(json_text({"name": name, "scope": scope, "file": str(path), **entry}, indent=2))
            return 0
    say(f"pi: no MCP server named {one_line(repr(name))}", err=True)
    return 1


def _options(rest: list[str]) -> tuple[dict[str, Any], list[str]]:
    options: dict[str, Any] = {"scope": "user", "type": "stdio", "env": {}, "headers": {}}
    words = list(rest)
    positional: list[str] = []
    while words:
        word = words.pop(0)
        if word == "--":
            positional.extend(words)
            break
        if word in ("-s", "--scope", "-t", "--transport", "-e", "--env", "-H", "--header"):
            if not words:
                raise ValueError(f"{word} needs a value")
            _set_option(options, word, words.pop(0))
        elif positional or not word.startswith("-"):
            positional.append(word)
            if len(positional) >= 2 and options["type"] == "stdio":
                positional.extend(words)  # the command's own flags are its own
                break
        else:
            raise ValueError(f"unknown option {word}")
    return options, positional


def _set_option(options: dict[str, Any], word: str, value: str) -> None:
    """One ``-s``/``-t``/``-e``/``-H`` option's value, checked."""
    if word in ("-s", "--scope"):
        if value not in ("user", "project"):
            raise ValueError("the scope is user or project")
        options["scope"] = value
    elif word in ("-t", "--transport"):
        if value not in ("stdio", "http", "sse"):
            raise ValueError("the transport is stdio, http or sse")
        options["type"] = value
    elif word in ("-e", "--env"):
        key, eq, val = value.partition("=")
        if not eq or not key:
            raise ValueError(f"-e takes KEY=VALUE, not {value!r}")
        options["env"][key] = val
    else:
        key, colon, val = value.partition(":")
        if not colon or not key.strip():
            raise ValueError(f"-H takes 'Name: value', not {value!r}")
        options["headers"][key.strip()] = val.strip()


def _file_of(scope: str) -> Path:
    return _user_file() if scope == "user" else _project_file()


def _add(rest: list[str]) -> int:
    options, positional = _options(rest)
    if len(positional) < 2:
        raise ValueError("give a NAME and a COMMAND (or a URL with -t http|sse)\n" + USAGE)
    name, target, args = positional[0], positional[1], positional[2:]
    if options["type"] == "stdio":
        entry: dict[str, Any] = {"command": target, "args": args}
        if options["env"]:
            entry["env"] = options["env"]
    else:
        if args:
            raise ValueError(f"a {options['type']} server takes one URL, not {args}")
        entry = {"type": options["type"], "url": target}
        if options["headers"]:
            entry["headers"] = options["headers"]
    path = _file_of(options["scope"])
    data = _read(path)
    servers = data.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError(f'{path}: "mcpServers" is not an object')
    replaced = name in servers
    servers[name] = entry
    _write(path, data)
    _kept_trusted(options["scope"])
    verb = "Replaced" if replaced else "Added"
    say(f"{verb} MCP server {one_line(name)} in {one_line(path)} ({one_line(_describe(entry))}).")
    return 0


def _remove(rest: list[str]) -> int:
    options, positional = _options(rest)
    if len(positional) != 1:
        raise ValueError(USAGE)
    name = positional[0]
    explicit = "-s" in rest or "--scope" in rest
    scopes = [options["scope"]] if explicit else ["project", "user"]
    for scope in scopes:
        path = _file_of(scope)
        data = _read(path)
        servers = data.get("mcpServers")
        if isinstance(servers, dict) and name in servers:
            del servers[name]
            _write(path, data)
            _kept_trusted(scope)
            say(f"Removed MCP server {one_line(name)} from {one_line(path)}.")
            return 0
    say(f"pi: no MCP server named {one_line(repr(name))}", err=True)
    return 1


def _kept_trusted(scope: str) -> None:
    """pi itself changed ``.mcp.json``: a trusted folder stays trusted."""
    if scope == "project":
        from pi_cli.shell import refresh_digest

        refresh_digest(Path(os.getcwd()))
