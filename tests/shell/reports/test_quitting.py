"""``quit_report``: what quitting stops, in one line (kept shells and a server's run named as
such, long commands and many shells shortened)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from pi_cli.shell import FrontShell, quit_report


@dataclass
class _Info:
    id: str
    command: str
    state: str = "running"


@dataclass
class _Shells:
    items: list[_Info] = field(default_factory=list)

    def infos(self) -> list[_Info]:
        return self.items


@dataclass
class _Sandbox:
    shells: _Shells
    keep_background: bool = False


@dataclass
class _AgentTools:
    running_agents: int = 0


@dataclass
class _Shell:
    state: str = "idle"
    remote: bool = False
    shells: list[_Info] = field(default_factory=list)
    keep: bool = False
    agents: int = 0

    @property
    def agent_tools(self) -> _AgentTools:
        return _AgentTools(self.agents)

    @property
    def busy(self) -> bool:
        return self.state != "idle"

    @property
    def sandbox(self) -> _Sandbox:
        return _Sandbox(_Shells(self.shells), self.keep)


def report(**kwargs: Any) -> str | None:
    return quit_report(cast("FrontShell", _Shell(**kwargs)))


def test_nothing_live_says_nothing() -> None:
    assert report() is None
    assert report(shells=[_Info("bash_1", "make", state="exited")]) is None
    assert quit_report(None) is None


def test_a_live_run_and_shells_are_named() -> None:
    line = report(state="running", shells=[_Info("bash_1", "npm run dev")])
    assert (
        line
        == "Stopped on quit: the run in progress (aborted); 1 background shell: bash_1 (npm run dev)"
    )
    assert report(state="compacting") == "Stopped on quit: the compaction in progress"


def test_many_shells_and_long_commands_are_shortened() -> None:
    shells = [_Info(f"bash_{n}", f"sleep {n}") for n in range(1, 6)]
    shells[0].command = "python -m http.server 8000 --bind 127.0.0.1\n  --directory /very/long/path"
    line = report(shells=shells) or ""
    assert line.startswith("Stopped on quit: 5 background shells: bash_1 (python -m http.server")
    assert "…)" in line and "\n" not in line
    assert line.endswith("bash_3 (sleep 3) and 2 more")


def test_kept_shells_are_said_to_be_left_running() -> None:
    line = report(state="running", shells=[_Info("bash_1", "tail -f log")], keep=True)
    assert line == (
        "Stopped on quit: the run in progress (aborted)\n"
        "Left running (--keep-bashes): 1 background shell: bash_1 (tail -f log)"
    )


def test_a_client_of_a_server_stops_nothing() -> None:
    assert report(state="running", remote=True, shells=[_Info("bash_1", "x")]) is None


def test_background_sub_agents_are_counted() -> None:
    line = report(state="running", agents=2, shells=[_Info("bash_1", "make")])
    assert line == (
        "Stopped on quit: the run in progress (aborted); 2 background sub-agents (/agents); "
        "1 background shell: bash_1 (make)"
    )
