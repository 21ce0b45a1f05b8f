"""The ``lsp`` tool: definitions, references, hover, symbols and call hierarchy from the
running language servers, as ``path:line:col`` lines with the source line, capped.

It joins the tools only while a server is ready (:func:`.setup.at_turn_start`). Positions are
1-based lines and character columns; ``symbol`` names the identifier on the line so the model
need not count columns.
"""

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from msgspec import Meta

from agent_core import AbortSignal, FileEffect, ToolArguments, ToolBase, ToolError, ToolResult
from agent_core.tool import OnToolUpdate
from pi_cli.shell.lsp.documents import read_text
from pi_cli.shell.lsp.jsonrpc import METHOD_NOT_FOUND, LspError
from pi_cli.shell.lsp.manager import LspManager
from pi_cli.shell.lsp.positions import from_column, number, path_of, to_column
from pi_cli.shell.lsp.server import LanguageServer

MAX_RESULTS = 100
MAX_HOVER_CHARS = 4000
MAX_SITES = 10
CONTEXT_CHARS = 200
Operation = Literal[
    "definition",
    "references",
    "hover",
    "document_symbols",
    "workspace_symbols",
    "implementation",
    "type_definition",
    "incoming_calls",
    "outgoing_calls",
]
_METHODS = {
    "definition": ("textDocument/definition", "definitionProvider"),
    "references": ("textDocument/references", "referencesProvider"),
    "hover": ("textDocument/hover", "hoverProvider"),
    "implementation": ("textDocument/implementation", "implementationProvider"),
    "type_definition": ("textDocument/typeDefinition", "typeDefinitionProvider"),
    "incoming_calls": ("textDocument/prepareCallHierarchy", "callHierarchyProvider"),
    "outgoing_calls": ("textDocument/prepareCallHierarchy", "callHierarchyProvider"),
    "document_symbols": ("textDocument/documentSymbol", "documentSymbolProvider"),
    "workspace_symbols": ("workspace/symbol", "workspaceSymbolProvider"),
}
SYMBOL_KINDS = (
    "file module namespace package class method property field constructor enum interface "
    "function variable constant string number boolean array object key null enum-member struct "
    "event operator type-parameter"
).split()


class LspArgs(ToolArguments):
    """Arguments of the lsp tool."""

    operation: Annotated[Operation, Meta(description="What to ask the language server")]
    path: Annotated[
        str | None,
        Meta(description="The file (relative or absolute); not needed for workspace_symbols"),
    ] = None
    line: Annotated[
        Annotated[int, Meta(ge=1)] | None, Meta(description="1-based line of the symbol")
    ] = None
    symbol: Annotated[
        str | None,
        Meta(description="The identifier on that line to ask about (its first occurrence)"),
    ] = None
    column: Annotated[
        Annotated[int, Meta(ge=1)] | None,
        Meta(description="1-based column instead of symbol (characters)"),
    ] = None
    query: Annotated[str | None, Meta(description="workspace_symbols: the name to search")] = None


