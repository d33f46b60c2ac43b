"""Cards as small integers and hands as bit sets.

A card is ``suit * 13 + rank`` with suits S, H, D, C (0..3) and ranks 2..A (0..12), so a hand
is an ``int`` whose bit ``c`` is set when it holds card ``c``. Bit sets keep the legality checks
of the hot playout loop to a few integer operations.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import itemgetter

Card = int
Suit = int

SUIT_LETTERS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
DECK_SIZE = 52
FULL_DECK = (1 << DECK_SIZE) - 1
BITS = tuple(1 << c for c in range(DECK_SIZE))
SUIT_MASKS = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))

_RANK_BY_NAME = {name: i for i, name in enumerate(RANK_NAMES)} | {"T": 8, "1": -1}
_SUIT_BY_NAME = {ch: i for i, ch in enumerate(SUIT_LETTERS)} | {
    ch: i for i, ch in enumerate(SUIT_SYMBOLS)
}


def _suit_tables() -> tuple[tuple[tuple[Card, ...], ...], ...]:
    ranks = [tuple(r for r in range(13) if pattern >> r & 1) for pattern in range(1 << 13)]
    return tuple(tuple(tuple(13 * s + r for r in rs) for rs in ranks) for s in range(4))


# SUIT_CARDS[suit][pattern]: the cards of a 13-bit rank pattern in that suit, ascending. A
# hand kept as four such patterns lists its legal cards with one or four look-ups, all on
# small ints, which is what keeps the playout loop fast (about 4 MB, built once at import).
SUIT_CARDS = _suit_tables()
RANK_BITS = tuple(1 << (c % 13) for c in range(DECK_SIZE))


def held_cards(held: list[int]) -> list[Card]:
    """The cards of a hand kept as four 13-bit rank patterns (S, H, D, C)."""
    s, h, d, c = SUIT_CARDS
    return [*s[held[0]], *h[held[1]], *d[held[2]], *c[held[3]]]


def mask_of(cards: Iterable[Card]) -> int:
    """The 52-bit set of distinct cards."""
    cards = tuple(cards)
    return sum(itemgetter(*cards)(BITS)) if len(cards) > 1 else sum(BITS[c] for c in cards)


def held_of(cards: Iterable[Card]) -> list[int]:
    """Four 13-bit rank patterns (S, H, D, C) of distinct cards."""
    mask = mask_of(cards)
    return [mask & 0x1FFF, mask >> 13 & 0x1FFF, mask >> 26 & 0x1FFF, mask >> 39]


def suit_of(card: Card) -> Suit:
    return card // 13


def rank_of(card: Card) -> int:
    return card % 13


def make_card(suit: Suit, rank: int) -> Card:
    return suit * 13 + rank


def card_str(card: Card) -> str:
    """Canonical record form: ``10H``, ``AS``."""
    return RANK_NAMES[card % 13] + SUIT_LETTERS[card // 13]


def card_label(card: Card) -> str:
    """Display form with a suit symbol: ``10♥``."""
    return RANK_NAMES[card % 13] + SUIT_SYMBOLS[card // 13]


def parse_card(text: str) -> Card:
    """Parse ``10H``, ``th``, ``10♥``; raise ``ValueError`` on anything that is not a card."""
    s = text.strip().upper()
    if len(s) < 2 or s[-1] not in _SUIT_BY_NAME:
        raise ValueError(f"{text!r} is not a card")
    rank = _RANK_BY_NAME.get(s[:-1], -1)
    if rank < 0:
        raise ValueError(f"{text!r} is not a card")
    return make_card(_SUIT_BY_NAME[s[-1]], rank)


def cards_of(mask: int) -> list[Card]:
    """The cards of a 52-bit set, in ascending order (by suit, then rank)."""
    s, h, d, c = SUIT_CARDS
    return [*s[mask & 0x1FFF], *h[mask >> 13 & 0x1FFF], *d[mask >> 26 & 0x1FFF], *c[mask >> 39]]


def display_order(cards: Iterable[Card]) -> list[Card]:
    """Cards sorted for showing a hand: by suit S H D C, high rank first."""
    return sorted(cards, key=lambda c: (c // 13, -(c % 13)))
