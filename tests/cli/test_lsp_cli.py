"""``pi lsp``: the servers a folder would use, found where, and why one is missing (nothing
starts); a hostile server name in the settings prints inert."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunPi


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