class LspTool(ToolBase):
    """Code navigation through the running language servers."""

    name = "lsp"
    parameters = LspArgs
    read_only = True  # the permission engine: it reads, never changes a file
    summary = "Code navigation from language servers: definitions, references, types, symbols"
    guideline = (
        "Use lsp (definition, references, hover, symbols, call hierarchy) to navigate code in "
        "languages with a running server instead of grepping for names."
    )

    def __init__(self, manager: LspManager, cwd: Path) -> None:
        self.manager = manager
        self.cwd = cwd
        self.servers = [s.spec.name for s in manager.ready()]
        served = "; ".join(
            f"{s.spec.name} ({', '.join(s.spec.globs[:6])})" for s in manager.ready()
        )
        self.description = (
            "Ask the project's language servers about code. Operations: definition, references, "
            "hover (type and docs), implementation, type_definition, incoming_calls and "
            "outgoing_calls (call hierarchy) take path, line and symbol (the identifier on that "
            "line) or column; document_symbols takes path; workspace_symbols takes query. "
            "Results are path:line:col with the source line. Servers running: " + served
        )

    def title(self, args: Mapping[str, Any]) -> str:
        """``references app.py:12 total``."""
        parts = [str(args.get("operation") or "")]
        if isinstance(args.get("path"), str):
            where = str(args["path"]) + (f":{args['line']}" if args.get("line") else "")
            parts.append(where)
        for key in ("symbol", "query"):
            if isinstance(args.get(key), str):
                parts.append(str(args[key])[:60])
        return " ".join(p for p in parts if p)

    def file_effects(self, args: Mapping[str, Any]) -> list[FileEffect]:
        """Reads ``path``."""
        path = args.get("path") if isinstance(args, Mapping) else None
        return [FileEffect(path, "read")] if isinstance(path, str) and path else []

    async def execute(
        self,
        tool_call_id: str,
        args: LspArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Ask the server, format the answer."""
        if args.operation == "workspace_symbols" and args.path is None:
            return ToolResult.of_text(await self._workspace_symbols(args.query or ""))
        if args.path is None:
            raise ToolError(f"{args.operation} needs path")
        server, path, language = await served(self.manager, self.cwd, args.path)
        method, capability = _METHODS[args.operation]
        if not server.capabilities.get(capability):
            raise ToolError(
                f"the {server.spec.name} language server does not offer {args.operation}"
            )
        doc = server.sync(path, language)
        if doc is None:
            raise ToolError(f"cannot read {args.path}")
        return ToolResult.of_text(await self._answer(server, doc.uri, doc.text, path, args))

    async def _answer(
        self, server: LanguageServer, uri: str, text: str, path: Path, args: LspArgs
    ) -> str:
        method, _ = _METHODS[args.operation]
        document = {"uri": uri}
        if args.operation == "document_symbols":
            return self._symbols(
                await ask(server, method, {"textDocument": document}), server, path
            )
        if args.operation == "workspace_symbols":
            found = await ask(server, method, {"query": args.query or ""})
            return self._symbols(found, server, None)
        if args.line is None:
            raise ToolError(f"{args.operation} needs line (and symbol or column)")
        where = position(text, args.line, args.symbol, args.column, server.encoding)
        params: dict[str, Any] = {"textDocument": document, "position": where}
        if args.operation == "references":
            params["context"] = {"includeDeclaration": True}
        found = await ask(server, method, params)
        if args.operation == "hover":
            return _hover(found)
        if args.operation in ("incoming_calls", "outgoing_calls"):
            return await self._calls(server, found, args.operation)
        return self._locations(found, server, args.operation)

    # ------------------------------------------------------------------ formatting

    def _locations(self, found: Any, server: LanguageServer, operation: str) -> str:
        items = found if isinstance(found, list) else [found] if found else []
        places = [_place(item) for item in items]
        lines = _Lines(self.cwd, server.encoding)
        shown = [lines.location(uri, start) for uri, start in places if uri]
        word = operation.removesuffix("s").replace("_", " ")
        if not shown:
            return f"No {word} found."
        return _capped(sorted(dict.fromkeys(shown)), word)

    def _symbols(self, found: Any, server: LanguageServer, path: Path | None) -> str:
        lines = _Lines(self.cwd, server.encoding)
        out: list[str] = []

        def walk(items: list[Any], depth: int) -> None:
            for item in items:
                if not isinstance(item, dict) or len(out) >= MAX_RESULTS * 2:
                    continue
                kind = _kind(item.get("kind"))
                name = str(item.get("name", "?"))
                if "location" in item:  # SymbolInformation / WorkspaceSymbol
                    uri, start = _place(item["location"])
                    where = lines.location(uri, start, context=False) if uri else ""
                    container = item.get("containerName")
                    inside = f" in {container}" if container else ""
                    out.append(f"{where} {kind} {name}{inside}".strip())
                else:  # DocumentSymbol, nested
                    span = item.get("selectionRange") or item.get("range") or {}
                    uri = path.as_uri() if path else ""
                    where = lines.location(uri, span.get("start") or {}, context=False)
                    detail = f" {item['detail']}" if item.get("detail") else ""
                    out.append(f"{'  ' * depth}{where} {kind} {name}{detail}")
                    walk(item.get("children") or [], depth + 1)

        walk(found if isinstance(found, list) else [], 0)
        return _capped(out, "symbol") if out else "No symbols found."

    async def _workspace_symbols(self, query: str) -> str:
        parts = []
        for server in self.manager.ready():
            if not server.capabilities.get("workspaceSymbolProvider"):
                continue
            try:
                found = await server.request("workspace/symbol", {"query": query})
            except (LspError, TimeoutError) as exc:
                parts.append(f"({server.spec.name}: {exc or 'no answer in time'})")
                continue
            parts.append(self._symbols(found, server, None))
        return "\n".join(parts) or "No running language server searches workspace symbols."

    async def _calls(self, server: LanguageServer, prepared: Any, operation: str) -> str:
        items = [i for i in prepared if isinstance(i, dict)] if isinstance(prepared, list) else []
        if not items:
            return "No call hierarchy item at that position."
        incoming = operation == "incoming_calls"
        method = "callHierarchy/incomingCalls" if incoming else "callHierarchy/outgoingCalls"
        found = await ask(server, method, {"item": items[0]})
        lines = _Lines(self.cwd, server.encoding)
        out = []
        for call in found if isinstance(found, list) else []:
            other = call.get("from" if incoming else "to") if isinstance(call, dict) else None
            if not isinstance(other, dict):
                continue
            uri = str(other.get("uri", ""))
            span = other.get("selectionRange") or other.get("range")
            start = span.get("start") if isinstance(span, dict) else None
            where = lines.location(uri, start if isinstance(start, dict) else {})
            out.append(f"{_kind(other.get('kind'))} {other.get('name', '?')} at {where}")
            # The call sites: in the caller (incoming), in the asked function (outgoing).
            sites = lines.sites(uri if incoming else str(items[0].get("uri", "")), call)
            if sites:
                out.append(f"    {'calls it' if incoming else 'called'} at {sites}")
        word = "caller" if incoming else "callee"
        return _capped(out, word, count=sum(not o.startswith(" ") for o in out))


async def served(manager: LspManager, cwd: Path, raw: str) -> tuple[LanguageServer, Path, str]:
    """The ready server for the file ``raw`` names, its path and languageId (raises ToolError)."""
    from tools import resolve_path

    path = Path(resolve_path(cwd, raw))
    target = manager.target(path)
    if target is None:
        why = manager.table.why_none(path) or "no language server serves this kind of file"
        raise ToolError(f"no language server for {raw}: {why}")
    server, _, language = target
    if not await server.wait_ready(server.startup_timeout_s):
        raise ToolError(
            f"the {server.spec.name} language server is {server.state}"
            + (f": {server.error}" if server.error else "")
        )
    return server, path, language


async def ask(server: LanguageServer, method: str, params: Any) -> Any:
    """A request to ``server``; its error or silence as a ToolError the model reads."""
    try:
        return await server.request(method, params)
    except LspError as exc:
        if exc.code == METHOD_NOT_FOUND:
            raise ToolError(
                f"the {server.spec.name} language server does not offer {method}"
            ) from None
        raise ToolError(f"{server.spec.name} language server: {exc}") from None
    except TimeoutError:
        raise ToolError(
            f"the {server.spec.name} language server did not answer within "
            f"{server.request_timeout_s:g}s (lsp.requestTimeoutS)"
        ) from None


def position(
    text: str, line: int, symbol: str | None, column: int | None, encoding: str
) -> dict[str, int]:
    """The LSP position of ``symbol`` (its first occurrence) or ``column`` on 1-based ``line``
    (neither: the line's first non-blank character); raises ToolError."""
    lines = text.split("\n")
    if line > len(lines):
        raise ToolError(f"line {line} is past the end of the file ({len(lines)} lines)")
    content = lines[line - 1].rstrip("\r")
    if symbol:
        match = re.search(rf"(?<![\w$]){re.escape(symbol)}(?![\w$])", content)
        index = match.start() if match else content.find(symbol)
        if index < 0:
            raise ToolError(f"{symbol!r} is not on line {line}: {content.strip()[:200]}")
    elif column is not None:
        index = column - 1
    else:
        index = len(content) - len(content.lstrip())
    return {"line": line - 1, "character": from_column(content, index, encoding)}


class _Lines:
    """Source lines of result files, read once per call."""

    def __init__(self, cwd: Path, encoding: str) -> None:
        self.cwd = cwd
        self.encoding = encoding
        self.files: dict[str, list[str] | None] = {}

    def location(self, uri: str, start: Mapping[str, Any], context: bool = True) -> str:
        path = path_of(uri)
        if path is None:
            return uri
        lines = self.files.get(uri, [])
        if lines == [] and uri not in self.files:
            read = read_text(path)
            lines = self.files[uri] = read[0].split("\n") if read else None
        line, character = number(start.get("line")), number(start.get("character"))
        text = lines[line].rstrip("\r") if lines and 0 <= line < len(lines) else ""
        try:
            shown = path.relative_to(self.cwd).as_posix()
        except ValueError:
            shown = str(path)
        where = f"{shown}:{line + 1}:{to_column(text, character, self.encoding) + 1}"
        snippet = text.strip()[:CONTEXT_CHARS]
        return f"{where}: {snippet}" if context and snippet else where

    def sites(self, uri: str, call: Mapping[str, Any]) -> str:
        """``main.py:5:12, main.py:5:27``: a call hierarchy call's ``fromRanges`` in ``uri``."""
        ranges = call.get("fromRanges")
        found = []
        for span in ranges[:MAX_SITES] if isinstance(ranges, list) else []:
            start = span.get("start") if isinstance(span, dict) else None
            if isinstance(start, dict):
                found.append(self.location(uri, start, context=False))
        more = len(ranges) - MAX_SITES if isinstance(ranges, list) else 0
        return ", ".join(found) + (f" and {more} more" if more > 0 else "")


def _place(item: Any) -> tuple[str, Mapping[str, Any]]:
    if not isinstance(item, dict):
        return "", {}
    uri = item.get("uri") or item.get("targetUri") or ""
    rng = item.get("targetSelectionRange") or item.get("range") or item.get("targetRange") or {}
    return str(uri), (rng.get("start") or {}) if isinstance(rng, dict) else {}


def _kind(kind: Any) -> str:
    return SYMBOL_KINDS[kind - 1] if isinstance(kind, int) and 0 < kind <= len(SYMBOL_KINDS) else ""


def _hover(found: Any) -> str:
    contents = found.get("contents") if isinstance(found, dict) else None
    parts = contents if isinstance(contents, list) else [contents]
    texts = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("value"), str):
            texts.append(part["value"])
    text = "\n".join(t.strip() for t in texts if t and t.strip())
    if not text:
        return "No hover information at that position."
    return text if len(text) <= MAX_HOVER_CHARS else text[: MAX_HOVER_CHARS - 1] + "…"


def _capped(lines: list[str], word: str, count: int | None = None) -> str:
    if not lines:
        return f"No {word}s found."
    total = len(lines) if count is None else count
    head = f"{total} {word}{'' if total == 1 else 's'}:"
    if len(lines) > MAX_RESULTS:
        hidden = len(lines) - MAX_RESULTS
        return "\n".join([head, *lines[:MAX_RESULTS], f"… and {hidden} more (capped)"])
    return "\n".join([head, *lines])
