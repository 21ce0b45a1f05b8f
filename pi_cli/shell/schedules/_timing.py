"""When a schedule fires: intervals (``5m``, ``1h30m``), 5-field cron expressions and one-shot
times, all in UTC.

Cron expressions are read in UTC, not in the local time zone: a ``30 2 * * *`` schedule neither
skips nor doubles on the nights daylight saving time changes, and a session fires at the same
instants on any machine (the docs say so; times are shown with ``UTC``). The parser follows
Vixie cron: ``*``, ``a``, ``a-b``, ``*/n``, ``a-b/n``, ``a/n``, lists, month and weekday names,
``0`` or ``7`` for Sunday, the ``@hourly``... macros, and "day of month OR day of week" when
both are restricted. An expression that matches no real date (``0 0 30 2 *``) is refused.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MIN_INTERVAL_S = 1
MAX_INTERVAL_S = 366 * 86400
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_INTERVAL = re.compile(r"(?:\d{1,9}[smhd])+")
_PART = re.compile(r"(\d{1,9})([smhd])")
_MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
_SEARCH_YEARS = 9  # Feb 29 on a given weekday repeats within this; longer means never


class TimingError(ValueError):
    """A bad interval, cron expression or time (the message is for the user)."""


def parse_interval(text: str) -> int:
    """``90s``, ``5m``, ``1h30m``, ``2d`` -> seconds (raises :class:`TimingError`)."""
    word = text.strip().lower()
    if not _INTERVAL.fullmatch(word):
        raise TimingError(
            f"{text!r} is not an interval: use a number and a unit s, m, h or d (5m, 1h30m)"
        )
    seconds = sum(int(n) * _UNITS[u] for n, u in _PART.findall(word))
    if seconds < MIN_INTERVAL_S:
        raise TimingError(f"{text!r} is too short: an interval is at least {MIN_INTERVAL_S}s")
    if seconds > MAX_INTERVAL_S:
        raise TimingError(f"{text!r} is too long: an interval is at most 366d")
    return seconds


def is_interval(text: str) -> bool:
    """``text`` has an interval's shape (it may still be out of range)."""
    return bool(_INTERVAL.fullmatch(text.strip().lower()))


def format_interval(seconds: int) -> str:
    """``5400`` -> ``1h30m``."""
    out = ""
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if seconds >= size:
            out += f"{seconds // size}{unit}"
            seconds %= size
    return out or "0s"


def format_time(epoch: float) -> str:
    """``2026-12-02 14:30 UTC`` (seconds shown when they are not zero)."""
    moment = datetime.fromtimestamp(epoch, UTC)
    shape = "%Y-%m-%d %H:%M:%S UTC" if moment.second else "%Y-%m-%d %H:%M UTC"
    return moment.strftime(shape)


def iso(epoch: float | None) -> str | None:
    """The wire form of a time: ISO 8601 in UTC (``None`` stays ``None``)."""
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).isoformat().replace("+00:00", "Z")


