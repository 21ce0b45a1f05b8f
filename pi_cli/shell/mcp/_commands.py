"""``/mcp``, ``/mcp restart NAME``, ``/mcp__<server>__<prompt> args`` and ``@server:uri``.

Prompt commands are registered when their server is ready (positional arguments fill the
prompt's arguments in order, ``name=value`` sets one by name). A ``@server:uri`` mention of a
ready server's resource is read when the input is sent and attached after the text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from agent_core.tool import ToolError
from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand, split_args
from pi_cli.shell.mcp._names import sanitise

if TYPE_CHECKING:
    from pi_cli.shell.commands import SlashCommandRegistry
    from pi_cli.shell.mcp._server import Server
    from pi_cli.shell.mcp.manager import McpManager

_MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_.-]+):(\S+)")
MAX_MENTIONS = 10


def status_text(manager: McpManager) -> str:
    """One line per server: name, state, transport, tools, error."""
    if not manager.servers:
        return (
            "No MCP servers configured. Add one with `pi mcp add NAME -- COMMAND ARGS` or in "
            ".mcp.json (trusted folders only)."
        )
    lines = []
    for name, server in manager.servers.items():
        tools = f"{len(server.tools)} tools" if server.state == "ready" else ""
        where = server.config.url or " ".join([server.config.command, *server.config.args])
        line = f"{name}: {server.state} ({server.config.transport}: {where}) {tools}".rstrip()
        if server.error:
            line += f"\n  error: {server.error}"
        for problem in server.problems:
            line += f"\n  {problem}"
        lines.append(line)
    return "\n".join(lines)


async def _mcp(shell: ShellAPI, args: str) -> CommandResult:
    manager = shell.mcp
    words = split_args(args)
    if not words:
        return CommandResult(output=status_text(manager))
    if words[0] == "restart" and len(words) == 2:
        try:
            return CommandResult(output=await manager.restart(words[1]))
        except KeyError:
            return CommandResult(output=f"No MCP server named {words[1]!r}.", error=True)
    return CommandResult(output="usage: /mcp [restart NAME]", error=True)


def mcp_commands() -> list[SlashCommand]:
    """``/mcp`` (safe while a run is live: tools change only at turn boundaries)."""
    return [
        SlashCommand(
            "mcp",
            "Show MCP servers and their state; restart one",
            _mcp,
            usage="[restart NAME]",
            while_running=True,
        )
    ]


def prompt_arguments(words: list[str], spec: Any) -> dict[str, str]:
    """Positional words fill the prompt's arguments in order; ``name=value`` names one."""
    names = [argument.name for argument in (spec.arguments or [])]
    values: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in names:
            values[key] = value
        else:
            positional.append(word)
    free = [name for name in names if name not in values]
    for name, word in zip(free, positional, strict=False):
        values[name] = word
    if len(positional) > len(free) and free:
        values[free[-1]] = " ".join([values[free[-1]], *positional[len(free) :]])
    return values


def register_prompts(registry: SlashCommandRegistry, manager: McpManager, server: Server) -> None:
    """Register ``/mcp__<server>__<prompt>`` for each prompt of a ready ``server``."""
    from pi_cli.shell.mcp._results import prompt_text

    name = server.config.name
    connection = server.connection
    if connection is None:
        return
    for spec in connection.prompts:

        async def handler(shell: ShellAPI, args: str, spec: Any = spec) -> CommandResult:
            arguments = prompt_arguments(split_args(args), spec)
            missing = [
                a.name for a in spec.arguments or [] if a.required and a.name not in arguments
            ]
            if missing:
                return CommandResult(output=f"Missing argument: {', '.join(missing)}", error=True)
            timeout = manager.settings.tool_timeout_s
            try:
                live = manager.connection(name)
                result = await manager.run(lambda: live.get_prompt(spec.name, arguments, timeout))
            except ToolError as exc:
                return CommandResult(output=str(exc), error=True)
            text, _images = prompt_text(result, name)
            return CommandResult(prompt=text)

        usage = " ".join(
            f"<{a.name}>" if a.required else f"[{a.name}]" for a in spec.arguments or []
        )
        registry.register(
            SlashCommand(
                f"mcp__{sanitise(name)}__{sanitise(spec.name)}",
                (spec.description or f"MCP prompt {spec.name} of {name}").strip().splitlines()[0],
                handler,
                usage=usage,
                source=f"mcp:{name}",
            )
        )


def mention_transform(manager: McpManager) -> Callable[[str], Awaitable[str | None]]:
    """The input transform attaching ``@server:uri`` resources of ready servers."""
    from pi_cli.shell.mcp._results import clipped, resource_parts

    async def attach(text: str) -> str | None:
        mentions = [
            (m.group(1), m.group(2))
            for m in _MENTION.finditer(text)
            if manager.servers.get(m.group(1)) is not None
        ]
        if not mentions:
            return text
        pieces: list[str] = []
        for server, uri in list(dict.fromkeys(mentions))[:MAX_MENTIONS]:
            try:
                uri, result = await _read(manager, server, uri)
            except ToolError as exc:
                manager.notify(f"@{server}:{uri} was not attached: {exc}", "warning")
                continue
            images: list[Any] = []
            parts = [p for c in result.contents for p in resource_parts(c, images)]
            body = clipped("\n".join(parts))[0]
            pieces.append(f'<mcp-resource server="{server}" uri="{uri}">\n{body}\n</mcp-resource>')
        return text if not pieces else text + "\n\n" + "\n\n".join(pieces)

    return attach


async def _read(manager: McpManager, server: str, uri: str) -> tuple[str, Any]:
    """(uri read, result): ``uri`` as written, else without trailing punctuation."""
    live = manager.connection(server)
    timeout = manager.settings.tool_timeout_s
    stripped = uri.rstrip(".,;:!?)]}'\"")
    for candidate in dict.fromkeys([uri, stripped]):
        try:
            read = functools.partial(live.read_resource, candidate, timeout)
            return candidate, await manager.run(read)
        except ToolError:
            if candidate == stripped:
                raise
    raise ToolError(f"cannot read {uri}")
