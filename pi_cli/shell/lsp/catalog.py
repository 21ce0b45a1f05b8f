"""The language servers pi finds by itself: what each is called, which files it serves.

Per language, the first candidate found wins (``PATH`` first, then the project's own
``node_modules/.bin`` and virtual environments, which run only in a trusted folder).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    """One way to run a language's server: the executable and its arguments."""

    executable: str
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class KnownLanguage:
    """A language group served by one server per workspace."""

    name: str
    """The server's name in pi (``/lsp``, settings): the language group."""
    extensions: dict[str, str]
    """File extension (with the dot) -> LSP ``languageId``."""
    candidates: tuple[Candidate, ...]
    install: str
    """How to get one, said when none is found."""
    settle_ms: int = 0
    """After a file's diagnostics arrive, how long more may follow (a server publishing
    syntax and semantic errors separately)."""


_TS = {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact",
}
_C = {
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".m": "objective-c",
    ".mm": "objective-cpp",
}

KNOWN: tuple[KnownLanguage, ...] = (
    KnownLanguage(
        "python",
        {".py": "python", ".pyi": "python"},
        (
            Candidate("basedpyright-langserver", ("--stdio",)),
            Candidate("pyright-langserver", ("--stdio",)),
            Candidate("pylsp"),
        ),
        "npm install -g pyright, or pip install basedpyright or python-lsp-server",
    ),
    KnownLanguage(
        "typescript",
        _TS,
        (Candidate("typescript-language-server", ("--stdio",)),),
        "npm install -g typescript-language-server typescript",
        settle_ms=150,
    ),
    KnownLanguage(
        "go", {".go": "go"}, (Candidate("gopls"),), "go install golang.org/x/tools/gopls@latest"
    ),
    KnownLanguage(
        "rust", {".rs": "rust"}, (Candidate("rust-analyzer"),), "rustup component add rust-analyzer"
    ),
    KnownLanguage("c", _C, (Candidate("clangd"),), "apt install clangd (or your system's clangd)"),
    KnownLanguage(
        "lua", {".lua": "lua"}, (Candidate("lua-language-server"),), "install lua-language-server"
    ),
    KnownLanguage(
        "shell",
        {".sh": "shellscript", ".bash": "shellscript"},
        (Candidate("bash-language-server", ("start",)),),
        "npm install -g bash-language-server",
    ),
    KnownLanguage("zig", {".zig": "zig"}, (Candidate("zls"),), "install zls"),
    KnownLanguage(
        "ruby",
        {".rb": "ruby"},
        (Candidate("ruby-lsp"), Candidate("solargraph", ("stdio",))),
        "gem install ruby-lsp",
    ),
)

BY_EXTENSION: dict[str, KnownLanguage] = {ext: known for known in KNOWN for ext in known.extensions}
"""Extension -> the language group pi knows a server for."""
PROJECT_BIN_DIRS = ("node_modules/.bin", ".venv/bin", "venv/bin")
"""Where a project keeps its own servers (used only in a trusted folder: they are its code)."""
