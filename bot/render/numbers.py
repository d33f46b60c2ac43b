"""Numbers as each language writes them (Babel's CLDR data): "23.4" and "50,360" in English,
"23,4" and "50 360" in French, "23,4" and "50.360" in Italian. Digits stay Western in every
language the bot speaks (they are read as bids and counts; CLDR's default for Hindi is the
same)."""

from __future__ import annotations

from functools import cache

from babel.numbers import format_decimal, format_percent

from bot.i18n import SOURCE, Translations


@cache
def _locale(tr: Translations) -> str:
    # A compiled catalogue names its language in its header; English translates nothing.
    return str(tr.info().get("language") or SOURCE)


def whole(value: int, tr: Translations) -> str:
    """An integer with the language's grouping: 50,360 / 50 360 / 50.360."""
    return format_decimal(value, format="#,##0", locale=_locale(tr))


def tenths(value: float, tr: Translations) -> str:
    """One decimal place: 23.4 / 23,4."""
    return format_decimal(value, format="#,##0.0", locale=_locale(tr))


def percent(rate: float, tr: Translations) -> str:
    """A rate as a whole percentage: 42% / 42 %."""
    return format_percent(rate, locale=_locale(tr))


def short(value: float, tr: Translations) -> str:
    """A number with the decimals it needs, at most two: 1 / 1.5 / 1,5."""
    return format_decimal(value, format="#,##0.##", locale=_locale(tr))


def signed(value: float, tr: Translations) -> str:
    """A difference with its sign always written, one decimal place: +1.5 / −1,5 / 0 (a true
    minus sign)."""
    if round(value, 1) == 0:
        return "0"
    return format_decimal(value, format="+#,##0.0;−#,##0.0", locale=_locale(tr))
