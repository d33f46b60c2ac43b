"""Numbers as each language writes them (Babel's CLDR data): "23.4" and
"50,360" in English, "23,4" and "50 360" in French, "23,4" and "50.360" in Italian. Digits
stay Western in every language the bot speaks (they are read as bids and counts; CLDR's
default for Hindi is the same).

A negative number is written with a true minus sign (U+2212, "−10"), everywhere a player
reads one: CLDR's minus for these languages is the ASCII hyphen, which beside the review's
"−" and the rules' "miss −10" reads as a dash. Every number a player reads that may be
negative goes through this module (tests/bot/test_games_in_languages.py fails on an ASCII
minus before a digit)."""

from __future__ import annotations

from decimal import Decimal
from functools import cache

from babel import Locale
from babel.numbers import format_decimal, format_percent

from bot.i18n import SOURCE, Translations

MINUS = "\u2212"


@cache
def locale_of(tr: Translations) -> str:
    # A compiled catalogue names its language in its header; English translates nothing.
    return str(tr.info().get("language") or SOURCE)


@cache
def _grouping(language: str) -> str:
    """The integer part of the language's number pattern: "#,##0", and Hindi's "#,##,##0"
    (lakhs: 1,23,456)."""
    return str(Locale.parse(language).decimal_formats[None].pattern).split(".")[0].split(";")[0]


def _number(value: float, decimals: str, tr: Translations) -> str:
    """``value`` in the language's grouping with ``decimals`` (".0", ".##" or none), its
    negative form the same with a true minus."""
    pattern = _grouping(locale_of(tr)) + decimals
    return format_decimal(value, format=f"{pattern};{MINUS}{pattern}", locale=locale_of(tr))


def whole(value: int, tr: Translations) -> str:
    """An integer with the language's grouping: 50,360 / 50 360 / 50.360 / 1,23,456; −10."""
    return _number(value, "", tr)


def tenths(value: float, tr: Translations) -> str:
    """One decimal place: 23.4 / 23,4 / −1,5."""
    return _number(value, ".0", tr)


def percent(rate: float, tr: Translations) -> str:
    """A rate as a whole percentage: 42% / 42 %."""
    return format_percent(rate, locale=locale_of(tr))


def short(value: float, tr: Translations) -> str:
    """A number with the decimals it needs, at most two: 1 / 1.5 / 1,5."""
    return _number(value, ".##", tr)


def signed(value: float, tr: Translations) -> str:
    """A difference with its sign always written, one decimal place: +1.5 / −1,5 / 0 (a true
    minus sign)."""
    if round(value, 1) == 0:
        return "0"
    pattern = _grouping(locale_of(tr)) + ".0"
    return format_decimal(value, format=f"+{pattern};{MINUS}{pattern}", locale=locale_of(tr))


def signed_whole(value: int, tr: Translations) -> str:
    """A whole difference with its sign always written: +12 / −1,234 / 0."""
    if value == 0:
        return "0"
    pattern = _grouping(locale_of(tr))
    return format_decimal(value, format=f"+{pattern};{MINUS}{pattern}", locale=locale_of(tr))


def count_for(value: float, tr: Translations) -> int:
    """The count that picks ``value``'s plural in ``ngettext``, which takes a whole number: its
    size, the sign aside ("−1 point" takes the form of "1 point"). A fraction is a plural in
    English, Italian and Hindi but a singular below 2 in French ("1,5 heure", "1.5 hours"):
    CLDR's rule for the language decides, given to gettext as 1 (its "one" form) or 2."""
    size = abs(value)
    if float(size).is_integer():
        return int(size)
    form = Locale.parse(locale_of(tr)).plural_form(Decimal(str(size)))
    return 1 if form == "one" else 2


def rank(place: int, tr: Translations) -> str:
    """A player's place as an ordinal: "#3" in English, "3e" (and "1er") in French, "3º" in
    Italian, "नंबर 3" in Hindi."""
    if place == 1:
        return tr.pgettext("a player's place on a board, when it is 1", "#{rank}").format(rank=1)
    return tr.pgettext("a player's place on a board", "#{rank}").format(rank=place)
