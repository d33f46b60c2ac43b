"""Leaderboards, a player's statistics and a channel's history, as the store reads them
(bot/store/reads.py) and the renderers show them (bot/render/results_commands.py). Plain
data: no SQL, no Discord."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from bot.i18n import N_
from bot.model import GameStatus

Scope = Literal["channel", "server"]
Period = Literal["all", "30d", "7d"]
SortKey = Literal["rating", "wins", "average", "exact"]

# The leaderboard's choices, declared once: the store reads these keys, /kachuful leaderboard
# offers them with these labels (translated by the command translator).
SCOPE_LABELS: dict[Scope, str] = {"channel": N_("This channel"), "server": N_("This server")}
PERIOD_LABELS: dict[Period, str] = {
    "all": N_("All time"),
    "30d": N_("Last 30 days"),
    "7d": N_("Last 7 days"),
}
SORT_LABELS: dict[SortKey, str] = {
    "rating": N_("Rating (default)"),
    "wins": N_("Wins"),
    "average": N_("Average score"),
    "exact": N_("Exact-bid rate"),
}


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


@dataclass(frozen=True)
class PlayerGame:
    """One finished game of a player in a server (a club page's list of their games)."""

    game_id: int
    finished_at: datetime
    score: int
    place: int | None
    won: bool
