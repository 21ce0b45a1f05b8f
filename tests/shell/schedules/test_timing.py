"""Intervals, cron expressions (UTC) and one-shot times, including hostile ones; /loop's
argument parsing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from pi_cli.shell.schedules._commands import _Usage, parse_loop
from pi_cli.shell.schedules._state import Schedule
from pi_cli.shell.schedules._timing import (
    Cron,
    TimingError,
    format_interval,
    parse_at,
    parse_interval,
)


def at(*parts: int) -> float:
    return datetime(*parts, tzinfo=UTC).timestamp()  # type: ignore[misc]


def moment(epoch: float | None) -> str:
    assert epoch is not None
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M %a")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("1s", 1), ("90s", 90), ("5m", 300), ("1h30m", 5400), ("2d", 172800), ("10M", 600)],
)
def test_intervals(text: str, seconds: int) -> None:
    assert parse_interval(text) == seconds
    assert parse_interval(format_interval(seconds)) == seconds


@pytest.mark.parametrize(
    "text", ["0s", "-5m", "5", "5min", "1.5h", "", "m", "367d", "9" * 40 + "s"]
)
def test_bad_intervals_are_refused(text: str) -> None:
    with pytest.raises(TimingError):
        parse_interval(text)


def test_cron_next_firings_in_utc() -> None:
    start = at(2026, 12, 2, 8, 21)
    assert moment(Cron.parse("*/5 * * * *").next_after(start)) == "2026-12-02 08:25 Wed"
    weekdays = Cron.parse("0 9 * * mon-fri")
    assert moment(weekdays.next_after(at(2026, 12, 4, 9, 0))) == "2026-12-07 09:00 Mon"
    assert moment(Cron.parse("@monthly").next_after(start)) == "2027-01-01 00:00 Fri"
    assert moment(Cron.parse("0 0 29 2 *").next_after(start)) == "2028-02-29 00:00 Tue"
    # both day fields restricted: either one matches (Vixie cron)
    either = Cron.parse("0 12 1 * 0")
    assert moment(either.next_after(start)) == "2026-12-06 12:00 Sun"
    assert Cron.parse("0 0 * * 7").weekdays == frozenset({0})  # 7 is Sunday too
    # DST does not exist in UTC: 02:30 fires once every day, both in March and in October
    nightly = Cron.parse("30 2 * * *")
    assert moment(nightly.next_after(at(2026, 3, 29, 2, 0))) == "2026-03-29 02:30 Sun"
    assert moment(nightly.next_after(at(2026, 10, 25, 2, 30))) == "2026-10-26 02:30 Mon"


@pytest.mark.parametrize(
    ("expression", "problem"),
    [
        ("0 0 30 2 *", "never fires"),  # Feb 30
        ("0 0 31 4,6,9,11 *", "never fires"),
        ("* * * *", "needs 5 fields"),
        ("60 * * * *", "outside 0-59"),
        ("*/0 * * * *", "bad step"),
        ("5-1 * * * *", "runs backwards"),
        ("x * * * *", "not a number"),
        ("* * * * * *", "needs 5 fields"),
    ],
)
def test_bad_cron_expressions_are_refused(expression: str, problem: str) -> None:
    with pytest.raises(TimingError, match=problem):
        Cron.parse(expression)


def test_one_shot_times() -> None:
    now = at(2026, 12, 2, 8, 21)
    assert parse_at("+20m", now) == now + 1200
    assert parse_at("in 1h", now) == now + 3600
    assert moment(parse_at("14:30", now)) == "2026-12-02 14:30 Wed"
    assert moment(parse_at("08:00", now)) == "2026-12-03 08:00 Thu"  # passed today: tomorrow
    assert moment(parse_at("2026-12-03T09:00+01:00", now)) == "2026-12-03 08:00 Thu"
    for bad in ("25:00", "yesterday", "2020-01-01T00:00", "+0s", "+-5m"):
        with pytest.raises(TimingError):
            parse_at(bad, now)


def test_missed_firings_are_counted_within_the_bounds() -> None:
    loop = Schedule.new("p", "interval", 0.0, every_s=60)
    assert loop.missed(59) == 0 and loop.missed(60) == 1 and loop.missed(3600) == 60
    assert Schedule.new("p", "interval", 0.0, every_s=60, max_firings=5).missed(3600) == 5
    assert Schedule.new("p", "interval", 0.0, every_s=60, until=150.0).missed(3600) == 2
    assert Schedule.new("p", "interval", 0.0, every_s=1).missed(10**9) == 10_000  # counted to
    once = Schedule.new("p", "once", 0.0, at=100.0, recurring=False)
    assert once.missed(99) == 0 and once.missed(101) == 1
    cron = Schedule.new("p", "cron", at(2026, 12, 2, 8, 21), cron="0 * * * *")
    assert cron.missed(at(2026, 12, 2, 11, 30)) == 3


def test_loop_arguments() -> None:
    now = at(2026, 12, 2, 8, 21)
    assert parse_loop("5m check the deploy", now) == {
        "every_s": 300, "prompt": "check the deploy", "fire_now": True,
    }  # fmt: skip
    assert parse_loop("check the deploy", now)["every_s"] == 600  # Claude Code's default
    assert parse_loop("check the deploy every 20 minutes", now)["every_s"] == 1200
    assert parse_loop("check every PR", now)["prompt"] == "check every PR"
    assert parse_loop("30s /review", now)["prompt"] == "/review"
    spec = parse_loop('--for 2h --max 10 cron "*/5 * * * *" poll', now)
    assert spec == {"for_s": 7200, "max_firings": 10, "cron": "*/5 * * * *", "prompt": "poll"}
    assert parse_loop("cron 0 9 * * 1-5 standup", now)["cron"] == "0 9 * * 1-5"
    assert parse_loop("cron @daily standup", now)["cron"] == "@daily"
    assert parse_loop("at 14:30 remind me", now)["at"] == at(2026, 12, 2, 14, 30)
    assert parse_loop("at in 20m remind me", now)["at"] == now + 1200
    for bad in ("0s x", "-5m x", "5m", "--max two 5m x", "cron * * * x", "at 14:30"):
        with pytest.raises((_Usage, TimingError)):
            parse_loop(bad, now)
