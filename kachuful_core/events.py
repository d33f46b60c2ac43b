"""What happened: every applied action returns these, in order, for the caller to render."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, Suit


@dataclass(frozen=True, slots=True)
class FirstDealerDrawn:
    rounds: tuple[tuple[tuple[int, Card], ...], ...]
    dealer: int


@dataclass(frozen=True, slots=True)
class DealStarted:
    deal_index: int
    deal_number: int
    dealer: int
    hand_size: int
    trump: Suit | None
    turned: Card | None
    commitment: str | None


@dataclass(frozen=True, slots=True)
class HandLooked:
    seat: int


@dataclass(frozen=True, slots=True)
class BidPlaced:
    seat: int
    bid: int
    blind: bool


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class TrickWon:
    seat: int
    trick_number: int
    cards: tuple[tuple[int, Card], ...]


@dataclass(frozen=True, slots=True)
class DealScored:
    deal_index: int
    bids: tuple[int, ...]
    blind: tuple[bool, ...]
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    totals: tuple[int, ...]
    seed_reveal: str | None


@dataclass(frozen=True, slots=True)
class GameEnded:
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
