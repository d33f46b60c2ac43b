"""Cards, suits and hands as players read them, and how a hand is laid out as buttons."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.i18n import N_, Translations
from kachuful_core.cards import RANK_NAMES, SUIT_SYMBOLS, display_order

from .limits import MAX_PER_ROW
from .pictures import Card, HandPicture

if TYPE_CHECKING:
    from bot.model import Table

# Rows of a message available to cards or bids; the last row holds the controls.
CARD_ROWS = 4

# Discord draws a suit symbol as an emoji unless the text presentation selector (U+FE0E)
# follows it: ♠ and ♣ as near-black glyphs, hard to read on the dark theme, and every emoji
# larger than the text around it. With the selector each suit is the font's glyph, in the
# text colour of either theme. Every suit the bot writes goes through :func:`text_suits`.
TEXT_STYLE = "\ufe0e"
SUIT_CHARS = "♠♥♦♣"
_BARE_SUIT = re.compile(f"([{SUIT_CHARS}])(?!{TEXT_STYLE})")
SYMBOLS = tuple(symbol + TEXT_STYLE for symbol in SUIT_SYMBOLS)
# The suits' names in the engine's order (kachuful_core.cards.SUIT_NAMES), to translate.
SUIT_WORDS = (N_("spades"), N_("hearts"), N_("diamonds"), N_("clubs"))
# A suit named after its symbol in a title ("trump ♠ Spades"): English capitalises it there,
# French does not ("atout ♠ pique"), so it is a word of its own in the catalogue.
SUIT_TITLES = (N_("Spades"), N_("Hearts"), N_("Diamonds"), N_("Clubs"))


def text_suits(text: str) -> str:
    """``text`` with every suit symbol drawn as text (U+FE0E after each one lacking it)."""
    return _BARE_SUIT.sub(r"\1" + TEXT_STYLE, text)


def symbol(suit: int) -> str:
    return SYMBOLS[suit]


def rank_name(rank: int, tr: Translations) -> str:
    """A rank as the cards' corners print it in the reader's language: 2…10 stay digits,
    the court cards and the ace are letters (the French read R, D, V for K, Q, J)."""
    name = RANK_NAMES[rank]
    if name == "J":
        return tr.pgettext("card rank (one letter or two)", "J")
    if name == "Q":
        return tr.pgettext("card rank (one letter or two)", "Q")
    if name == "K":
        return tr.pgettext("card rank (one letter or two)", "K")
    if name == "A":
        return tr.pgettext("card rank (one letter or two)", "A")
    return name


def label(card: int, tr: Translations) -> str:
    """``10♥``, ``A♠`` (``R♠`` for a French king)."""
    return text_suits(rank_name(card % 13, tr) + SUIT_SYMBOLS[card // 13])


def suit_symbol(suit: int | None) -> str:
    return "—" if suit is None else SYMBOLS[suit]


def suit_name(suit: int | None, tr: Translations) -> str:
    return tr.gettext("no trump") if suit is None else tr.gettext(SUIT_WORDS[suit])


def trump_text(suit: int | None, tr: Translations) -> str:
    if suit is None:
        return tr.gettext("No trump")
    return f"{SYMBOLS[suit]} {tr.gettext(SUIT_TITLES[suit])}"


def hand_text(cards: Sequence[int], tr: Translations) -> str:
    """``♠ A K 7 · ♥ 10 4 · ♣ Q`` (suits with no card left out); ``(no cards)`` if empty."""
    parts = []
    by_suit: dict[int, list[int]] = {}
    for card in display_order(cards):
        by_suit.setdefault(card // 13, []).append(card)
    for suit in sorted(by_suit):
        ranks = " ".join(rank_name(c % 13, tr) for c in by_suit[suit])
        parts.append(f"{SYMBOLS[suit]} {ranks}")
    return " · ".join(parts) if parts else tr.gettext("(no cards)")


def pictures_on(row: Table) -> bool:
    """Whether the table shows its cards as pictures (the channel's setting; on by default)."""
    return row.options.pictures is not False


def picture_card(card: int, tr: Translations) -> Card:
    """A card as a picture draws it: its corner in the reader's language, and its suit."""
    return Card(rank_name(card % 13, tr), card // 13)


def hand_picture(
    cards: Sequence[int], tr: Translations, *, playable: set[int] | None, chosen: int | None
) -> HandPicture:
    """A hand in display order; with ``playable`` (the seat's turn to play) the other cards
    are dimmed."""
    ordered = display_order(cards)
    return HandPicture(
        tuple(picture_card(card, tr) for card in ordered),
        dimmed=frozenset(
            i for i, card in enumerate(ordered) if playable is not None and card not in playable
        ),
        chosen=ordered.index(chosen) if chosen in ordered else None,
    )


def card_rows(cards: Sequence[int]) -> list[list[int]]:
    """Lay a hand out in at most four rows of at most five buttons.

    One suit per row when that fits (a long suit may take two rows); otherwise the sorted hand
    is packed five to a row, which always fits: the largest hand is 17 cards (three players).
    """
    ordered = display_order(cards)
    by_suit: list[list[int]] = []
    for card in ordered:
        if by_suit and by_suit[-1][0] // 13 == card // 13:
            by_suit[-1].append(card)
        else:
            by_suit.append([card])
    suit_rows = [
        group[i : i + MAX_PER_ROW] for group in by_suit for i in range(0, len(group), MAX_PER_ROW)
    ]
    if len(suit_rows) <= CARD_ROWS:
        return suit_rows
    packed = [ordered[i : i + MAX_PER_ROW] for i in range(0, len(ordered), MAX_PER_ROW)]
    if len(packed) > CARD_ROWS:
        raise ValueError(f"{len(ordered)} cards do not fit in {CARD_ROWS} rows of buttons")
    return packed


def number_rows(count: int) -> list[list[int]]:
    """0..count-1 in rows of five (bids 0..17 need four rows)."""
    values = list(range(count))
    rows = [values[i : i + MAX_PER_ROW] for i in range(0, len(values), MAX_PER_ROW)]
    if len(rows) > CARD_ROWS:
        raise ValueError(f"{count} bid buttons do not fit in {CARD_ROWS} rows")
    return rows
