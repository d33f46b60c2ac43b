"""The club pages' templates (Jinja2, every value escaped unless a template says otherwise,
which none does) and the helpers they call: words through the reader's catalogue, numbers
in the reader's language, cards as the table's corners print them.

Every word a template shows is a call of ``_`` or ``ngettext`` (extracted by Babel's Jinja2
extractor, babel.cfg), translated with the reader's translations passed to each render: the
environment holds no language, so two readers' pages never mix them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from bot.i18n import Translations
from bot.rating import shown
from bot.render import numbers
from bot.render.cards import rank_name, suit_name
from bot.render.club import points_text
from bot.render.dates import day, season_name
from bot.render.review import trump_line
from kachuful_core.cards import RANK_NAMES, SUIT_LETTERS, SUIT_SYMBOLS

TEMPLATES = Path(__file__).parent / "templates"

ENVIRONMENT = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def card_code(card: int) -> str:
    """The record's name of a card (``10H``, ``AS``): what a test reads back."""
    return RANK_NAMES[card % 13] + SUIT_LETTERS[card // 13]


def helpers(tr: Translations) -> dict[str, Any]:
    """What every template may call, in the reader's language."""
    return {
        "_": tr.gettext,
        "ngettext": tr.ngettext,
        "whole": lambda value: numbers.whole(value, tr),
        "tenths": lambda value: numbers.tenths(value, tr),
        "percent": lambda rate: "–" if rate is None else numbers.percent(rate, tr),
        "signed": lambda value: numbers.signed(value, tr),
        "signed_whole": lambda value: numbers.signed_whole(value, tr),
        "points": lambda value: points_text(value, tr),
        "short": lambda value: numbers.short(value, tr),
        "rating": lambda ordinal: (
            tr.gettext("unrated") if ordinal is None else numbers.whole(shown(ordinal), tr)
        ),
        "rank": lambda card: rank_name(card % 13, tr),
        "suit": lambda card: SUIT_SYMBOLS[card // 13],
        "suit_of": lambda card: card // 13,
        "suit_symbol": lambda suit: SUIT_SYMBOLS[suit],
        "suit_name": lambda suit: suit_name(suit, tr),
        "code": card_code,
        "trump_line": lambda suit: trump_line(suit, tr),
        "season_name": lambda key: season_name(key, tr),
        "day": lambda when: day(when, tr),
        "place": lambda rank: numbers.rank(rank, tr),
    }


def render(name: str, tr: Translations, **context: Any) -> str:
    return ENVIRONMENT.get_template(name).render(**helpers(tr), **context)