def parse_at(text: str, now: float) -> float:
    """A one-shot time: ``14:30`` (the next such time, UTC), ``2026-12-03T09:00`` (UTC unless
    it names an offset), ``+20m`` / ``in 20m``; raises :class:`TimingError`."""
    word = text.strip()
    relative = re.fullmatch(r"(?:\+|in\s+)(\S+)", word, re.IGNORECASE)
    if relative:
        return now + parse_interval(relative.group(1))
    clock = re.fullmatch(r"(\d{1,2}):(\d{2})", word)
    if clock:
        hour, minute = int(clock.group(1)), int(clock.group(2))
        if hour > 23 or minute > 59:
            raise TimingError(f"{text!r} is not a time of day")
        today = datetime.fromtimestamp(now, UTC).replace(
            hour=hour, minute=minute, second=0, microsecond=0
        )
        moment = today if today.timestamp() > now else today + timedelta(days=1)
        return moment.timestamp()
    try:
        moment = datetime.fromisoformat(word.replace("Z", "+00:00"))
    except ValueError:
        raise TimingError(
            f"{text!r} is not a time: use HH:MM (UTC), 2026-12-03T09:00 or +20m"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if moment.timestamp() <= now:
        raise TimingError(f"{format_time(moment.timestamp())} is in the past")
    return moment.timestamp()


def _field(text: str, low: int, high: int, names: list[str] | None) -> frozenset[int]:
    values: set[int] = set()
    for part in text.lower().split(","):
        body, _, step_text = part.partition("/")
        step = 1
        if step_text:
            if not step_text.isdigit() or int(step_text) == 0:
                raise TimingError(f"bad step in {part!r}")
            step = int(step_text)
        if body == "*":
            first, last = low, high
        else:
            first_text, dash, last_text = body.partition("-")
            first = _value(first_text, low, high, names)
            last = _value(last_text, low, high, names) if dash else (high if step_text else first)
            if last < first:
                raise TimingError(f"the range {body!r} runs backwards")
        values.update(range(first, last + 1, step))
    return frozenset(values)


def _value(text: str, low: int, high: int, names: list[str] | None) -> int:
    if names and text in names:
        return names.index(text) + (1 if names is _MONTHS else 0)
    if not text.isdigit():
        raise TimingError(f"{text!r} is not a number")
    value = int(text)
    if not low <= value <= high:
        raise TimingError(f"{value} is outside {low}-{high}")
    return value


@dataclass(frozen=True)
class Cron:
    """A parsed 5-field cron expression (minute hour day-of-month month day-of-week), UTC."""

    expression: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday
    any_day: bool  # day of month is ``*``
    any_weekday: bool

    @classmethod
    def parse(cls, expression: str) -> Cron:
        """Parse and check that it ever fires (raises :class:`TimingError`)."""
        text = " ".join(expression.split())
        fields = _MACROS.get(text.lower(), text).split(" ")
        if len(fields) != 5:
            raise TimingError(
                f"{expression!r} is not a cron expression: it needs 5 fields "
                "(minute hour day-of-month month day-of-week), e.g. '*/5 * * * *'"
            )
        try:
            weekdays = _field(fields[4], 0, 7, _DAYS)
            cron = cls(
                expression=text,
                minutes=_field(fields[0], 0, 59, None),
                hours=_field(fields[1], 0, 23, None),
                days=_field(fields[2], 1, 31, None),
                months=_field(fields[3], 1, 12, _MONTHS),
                weekdays=frozenset(d % 7 for d in weekdays),
                any_day=fields[2].startswith("*"),
                any_weekday=fields[4].startswith("*"),
            )
        except TimingError as exc:
            raise TimingError(f"{expression!r}: {exc}") from None
        if cron.next_after(datetime(2000, 1, 1, tzinfo=UTC).timestamp()) is None:
            raise TimingError(f"{expression!r} never fires: it matches no real date")
        return cron

    def _day_matches(self, moment: datetime) -> bool:
        in_month = moment.day in self.days
        in_week = (moment.isoweekday() % 7) in self.weekdays
        if self.any_day or self.any_weekday:
            return in_month and in_week
        return in_month or in_week  # both restricted: either one (as cron does)

    def next_after(self, epoch: float) -> float | None:
        """The first matching minute strictly after ``epoch`` (``None``: none in 9 years)."""
        moment = datetime.fromtimestamp(epoch, UTC).replace(second=0, microsecond=0)
        moment += timedelta(minutes=1)
        limit = moment.year + _SEARCH_YEARS
        while moment.year <= limit:
            if moment.month not in self.months:
                year, month = moment.year + moment.month // 12, moment.month % 12 + 1
                moment = moment.replace(year=year, month=month, day=1, hour=0, minute=0)
                continue
            if not self._day_matches(moment):
                moment = (moment + timedelta(days=1)).replace(hour=0, minute=0)
                continue
            if moment.hour not in self.hours:
                moment = (moment + timedelta(hours=1)).replace(minute=0)
                continue
            if moment.minute not in self.minutes:
                moment += timedelta(minutes=1)
                continue
            return moment.timestamp()
        return None

    def describe(self) -> str:
        """``every 5 minutes`` for the common shapes, else ``cron '0 9 * * 1-5' (UTC)``."""
        text = self.expression
        step = re.fullmatch(r"\*/(\d+) \* \* \* \*", text)
        if step:
            return f"every {step.group(1)} minutes (UTC)"
        if text == "* * * * *":
            return "every minute"
        return f"cron '{text}' (UTC)"


@functools.lru_cache(maxsize=64)
def cron_of(expression: str) -> Cron:
    """:meth:`Cron.parse`, remembered (a schedule's expression is read at every firing)."""
    return Cron.parse(expression)
