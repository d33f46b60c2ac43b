"""What a finished game adds to the aggregates and ratings (writer side).

:func:`apply_finished_game` runs inside the transaction of :meth:`Store.save_game` that marks
the game finished and inserts its results: the aggregates, ratings and deal figures therefore
count a game exactly once or not at all, whenever the process dies. A stopped game never
comes here. :func:`backfill` feeds the finished games of a database made by an earlier
release through the same function, in the transaction of migration 0003.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import aiosqlite

from bot import rating
from bot.rating import RatedSeat, Skill

from .models import DealLine

log = logging.getLogger(__name__)

SERVER = 0  # the channel_id of a server-wide aggregate row


@dataclass(frozen=True)
class FinishedSeat:
    """One seat as the aggregates need it (name and level resolved, place computed)."""

    seat: int
    user_id: int | None
    name: str
    level: str | None
    score: int
    won: bool
    place: int
    bids_exact: int
    bids: int
    deals: tuple[DealLine, ...]


_UPSERT_TOTALS = """
INSERT INTO player_totals (guild_id, channel_id, user_id, name, games, wins, score_sum,
    best_score, best_game_id, bids_exact, bids, avg_score, exact_rate, last_game_id)
VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (guild_id, channel_id, user_id) DO UPDATE SET
    name = excluded.name,
    games = games + 1,
    wins = wins + excluded.wins,
    score_sum = score_sum + excluded.score_sum,
    best_game_id = CASE WHEN excluded.best_score > best_score
                        THEN excluded.best_game_id ELSE best_game_id END,
    best_score = MAX(best_score, excluded.best_score),
    bids_exact = bids_exact + excluded.bids_exact,
    bids = bids + excluded.bids,
    avg_score = CAST(score_sum + excluded.score_sum AS REAL) / (games + 1),
    exact_rate = CASE WHEN bids + excluded.bids > 0
                      THEN CAST(bids_exact + excluded.bids_exact AS REAL) / (bids + excluded.bids)
                 END,
    last_game_id = excluded.last_game_id
"""

_UPSERT_DAYS = """
INSERT INTO player_days (guild_id, channel_id, day, user_id, games, wins, score_sum,
    bids_exact, bids)
VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?)
ON CONFLICT (guild_id, channel_id, day, user_id) DO UPDATE SET
    games = games + 1,
    wins = wins + excluded.wins,
    score_sum = score_sum + excluded.score_sum,
    bids_exact = bids_exact + excluded.bids_exact,
    bids = bids + excluded.bids
"""

_UPSERT_RATING = """
INSERT INTO ratings (guild_id, user_id, mu, sigma, ordinal, games) VALUES (?, ?, ?, ?, ?, 1)
ON CONFLICT (guild_id, user_id) DO UPDATE SET
    mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal, games = games + 1
"""

_INSERT_HISTORY = (
    "INSERT INTO rating_history (guild_id, user_id, game_id, mu, sigma, ordinal)"
    " VALUES (?, ?, ?, ?, ?, ?)"
)

_UPSERT_DEALS = """
INSERT INTO deal_totals (guild_id, user_id, hand_size, trump, deals, exact, zero_bids,
    zero_exact, points)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (guild_id, user_id, hand_size, trump) DO UPDATE SET
    deals = deals + excluded.deals,
    exact = exact + excluded.exact,
    zero_bids = zero_bids + excluded.zero_bids,
    zero_exact = zero_exact + excluded.zero_exact,
    points = points + excluded.points
