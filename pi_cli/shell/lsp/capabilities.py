"""What pi tells a server it can do, and the server requests it answers with ``null``."""

from __future__ import annotations

from typing import Any

ANSWERED_WITH_NULL = frozenset(
    {
        "window/workDoneProgress/create",
        "client/registerCapability",
        "client/unregisterCapability",
        "window/showMessageRequest",
        "workspace/semanticTokens/refresh",
        "workspace/inlayHint/refresh",
        "workspace/inlineValue/refresh",
        "workspace/codeLens/refresh",
        "workspace/diagnostic/refresh",
        "workspace/foldingRange/refresh",
    }
)

CLIENT_CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-8", "utf-16"]},
    "offsetEncoding": ["utf-8", "utf-16"],  # clangd before LSP 3.17
    "window": {"workDoneProgress": True},
    "workspace": {
        "configuration": True,
        "workspaceFolders": True,
        "didChangeConfiguration": {"dynamicRegistration": True},
        "didChangeWatchedFiles": {"dynamicRegistration": True},
        "symbol": {"dynamicRegistration": False},
        # The rename tool applies text edits only (no file creation, renaming or deletion).
        "workspaceEdit": {"documentChanges": True, "resourceOperations": []},
    },
    "textDocument": {
        "synchronization": {"didSave": True, "dynamicRegistration": False},
        "publishDiagnostics": {"versionSupport": True, "relatedInformation": False},
        "definition": {"linkSupport": True},
        "declaration": {"linkSupport": True},
        "typeDefinition": {"linkSupport": True},
        "implementation": {"linkSupport": True},
        "references": {},
        "hover": {"contentFormat": ["plaintext", "markdown"]},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "callHierarchy": {},
        "rename": {"prepareSupport": True},
    },
}
