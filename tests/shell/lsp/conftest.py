"""Helpers for the language-server tests: shells over a project, the fake server, real servers
installed by .ci/run (npm's pyright, typescript-language-server and typescript; Debian's clangd)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_core import ToolExecutionEnd
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import Recorder, ScriptedStream

FAKE = str(Path(__file__).with_name("fake_server.py"))
CACHE = Path(os.environ.get("PI_TEST_CACHE", Path.home() / ".cache" / "pi-test"))
LSP_BIN = CACHE / "lsp" / "node_modules" / ".bin"


def fake(mode: str = "ok", **extra: Any) -> dict[str, Any]:
    """A configured server entry running the fake server in ``mode`` for ``*.fk`` files."""
    return {
        "command": sys.executable,
        "args": [FAKE, mode],
        "extensionToLanguage": {".fk": "fake"},
        **extra,
    }


def lsp_shell(
    work: Path,
    stream: ScriptedStream,
    lsp: dict[str, Any] | None = None,
    **options: Any,
) -> CodingAgent:
    """A shell in ``work`` (interactive: reads start servers) with ``lsp`` settings."""
    settings = Settings.model_validate(
        {"lsp": {"startOnRead": True, **(lsp or {})}, "permissions": {"defaultMode": "auto"}}
    )
    options.setdefault("approvals", "none")
    options.setdefault("persist_session", False)
    return CodingAgent(ShellOptions(cwd=work, stream_fn=stream, settings=settings, **options))


def results(recorder: Recorder) -> dict[str, ToolExecutionEnd]:
    """Tool results by call id."""
    return {e.tool_call_id: e for e in recorder.events if isinstance(e, ToolExecutionEnd)}


def real_server(name: str) -> str:
    """The directory holding a real server installed by .ci/run (skips when absent)."""
    if name == "clangd":
        found = shutil.which("clangd")
        if found is None:
            pytest.skip("clangd is not installed (.ci/run installs Debian's clangd)")
        return str(Path(found).parent)
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the npm language servers need it")
    if not (LSP_BIN / name).exists():
        pytest.skip(f"{name} is not installed in {LSP_BIN} (.ci/run installs it)")
    return str(LSP_BIN)