"""


async def apply_finished_game(
    db: aiosqlite.Connection,
    *,
    game_id: int,
    guild_id: int,
    channel_id: int,
    finished_at: str,
    seats: Sequence[FinishedSeat],
) -> None:
    """Add one finished game to every aggregate and rating. Call inside the transaction that
    marks the game finished (the caller commits or rolls back)."""
    players = [seat for seat in seats if seat.user_id is not None]
    if not players:
        return
    await db.executemany(
        "INSERT INTO guild_totals (guild_id, games) VALUES (?, 1)"
        " ON CONFLICT (guild_id) DO UPDATE SET games = games + 1",
        [(guild_id,)],
    )
    day = finished_at[:10]
    totals = []
    days = []
    for seat in players:
        rate = seat.bids_exact / seat.bids if seat.bids else None
        for scope in (SERVER, channel_id):
            totals.append(
                (
                    guild_id,
                    scope,
                    seat.user_id,
                    seat.name,
                    int(seat.won),
                    seat.score,
                    seat.score,
                    game_id,
                    seat.bids_exact,
                    seat.bids,
                    float(seat.score),
                    rate,
                    game_id,
                )
            )
            days.append(
                (
                    guild_id,
                    scope,
                    day,
                    seat.user_id,
                    int(seat.won),
                    seat.score,
                    seat.bids_exact,
                    seat.bids,
                )
            )
    await db.executemany(_UPSERT_TOTALS, totals)
    await db.executemany(_UPSERT_DAYS, days)
    await _rate(db, game_id=game_id, guild_id=guild_id, seats=seats)
    await db.executemany(_UPSERT_DEALS, _deal_rows(guild_id, players))


async def _rate(
    db: aiosqlite.Connection, *, game_id: int, guild_id: int, seats: Sequence[FinishedSeat]
) -> None:
    user_ids = [seat.user_id for seat in seats if seat.user_id is not None]
    marks = ", ".join("?" for _ in user_ids)
    async with db.execute(
        f"SELECT user_id, mu, sigma FROM ratings WHERE guild_id = ? AND user_id IN ({marks})",
        (guild_id, *user_ids),
    ) as cursor:
        known = {
            int(row[0]): Skill(float(row[1]), float(row[2])) for row in await cursor.fetchall()
        }
    rated = rating.rate_game(
        [
            RatedSeat(
                score=seat.score,
                skill=None if seat.user_id is None else known.get(seat.user_id, rating.NEW_PLAYER),
                level=seat.level,
            )
            for seat in seats
        ]
    )
    updates = []
    history = []
    for seat, skill in zip(seats, rated, strict=True):
        if seat.user_id is None or skill is None:
            continue
        updates.append((guild_id, seat.user_id, skill.mu, skill.sigma, skill.ordinal))
        history.append((guild_id, seat.user_id, game_id, skill.mu, skill.sigma, skill.ordinal))
    await db.executemany(_UPSERT_RATING, updates)
    await db.executemany(_INSERT_HISTORY, history)


def _deal_rows(guild_id: int, players: Sequence[FinishedSeat]) -> list[tuple[Any, ...]]:
    grouped: dict[tuple[int, int, str], list[int]] = {}
    for seat in players:
        assert seat.user_id is not None
        for deal in seat.deals:
            key = (seat.user_id, deal.hand_size, deal.trump or "N")
            counts = grouped.setdefault(key, [0, 0, 0, 0, 0])
            exact = deal.bid == deal.tricks
            counts[0] += 1
            counts[1] += int(exact)
            counts[2] += int(deal.bid == 0)
            counts[3] += int(deal.bid == 0 and exact)
            counts[4] += deal.points
    return [(guild_id, *key, *counts) for key, counts in grouped.items()]


def _deal_lines(record: str | None) -> list[tuple[DealLine, ...]]:
    # Imported here: bot.results imports the store's models (and so this package).
    from bot.results import deal_lines_from_record

    return deal_lines_from_record(record)


# ---- upgrade from schema 1 ---------------------------------------------------------------------


async def backfill(db: aiosqlite.Connection) -> None:
    """Fill names, places and every aggregate from the results of earlier releases, game by
    game in finishing order (ratings depend on it), through :func:`apply_finished_game`."""
    async with db.execute(
        "SELECT id, guild_id, channel_id, seats, record FROM games"
        " WHERE id IN (SELECT DISTINCT game_id FROM results) ORDER BY id"
    ) as cursor:
        games = list(await cursor.fetchall())
    for game_id, guild_id, channel_id, seats_text, record_text in games:
        async with db.execute(
            "SELECT seat, user_id, score, won, bids_exact, bids, finished_at FROM results"
            " WHERE game_id = ? ORDER BY seat",
            (game_id,),
        ) as cursor:
            rows = list(await cursor.fetchall())
        try:
            seat_names = [str(entry.get("name", "?")) for entry in json.loads(seats_text)]
        except (TypeError, ValueError, AttributeError):
            seat_names = []
        deals = _deal_lines(record_text)
        scores = [int(row[2]) for row in rows]
        seats = []
        for (seat, user_id, score, won, exact, bids, _), place in zip(
            rows, rating.places(scores), strict=True
        ):
            name = seat_names[seat] if seat < len(seat_names) else "?"
            seats.append(
                FinishedSeat(
                    seat=seat,
                    user_id=user_id,
                    name=name,
                    level=None if user_id is not None else rating.DEFAULT_LEVEL,
                    score=score,
                    won=bool(won),
                    place=place,
                    bids_exact=exact,
                    bids=bids,
                    deals=deals[seat] if seat < len(deals) else (),
                )
            )
        await db.executemany(
            "UPDATE results SET name = ?, level = ?, place = ? WHERE game_id = ? AND seat = ?",
            [(s.name, s.level, s.place, game_id, s.seat) for s in seats],
        )
        await apply_finished_game(
            db,
            game_id=game_id,
            guild_id=guild_id,
            channel_id=channel_id,
            finished_at=str(rows[0][6]),
            seats=seats,
        )
    if games:
        log.info("filled in ratings and statistics of %d earlier game(s)", len(games))
