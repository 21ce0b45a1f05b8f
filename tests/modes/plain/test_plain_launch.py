"""How the plain REPL is selected and how it fails without a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.args import ExitCode, LaunchArgs
from pi_cli.launch import _settings_ui
from pi_cli.modes.plain.repl import run_plain
from pi_cli.shell.options import ShellOptions


def test_ui_setting_selects_plain(tmp_path: Path) -> None:
    (tmp_path / ".pi").mkdir()
    assert _settings_ui(LaunchArgs(shell=ShellOptions(cwd=tmp_path))) == "tui"
    (tmp_path / ".pi" / "settings.json").write_text(json.dumps({"ui": "plain"}))
    assert _settings_ui(LaunchArgs(shell=ShellOptions(cwd=tmp_path))) == "plain"
    (tmp_path / ".pi" / "settings.json").write_text("{broken")
    assert (
        _settings_ui(LaunchArgs(shell=ShellOptions(cwd=tmp_path))) == "tui"
    )  # reported later by the shell


def test_no_model_exits_with_the_configuration_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("agent_core.providers", reason="providers not built yet")
    assert run_plain(LaunchArgs(shell=ShellOptions(cwd=tmp_path), plain=True)) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert "No model configured" in err and "ollama" in err


def test_a_dumb_terminal_uses_its_real_width(monkeypatch) -> None:
    import os

    from pi_cli.modes.plain.repl import dumb_terminal_width

    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.setattr(
        "shutil.get_terminal_size", lambda fallback=(80, 24): os.terminal_size((100, 30))
    )
    assert dumb_terminal_width() == 100
    monkeypatch.setenv("TERM", "xterm-256color")
    assert dumb_terminal_width() is None
