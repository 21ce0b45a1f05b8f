"""The command line: one option table behind typer and the fast parser, subcommands, exit codes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pi_cli import cli
from pi_cli.args import OPTIONS, ExitCode, LaunchArgs, parse_fast
from pi_cli.subcommands import SUBCOMMANDS, Subcommand, find_subcommand

CASES = [
    [],
    ["hello", "world"],
    ["-p", "explain", "this"],
    ["--print", "--mode", "json", "q"],
    ["--mode=rpc"],
    ["-m", "openai/gpt-4o", "--api-base", "http://127.0.0.1:1/v1", "--api-key", "k", "x"],
    ["--model=anthropic/claude-sonnet-4-5", "--thinking", "high", "q"],
    ["--tools", "read, bash,grep", "q"],
    ["--no-tools", "--no-session", "-c", "again"],
    ["--session", "abc123", "--continue"],
    ["--skill", "a", "--skill=b", "q"],
    ["--system-prompt", "be brief", "--append-system-prompt", "and kind", "q"],
    ["--theme", "light", "--plain"],
    ["--list-models", "gpt"],
    ["--", "-p", "is", "a", "prompt", "here"],
    ["rewind", "the", "last", "change"],
]


def _typer_args(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> LaunchArgs:
    """What the typer application hands to ``launch`` for ``argv``."""
    import pi_cli.launch
    from pi_cli.cli_app import app

    seen: list[LaunchArgs] = []
    monkeypatch.setattr(pi_cli.launch, "launch", lambda args: seen.append(args) or 0)
    with pytest.raises(SystemExit) as exit_info:
        app(args=argv, prog_name="pi", standalone_mode=True)
    assert exit_info.value.code == 0, argv
    (args,) = seen
    return args


@pytest.mark.parametrize("argv", CASES, ids=lambda argv: " ".join(argv) or "(none)")
def test_the_fast_parser_and_typer_agree(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fast = parse_fast(argv)
    assert fast is not None
    slow = _typer_args(argv, monkeypatch)
    assert dataclasses.asdict(fast) == dataclasses.asdict(slow)


def test_values_land_in_the_shell_options() -> None:
    args = parse_fast(["--no-session", "--tools", "read,ls", "-m", "x/y", "--skill", "s", "hi"])
    assert args is not None
    assert args.shell.persist_session is False and args.shell.tools == ["read", "ls"]
    assert args.shell.model == "x/y" and args.shell.skill_paths == ["s"] and args.prompt == "hi"


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["-h"], ["--bogus"], ["--mode", "yaml"], ["--model"], ["-pc"], ["--plain=1"]],
)
def test_anything_unusual_is_left_to_typer(argv: list[str]) -> None:
    assert parse_fast(argv) is None


def test_every_option_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"]) == ExitCode.OK
    out = capsys.readouterr().out
    for option in OPTIONS:
        assert option.flags[0] in out, option


def test_a_bad_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--mode", "yaml", "q"]) == ExitCode.USAGE
    assert "yaml" in capsys.readouterr().err


def test_subcommands_need_the_exact_first_word_and_valid_arguments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[list[str]] = []

    def run(argv: list[str]) -> int:
        calls.append(argv)
        return 7

    fake = Subcommand("rewind", lambda rest: rest in ([], ["--last"]), run)
    monkeypatch.setitem(SUBCOMMANDS, "rewind", fake)
    assert find_subcommand(["rewind"]) is fake
    assert find_subcommand(["rewind", "--last"]) is fake
    assert find_subcommand(["rewind", "the", "last", "change"]) is None  # a prompt
    assert find_subcommand(["-p", "rewind"]) is None
    assert find_subcommand(["--", "rewind"]) is None
    assert find_subcommand(["Rewind"]) is None
    assert cli.main(["rewind", "--last"]) == 7 and calls == [["--last"]]
    parsed = parse_fast(["rewind", "the", "last", "change"])
    assert parsed is not None and parsed.prompt == "rewind the last change"


def test_exit_codes_are_one_table_documented_in_the_usage_page() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "usage.md").read_text()
    codes = {code.value for code in ExitCode}
    assert len(codes) == len(ExitCode)  # one code per outcome
    for code in ExitCode:
        assert f"| {code.value} |" in page, code


def test_cwd_is_the_shell_options_cwd(tmp_path: Path) -> None:
    args = parse_fast(["q"], cwd=tmp_path)
    assert args is not None and args.cwd == tmp_path == args.shell.cwd
