"""Plain data that the store reads and writes besides the table (bot/model.py) and the reads for
leaderboards, statistics and history (bot/result_pages.py): where messages were delivered and
the results of finished games. No SQL, no Discord."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Delivered:
    """A public message as delivered: where it is, and the digest of what it shows."""

    channel_id: int
    message_id: int
    digest: str


@dataclass(frozen=True)
class GameRef:
    """The plain columns of an open game whose stored row or record cannot be used: enough to
    tell its channel what happened and to let the host or a manager close it."""

    id: int
    guild_id: int
    channel_id: int
    host_id: int
    message_id: int | None = None  # its lobby's, which names a thread opened from it


@dataclass(frozen=True)
class DealLine:
    """One seat's part in one scored deal, kept for per-hand-size and per-trump statistics."""

    hand_size: int
    suit: str | None  # the trump suit: "S", "H", "D", "C", or None for a no-trump deal
    bid: int
    tricks: int
    points: int


@dataclass(frozen=True)
class ResultRow:
    """One seat's result in a finished game.

    ``name`` is the display name shown on leaderboards (the seat's name when left out);
    ``level`` is a computer seat's strength ("heuristic" when left out); ``deals`` are the
    seat's scored deals (derived from the game's record by the store when left out).
    """

    seat: int
    user_id: int | None
    score: int
    won: bool
    bids_exact: int
    bids: int
    name: str | None = None
    level: str | None = None
    deals: tuple[DealLine, ...] = ()
