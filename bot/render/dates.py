"""Dates, seasons and durations as each language writes them (Babel's CLDR data), never in
ISO form: "December 31, 2026", "4e trimestre 2026", "90 secondi", "31 दिसंबर 2026"."""

from __future__ import annotations

import re
from datetime import date, timedelta

from babel.dates import format_date, format_skeleton, format_timedelta

from bot.i18n import Translations

from .numbers import locale_of

SEASON_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
SEASON_QUARTER = re.compile(r"^(\d{4})-Q([1-4])$")
SEASON_DATES = re.compile(r"^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$")


def day(when: date, tr: Translations) -> str:
    """A day in prose: "December 31, 2026", "31 décembre 2026", "1er novembre 2026", "1º
    novembre 2026", "31 दिसंबर 2026" (the first of a month as each language writes it)."""
    text = format_date(when, "long", locale=locale_of(tr))
    return _first_of_month(text, when, tr)


def _first_of_month(text: str, when: date, tr: Translations) -> str:
    if when.day != 1:
        return text
    first = tr.pgettext("the first day of a month, in a date", "1")
    return re.sub(r"(?<!\d)1(?!\d)", first, text, count=1)


def days(first: date, last: date, tr: Translations) -> str:
    """A span of days: "November 1 – December 31, 2026", "1er novembre – 31 décembre 2026"
    (the year once when both days share it)."""
    locale = locale_of(tr)
    if first.year == last.year:
        start = _first_of_month(format_skeleton("MMMMd", first, locale=locale), first, tr)
    else:
        start = day(first, tr)
    return f"{start} – {day(last, tr)}"


def season_name(key: str, tr: Translations) -> str:
    """A season by its key ("2026-12", "2026-Q4", "2026-11-01..2026-12-31") as a player names
    it: "December 2026", "4e trimestre 2026", "1º novembre – 31 dicembre 2026"."""
    locale = locale_of(tr)
    if match := SEASON_MONTH.match(key):
        return format_skeleton("yMMMM", date(int(match[1]), int(match[2]), 1), locale=locale)
    if match := SEASON_QUARTER.match(key):
        month = 3 * int(match[2]) - 2
        return format_skeleton("yQQQQ", date(int(match[1]), month, 1), locale=locale)
    if match := SEASON_DATES.match(key):
        return days(date.fromisoformat(match[1]), date.fromisoformat(match[2]), tr)
    return key


def seconds(count: int, tr: Translations) -> str:
    """A duration in seconds, in words: "90 seconds", "90 secondes", "90 सेकंड"."""
    return format_timedelta(
        timedelta(seconds=count),
        threshold=float("inf"),
        granularity="second",
        format="long",
        locale=locale_of(tr),
    )
