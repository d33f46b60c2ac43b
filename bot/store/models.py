"""Plain data that the store reads and writes. No SQL here, no Discord."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Literal

GameStatus = Literal["lobby", "running", "finished", "stopped"]
OPEN_STATUSES: tuple[GameStatus, ...] = ("lobby", "running")


@dataclass
class Seat:
    """One seat at a table.

    ``user_id`` is the Discord user sitting there, or None for a computer player.
    ``away`` is set after repeated time-outs: the computer plays the seat until its owner
    clicks "I'm back". ``timeouts`` counts consecutive time-outs. ``left_user_id`` remembers
    a player who left a running game (their seat is then a computer player).
    ``looked_deal`` is the deal in which the seat looked at its hand (blind bids): looking
    is not a move of the game record, so it is kept here to survive a restart.
    """

    user_id: int | None
    name: str
    away: bool = False
    timeouts: int = 0
    left_user_id: int | None = None
    looked_deal: int | None = None
    # The level of a computer seat (kachuful_core.players.LEVELS); None: a human's seat, or a
    # computer seat made before levels existed (played at the heuristic level).
    level: str | None = None

    @property
    def is_computer(self) -> bool:
        return self.user_id is None

    @property
    def computer_plays(self) -> bool:
        """True when nobody is clicking for this seat: a computer seat or an away player."""
        return self.user_id is None or self.away

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seat:
        return cls(
            user_id=data.get("user_id"),
            name=str(data.get("name", "?")),
            away=bool(data.get("away", False)),
            timeouts=int(data.get("timeouts", 0)),
            left_user_id=data.get("left_user_id"),
            looked_deal=data.get("looked_deal"),
            level=data.get("level") if isinstance(data.get("level"), str) else None,
        )


@dataclass
class GameRow:
    """Everything stored about one table."""

    id: int
    guild_id: int
    channel_id: int
    host_id: int
    status: GameStatus
    rules: dict[str, Any]
    max_seats: int
    seats: list[Seat]
    created_at: datetime
    updated_at: datetime
    version: int = 0
    seed: str | None = None
    record: dict[str, Any] | None = None
    message_id: int | None = None
    # Why the game ended without a result (see migration 0002), for its public notice.
    ended: str | None = None
    # False while the publisher still owes the channel messages of a closed game.
    settled: bool = True

    def seat_of(self, user_id: int) -> int | None:
        for index, seat in enumerate(self.seats):
            if seat.user_id == user_id:
                return index
        return None


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


@dataclass(frozen=True)
class DealLine:
    """One seat's part in one scored deal, kept for per-hand-size and per-trump statistics."""

    hand_size: int
    trump: str | None  # "S", "H", "D", "C", or None for a no-trump deal
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


# ---- reads for leaderboards, statistics and history (bot/store/stats.py) ----------------------

Scope = Literal["channel", "server"]
Period = Literal["all", "30d", "7d"]
SortKey = Literal["rating", "wins", "average", "exact"]


@dataclass(frozen=True)
class BoardRow:
    """One player on a leaderboard page. ``rating`` is the conservative ordinal (μ − 3σ)
    of the player's server rating, None if unrated; ``best_score`` is None for a period."""

    rank: int
    user_id: int
    name: str
    games: int
    wins: int
    average_score: float
    exact_bid_rate: float | None
    best_score: int | None
    rating: float | None


@dataclass(frozen=True)
class BoardPage:
    scope: Scope
    period: Period
    sort: SortKey
    page: int  # 0-based, clamped to the pages there are
    pages: int
    players: int
    rows: list[BoardRow] = field(default_factory=list)
    # The viewer's own row when they are ranked but not on this page.
    viewer: BoardRow | None = None


@dataclass(frozen=True)
class SplitStat:
    """Figures for one hand size or one trump suit ("N" = no trump)."""

    key: str
    deals: int
    exact: int
    points: int

    @property
    def exact_rate(self) -> float:
        return self.exact / self.deals if self.deals else 0.0

    @property
    def average_points(self) -> float:
        return self.points / self.deals if self.deals else 0.0


@dataclass(frozen=True)
class PlayerStats:
    user_id: int
    name: str
    games: int
    wins: int
    average_score: float
    best_score: int
    best_game_id: int
    exact_bid_rate: float | None
    zero_bids: int
    zero_exact: int
    rating: float | None  # ordinal
    rating_rank: int | None
    rated_players: int
    # Ordinal after each of the last games, oldest first.
    trend: list[float] = field(default_factory=list)
    by_hand_size: list[SplitStat] = field(default_factory=list)
    by_trump: list[SplitStat] = field(default_factory=list)


@dataclass(frozen=True)
class HistorySeat:
    name: str
    user_id: int | None
    score: int | None  # None for a stopped game
    won: bool


@dataclass(frozen=True)
class HistoryEntry:
    game_id: int
    status: GameStatus
    started_at: datetime
    ended_at: datetime
    message_id: int | None  # the final standings, else the table message
    link_channel_id: int | None = None  # where that message is (a game's thread, say)
    seats: list[HistorySeat] = field(default_factory=list)

    @property
    def winners(self) -> list[HistorySeat]:
        return [seat for seat in self.seats if seat.won]


@dataclass(frozen=True)
class HistoryPage:
    page: int
    pages: int
    games: int
    entries: list[HistoryEntry] = field(default_factory=list)
