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


def test_a_dumb_terminal_wraps_at_its_real_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """rich assumes 80 columns on TERM=dumb; the REPL's console asks the terminal, at each print."""
    import io
    import os

    from pi_cli.modes.plain.terminal import LiveWidthConsole

    size = [os.terminal_size((100, 30))]
    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback=(80, 25): size[0])
    out = io.StringIO()
    console = LiveWidthConsole(file=out, force_terminal=True, color_system=None)
    line = " ".join(["word"] * 19)  # 94 characters
    console.print(line)
    assert out.getvalue() == line + "\n"  # one line, not wrapped at 80
    size[0] = os.terminal_size((60, 30))  # the terminal was resized
    console.print(line)
    assert max(len(row) for row in out.getvalue().splitlines()[1:]) <= 60
    monkeypatch.setenv("TERM", "xterm-256color")
    assert LiveWidthConsole(file=io.StringIO(), width=70).width == 70
