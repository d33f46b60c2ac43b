"""What happened: every applied action returns these, in order, for the caller to render.

Events are immutable named tuples: cheap to make in a playout loop, and matched by type
(``isinstance`` or ``match``), never compared with plain tuples.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import Card, Suit


class FirstDealerDrawn(NamedTuple):
    rounds: tuple[tuple[tuple[int, Card], ...], ...]
    dealer: int


class DealStarted(NamedTuple):
    deal_index: int
    deal_number: int
    dealer: int
    hand_size: int
    trump: Suit | None
    turned: Card | None
    commitment: str | None


class HandLooked(NamedTuple):
    seat: int


class BidPlaced(NamedTuple):
    seat: int
    bid: int
    blind: bool


class CardPlayed(NamedTuple):
    seat: int
    card: Card


class TrickWon(NamedTuple):
    seat: int
    trick_number: int
    cards: tuple[tuple[int, Card], ...]


class DealScored(NamedTuple):
    deal_index: int
    bids: tuple[int, ...]
    blind: tuple[bool, ...]
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    seed_reveal: str | None


class GameEnded(NamedTuple):
    totals: tuple[int, ...]
    winners: tuple[int, ...]


Event = (
    FirstDealerDrawn
    | DealStarted
    | HandLooked
    | BidPlaced
    | CardPlayed
    | TrickWon
    | DealScored
    | GameEnded
)
