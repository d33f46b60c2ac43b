"""Cards as small integers and hands as bit sets.

A card is ``suit * 13 + rank`` with suits S, H, D, C (0..3) and ranks 2..A (0..12), so a hand
is an ``int`` whose bit ``c`` is set when it holds card ``c``. Bit sets keep the legality checks
of the hot playout loop to a few integer operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

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


def mask_of(cards: Iterable[Card]) -> int:
    """The bit set of distinct cards."""
    return sum(map(BITS.__getitem__, cards))


def _chunk_table(offset: int, bits: int) -> tuple[tuple[Card, ...], ...]:
    return tuple(
        tuple(offset + i for i in range(bits) if pattern >> i & 1) for pattern in range(1 << bits)
    )


# The cards of every 11-bit slice of the deck: listing a hand is five table look-ups instead
# of a loop over its bits, which keeps ``legal_cards`` cheap in playouts (under 1 MB in all).
_T0, _T1, _T2, _T3 = (_chunk_table(11 * k, 11) for k in range(4))
_T4 = _chunk_table(44, 8)


def cards_of(mask: int) -> list[Card]:
    """The cards of a bit set, in ascending order (by suit, then rank)."""
    return [
        *_T0[mask & 0x7FF],
        *_T1[mask >> 11 & 0x7FF],
        *_T2[mask >> 22 & 0x7FF],
        *_T3[mask >> 33 & 0x7FF],
        *_T4[mask >> 44],
    ]


def iter_cards(mask: int) -> Iterator[Card]:
    return iter(cards_of(mask))


def display_order(cards: Iterable[Card]) -> list[Card]:
    """Cards sorted for showing a hand: by suit S H D C, high rank first."""
    return sorted(cards, key=lambda c: (c // 13, -(c % 13)))
