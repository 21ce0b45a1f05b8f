"""``pi lsp``: the servers a folder would use, found where, and why one is missing (nothing
starts); a hostile server name in the settings prints inert."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunPi, openai_args
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn


def test_pi_lsp_lists_found_configured_and_missing_servers(
    run_pi: RunPi, project: Path, pi_home: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gopls = bin_dir / "gopls"
    gopls.write_text("#!/bin/sh\nexit 0\n")
    gopls.chmod(0o755)
    servers = {"evil\x1b]52;c;ZXZpbA==\x07": {"command": "x", "extensionToLanguage": {".e": "e"}}}
    (pi_home / "settings.json").write_text(json.dumps({"lsp": {"servers": servers}}))
    done = run_pi("lsp", env={"PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"go: available for *.go\n  {gopls}  [found on PATH]" in out
    assert "rust: missing for *.rs: rust-analyzer not found on PATH" in out
    assert "\x1b" not in out and "\x07" not in out and "evil" in out
    assert "not trusted" in out  # the project's own servers and settings are not used
    assert run_pi("lsp", "list", env={"PATH": f"{bin_dir}:/usr/bin:/bin"}).stdout == out
    (pi_home / "settings.json").write_text(json.dumps({"lsp": {"enabled": False}}))
    off = run_pi("lsp")
    assert off.stdout == "Language servers are off (lsp.enabled is false).\n"


def test_json_mode_carries_the_servers_states_and_an_edits_diagnostics(
    server: FakeProviderServer, run_pi: RunPi, project: Path, pi_home: Path
) -> None:
    """``pi --mode json``: an edit breaking a file served by a configured server prints the
    ``lsp_diagnostics`` event (camelCase, before the call's end) and the result names it."""
    from tests.shell.lsp.conftest import fake

    (project / "a.fk").write_text("x = 1\n")
    settings = {"lsp": {"servers": {"fake": fake()}}}
    (pi_home / "settings.json").write_text(json.dumps(settings))
    assert run_pi("trust").returncode == 0  # a server outside a sandbox runs in a trusted folder
    edit = {"path": "a.fk", "edits": [{"old_text": "x = 1", "new_text": "x = BAD oops"}]}
    server.add(Turn(tool_calls=[ToolCallSpec("edit", edit)]), Turn(text="broken"))
    done = run_pi(*openai_args(server), "--mode", "json", "-p", "break it")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    kinds = [e["type"] for e in events]
    report = events[kinds.index("lsp_diagnostics")]
    assert kinds.index("lsp_diagnostics") < kinds.index("tool_execution_end")
    (file,) = report["files"]
    assert (file["path"], file["server"], file["newErrors"], file["baseline"]) == (
        "a.fk", "fake", 1, False
    )  # fmt: skip
    assert file["new"][0]["message"] == "bad thing oops" and file["new"][0]["context"]
    states = [s["state"] for e in events if e["type"] == "lsp_status" for s in e["servers"]]
    assert states[:2] == ["starting", "ready"]
    end = events[kinds.index("tool_execution_end")]
    assert "a.fk:1:5: error: bad thing oops [F1]" in json.dumps(end)
