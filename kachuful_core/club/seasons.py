"""Seasons of a server (docs/events.md#seasons): which season a day belongs to, and how a
season's games rank its players.

A season is monthly, quarterly, or one period between two dates. Its standings count every
game finished in it: a game gives each player one season point for every opponent (computer
players included) whose final score they beat, half a point for a tie, as a rotation table of
an event does; ties in points are broken by wins, then by the points scored. The champions are
every player ranked first (a tie crowns them all).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from .scoring import table_points

KINDS = ("monthly", "quarterly", "dates")


@dataclass(frozen=True)
class Season:
    key: str  # "2026-12", "2026-Q4", "2026-11-01..2026-12-31"
    first: date
    end: date  # the day after the last

    def __contains__(self, day: date) -> bool:
        return self.first <= day < self.end


def _month(year: int, month: int) -> date:
    year += (month - 1) // 12
    return date(year, (month - 1) % 12 + 1, 1)


def season_of(
    kind: str, day: date, first: date | None = None, last: date | None = None
) -> Season | None:
    """The season ``day`` is in (None: a season between dates that does not hold it)."""
    if kind == "monthly":
        start = date(day.year, day.month, 1)
        return Season(f"{day.year}-{day.month:02d}", start, _month(day.year, day.month + 1))
    if kind == "quarterly":
        quarter = (day.month - 1) // 3
        start = date(day.year, 3 * quarter + 1, 1)
        return Season(f"{day.year}-Q{quarter + 1}", start, _month(day.year, 3 * quarter + 4))
    if kind == "dates":
        if first is None or last is None or last < first:
            raise ValueError("a season between dates needs a first and a last day")
        season = Season(f"{first.isoformat()}..{last.isoformat()}", first, last + timedelta(days=1))
        return season if day in season else None
    raise ValueError(f"no season kind {kind!r}")


def last_ended(
    kind: str, today: date, first: date | None = None, last: date | None = None
) -> Season | None:
    """The latest season that has ended by ``today`` (None if none has)."""
    if kind == "dates":
        if first is None or last is None:
            raise ValueError("a season between dates needs a first and a last day")
        ended = season_of(kind, first, first, last)
        return ended if ended is not None and ended.end <= today else None
    current = season_of(kind, today)
    assert current is not None
    return season_of(kind, current.first - timedelta(days=1))


@dataclass(frozen=True)
class SeasonStanding:
    player: int
    rank: int
    points: float
    wins: int
    score: int
    games: int


def season_standings(
    games: Iterable[Sequence[tuple[int | None, int, bool]]],
) -> list[SeasonStanding]:
    """Rank the players of a season's games, each a sequence of seats (player or None for a
    computer, final score, won)."""
    points: dict[int, float] = {}
    wins: dict[int, int] = {}
    score: dict[int, int] = {}
    played: dict[int, int] = {}
    for seats in games:
        earned = table_points([total for _, total, _ in seats])
        for (player, total, won), gained in zip(seats, earned, strict=True):
            if player is None:
                continue
            points[player] = points.get(player, 0.0) + gained
            wins[player] = wins.get(player, 0) + int(won)
            score[player] = score.get(player, 0) + total
            played[player] = played.get(player, 0) + 1
    order = sorted(points, key=lambda p: (-points[p], -wins[p], -score[p]))
    out: list[SeasonStanding] = []
    for place, player in enumerate(order):
        key = (points[player], wins[player], score[player])
        rank = place + 1
        if out and (out[-1].points, out[-1].wins, out[-1].score) == key:
            rank = out[-1].rank
        out.append(SeasonStanding(player, rank, *key, played[player]))
    return out
