"""Numbers, signs, dates and places as a player of each language reads them: a negative number
with a true minus (never an ASCII hyphen beside the review's "−"), a signed count in the plural
of its size, no date or season in ISO form, a rank as an ordinal, a duration in words, and a
name in a card picture drawn without the characters no font has."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from bot.i18n import translation
from bot.render import club
from bot.render.pictures import name_label
from bot.render.results_commands import leaderboard, player_stats, setting_line
from bot.render.review import review_page
from bot.result_pages import BoardPage, BoardRow
from kachuful_core.review import DealReview, GameReview

from .later_kinds import later_messages, seat_deal
from .test_words_in_every_language import every_message, stats
from .words_check import LANGUAGES, texts

ASCII_MINUS = re.compile(r"(?<![\w-])-\d")
ISO_DATE = re.compile(r"\b\d{4}-(?:Q[1-4]|\d{2}(?:-\d{2})?)\b")


def rendered(language: str) -> list[str]:
    found: list[str] = []
    for spec in (*every_message(language), *later_messages(language)):
        found += [text for text in texts(spec) if text]
    return found


@pytest.mark.parametrize("language", ("en", *LANGUAGES))
def test_a_negative_number_has_a_true_minus_everywhere(language: str) -> None:
    """Score tables, standings, hand totals, statistics, the review and the events' figures:
    one way to write a negative number (the games of every_message score "Judgement", exact
    +10, miss −10, so negative scores are shown)."""
    found = rendered(language)
    assert [text[:80] for text in found if ASCII_MINUS.search(text)] == []
    assert any(re.search("\u2212\\d", text) for text in found)


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_date_or_season_is_shown_in_iso_form(language: str) -> None:
    """Season titles, the champions, the hall, "the season ends on", "from … to …": dates
    and quarters as the language writes them."""
    found = [text for spec in later_messages(language) for text in texts(spec)]
    assert [text[:80] for text in found if ISO_DATE.search(text)] == []


@pytest.mark.parametrize(
    ("language", "month", "quarter", "span"),
    [
        ("en", "December 2026", "4th quarter 2026", "November 1 – December 31, 2026"),
        ("fr", "décembre 2026", "4e trimestre 2026", "1er novembre – 31 décembre 2026"),
        ("it", "dicembre 2026", "4º trimestre 2026", "1º novembre – 31 dicembre 2026"),
        ("hi", "दिसंबर 2026", "चौथी तिमाही 2026", "1 नवंबर – 31 दिसंबर 2026"),
    ],
)
def test_a_season_is_named_as_the_language_names_it(
    language: str, month: str, quarter: str, span: str
) -> None:
    from bot.render import dates

    tr = translation(language)
    assert dates.season_name("2026-12", tr) == month
    assert dates.season_name("2026-Q4", tr) == quarter
    assert dates.season_name("2026-11-01..2026-12-31", tr) == span


def review_with_total(score: int) -> GameReview:
    """One player, one deal scored ``score`` (a miss with penalties)."""
    seat = seat_deal(1, 0, True, 1).model_copy(update={"score": score})
    return GameReview(players=("asha",), deals=(DealReview(index=0, hand_size=1, seats=(seat,)),))


@pytest.mark.parametrize(
    ("language", "one", "ten"),
    [
        ("en", "\u22121 point", "\u221210 points"),
        ("fr", "\u22121\xa0point", "\u221210\xa0points"),
        ("it", "\u22121 punto", "\u221210 punti"),
        ("hi", "\u22121 अंक", "\u221210 अंक"),
    ],
)
def test_a_negative_total_takes_the_plural_of_its_size(language: str, one: str, ten: str) -> None:
    """The review's total of a game scored with penalties: "−1 point", never "-1 points"."""
    tr = translation(language)
    for score, shown in ((-1, one), (-10, ten)):
        field = review_page(3, review_with_total(score), 0, tr).embeds[0].fields[0]
        assert (field.value or "").splitlines()[0] == shown


@pytest.mark.parametrize(
    ("language", "first", "third", "change"),
    [
        ("en", "#1", "#3", "\u22121,234"),
        ("fr", "1er", "3e", "\u22121\u202f234"),
        ("it", "1º", "3º", "\u22121.234"),
        ("hi", "नंबर 1", "नंबर 3", "\u22121,234"),
    ],
)
def test_ranks_are_ordinals_and_the_trend_is_in_the_languages_numbers(
    language: str, first: str, third: str, change: str
) -> None:
    tr = translation(language)
    rows = [BoardRow(rank, rank, f"p{rank}", 3, 1, 1.5, 0.5, None, 30.0) for rank in (1, 3)]
    page = BoardPage("server", "all", "rating", 0, 1, 2, rows)
    lines = (leaderboard(page, tr).embeds[0].description or "").splitlines()
    assert lines[1].startswith(f"`{first}`") and lines[2].startswith(f"`{third}`")
    # A rating that fell by 1,234 (shown = 1000 + 40 × ordinal): a true minus, the
    # language's grouping.
    fell = replace(stats(3, 1, 0, 3), trend=[40.0, 40.0 - 1234 / 40])
    rating = player_stats(fell, tr).embeds[0].fields[0].value or ""
    assert change in rating and not ASCII_MINUS.search(rating)


@pytest.mark.parametrize(
    ("language", "words"),
    [("en", "90 seconds"), ("fr", "90 secondes"), ("it", "90 secondi"), ("hi", "90 सेकंड")],
)
def test_the_turn_clock_setting_is_said_in_words(language: str, words: str) -> None:
    line = setting_line("turn_seconds", 90, translation(language)).replace("\xa0", " ")
    assert line.endswith(words) and not line.endswith("90 s")


@pytest.mark.parametrize(
    ("hours", "language", "shown"),
    [(1.5, "fr", "1,5\xa0heure"), (1.5, "en", "1.5 hours"), (1.5, "it", "1,5 ore")],
)
def test_a_fraction_takes_the_languages_plural(hours: float, language: str, shown: str) -> None:
    """French keeps the singular below 2 ("1,5 heure", "0,5 pt"); English and Italian do not."""
    from bot.render.words import hours_text

    tr = translation(language)
    assert hours_text(hours, tr) == shown
    if language == "fr":
        assert club.points_text(0.5, tr) == "0,5\xa0pt"


def test_a_name_in_a_picture_keeps_what_a_font_can_draw() -> None:
    assert name_label("Ada 🤖", 1) == "Ada"
    assert name_label("🤖", 1) == "#2"


def test_a_number_has_one_minus_and_is_counted_by_its_size() -> None:
    from bot.render import numbers

    tr = translation("fr")
    assert numbers.whole(-10, tr) == "\u221210"
    assert numbers.signed_whole(12, tr) == "+12"
    assert numbers.count_for(-1, tr) == 1
    # Hindi groups by lakhs, as CLDR's pattern for it says.
    assert numbers.whole(-123456, translation("hi")) == "\u22121,23,456"


def test_a_name_is_cut_between_letters_not_inside_one() -> None:
    """A Devanagari vowel sign or virama stays with its consonant: the score table's column
    and the leaderboard cut a name without leaving a dangling mark."""
    import unicodedata

    from bot.render.names import clip_name

    name = "प्रियंका शर्मा"
    for length in range(4, len(name)):
        cut = clip_name(name, length)
        assert name.startswith(cut) and 0 < len(cut) <= length
        assert not cut.endswith("\u094d")  # no virama left hanging
        assert not unicodedata.category(name[len(cut)]).startswith("M")  # no sign cut off
    assert clip_name("Aishwarya", 4) == "Aish"
