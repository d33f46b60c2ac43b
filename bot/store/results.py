"""What a finished game adds to the all-time aggregates and ratings (writer side).

:func:`apply_finished_game` runs inside the transaction of :meth:`Store.save_game` that marks
the game finished and inserts its results: the aggregates, ratings and deal figures therefore
count a game exactly once or not at all, whenever the process dies. A stopped game never
comes here. :func:`backfill` feeds the finished games of a database made by an earlier
release through the same function, in the transaction of migration 0003. The 7- and 30-day
boards are :mod:`.periods`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection

from bot import rating
from bot.deal_lines import deal_lines_from_record
from bot.rating import RatedSeat, Skill

from .finished import SERVER, FinishedSeat, figures, many
from .periods import add_to_periods, lock_server

__all__ = ["FinishedSeat", "apply_finished_game", "backfill"]

log = logging.getLogger(__name__)

# The statements below are written once in the SQL both engines run (an upsert is
# ``ON CONFLICT ... DO UPDATE`` in both; a ratio is a CAST to DOUBLE PRECISION, which SQLite
# reads as REAL); SQLAlchemy binds their named parameters. In each upsert the stored row's
# columns are named with their table: beside ``excluded`` a bare column name is ambiguous to
# PostgreSQL (SQLite takes either).
_UPSERT_TOTALS = sa.text("""
INSERT INTO player_totals (guild_id, channel_id, user_id, name, games, wins, score_sum,
    best_score, best_game_id, bids_exact, bids, avg_score, exact_rate, last_game_id)
VALUES (:guild_id, :channel_id, :user_id, :name, 1, :wins, :score_sum, :best_score,
    :best_game_id, :bids_exact, :bids, :avg_score, :exact_rate, :last_game_id)
ON CONFLICT (guild_id, channel_id, user_id) DO UPDATE SET
    name = excluded.name,
    games = player_totals.games + 1,
    wins = player_totals.wins + excluded.wins,
    score_sum = player_totals.score_sum + excluded.score_sum,
    best_game_id = CASE WHEN excluded.best_score > player_totals.best_score
                        THEN excluded.best_game_id ELSE player_totals.best_game_id END,
    best_score = CASE WHEN excluded.best_score > player_totals.best_score
                      THEN excluded.best_score ELSE player_totals.best_score END,
    bids_exact = player_totals.bids_exact + excluded.bids_exact,
    bids = player_totals.bids + excluded.bids,
    avg_score = CAST(player_totals.score_sum + excluded.score_sum AS DOUBLE PRECISION)
                / (player_totals.games + 1),
    exact_rate = CASE WHEN player_totals.bids + excluded.bids > 0
                      THEN CAST(player_totals.bids_exact + excluded.bids_exact AS DOUBLE PRECISION)
                           / (player_totals.bids + excluded.bids)
                 END,
    last_game_id = excluded.last_game_id
""")

_UPSERT_DAYS = sa.text("""
INSERT INTO player_days (guild_id, channel_id, day, user_id, games, wins, score_sum,
    bids_exact, bids)
VALUES (:guild_id, :channel_id, :day, :user_id, 1, :wins, :score_sum, :bids_exact, :bids)
ON CONFLICT (guild_id, channel_id, day, user_id) DO UPDATE SET
    games = player_days.games + 1,
    wins = player_days.wins + excluded.wins,
    score_sum = player_days.score_sum + excluded.score_sum,
    bids_exact = player_days.bids_exact + excluded.bids_exact,
    bids = player_days.bids + excluded.bids
""")

_UPSERT_RATING = sa.text("""
INSERT INTO ratings (guild_id, user_id, mu, sigma, ordinal, games)
VALUES (:guild_id, :user_id, :mu, :sigma, :ordinal, 1)
ON CONFLICT (guild_id, user_id) DO UPDATE SET
    mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal, games = ratings.games + 1
""")

_INSERT_HISTORY = sa.text(
    "INSERT INTO rating_history (guild_id, user_id, game_id, mu, sigma, ordinal)"
    " VALUES (:guild_id, :user_id, :game_id, :mu, :sigma, :ordinal)"
)

_UPSERT_DEALS = sa.text("""
INSERT INTO deal_totals (guild_id, user_id, hand_size, trump, deals, exact, zero_bids,
    zero_exact, points)
VALUES (:guild_id, :user_id, :hand_size, :suit, :deals, :exact, :zero_bids, :zero_exact,
    :points)
ON CONFLICT (guild_id, user_id, hand_size, trump) DO UPDATE SET
    deals = deal_totals.deals + excluded.deals,
    exact = deal_totals.exact + excluded.exact,
    zero_bids = deal_totals.zero_bids + excluded.zero_bids,
    zero_exact = deal_totals.zero_exact + excluded.zero_exact,
    points = deal_totals.points + excluded.points
""")


def apply_finished_game(
    db: Connection,
    *,
    game_id: int,
    guild_id: int,
    channel_id: int,
    finished_at: str,
    seats: Sequence[FinishedSeat],
    periods: bool = True,
) -> None:
    """Add one finished game to every aggregate and rating. Call inside the transaction that
    marks the game finished (the caller commits or rolls back). ``periods=False`` leaves the
    period totals alone (migration 0003's backfill runs before their tables exist). The game is
    added to the period windows that hold its day; moving them on is the caller's
    (:func:`.periods.expire_periods`, best in a transaction of its own)."""
    players = [seat for seat in seats if seat.user_id is not None]
    if not players:
        return
    lock_server(db, guild_id)
    db.execute(
        sa.text(
            "INSERT INTO guild_totals (guild_id, games) VALUES (:guild_id, 1)"
            " ON CONFLICT (guild_id) DO UPDATE SET games = guild_totals.games + 1"
        ),
        {"guild_id": guild_id},
    )
    day = finished_at[:10]
    totals = []
    days = []
    for seat in players:
        rate = seat.bids_exact / seat.bids if seat.bids else None
        for scope in (SERVER, channel_id):
            common = figures(guild_id, scope, seat)
            totals.append(
                common
                | {
                    "name": seat.name,
                    "best_score": seat.score,
                    "best_game_id": game_id,
                    "avg_score": float(seat.score),
                    "exact_rate": rate,
                    "last_game_id": game_id,
                }
            )
            days.append(common | {"day": day})
    many(db, _UPSERT_TOTALS, totals)
    many(db, _UPSERT_DAYS, days)
    ordinals = _rate(db, game_id=game_id, guild_id=guild_id, seats=seats)
    many(db, _UPSERT_DEALS, _deal_rows(guild_id, players))
    if periods:
        add_to_periods(db, guild_id, channel_id, day, players, ordinals)


def _rate(
    db: Connection, *, game_id: int, guild_id: int, seats: Sequence[FinishedSeat]
) -> dict[int, float]:
    """Rate the game; return each player's new ordinal."""
    user_ids = [seat.user_id for seat in seats if seat.user_id is not None]
    found = db.execute(
        sa.text(
            "SELECT user_id, mu, sigma FROM ratings WHERE guild_id = :guild_id"
            " AND user_id IN :user_ids"
        ).bindparams(sa.bindparam("user_ids", expanding=True)),
        {"guild_id": guild_id, "user_ids": user_ids},
    )
    known = {int(row[0]): Skill(float(row[1]), float(row[2])) for row in found}
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
    updates: list[dict[str, Any]] = []
    for seat, skill in zip(seats, rated, strict=True):
        if seat.user_id is None or skill is None:
            continue
        updates.append(
            {
                "guild_id": guild_id,
                "user_id": seat.user_id,
                "game_id": game_id,
                "mu": skill.mu,
                "sigma": skill.sigma,
                "ordinal": skill.ordinal,
            }
        )
    many(db, _UPSERT_RATING, updates)
    many(db, _INSERT_HISTORY, updates)
    return {int(row["user_id"]): float(row["ordinal"]) for row in updates}


def _deal_rows(guild_id: int, players: Sequence[FinishedSeat]) -> list[dict[str, Any]]:
    grouped: dict[tuple[int, int, str], list[int]] = {}
    for seat in players:
        assert seat.user_id is not None
        for deal in seat.deals:
            key = (seat.user_id, deal.hand_size, deal.suit or "N")
            counts = grouped.setdefault(key, [0, 0, 0, 0, 0])
            exact = deal.bid == deal.tricks
            counts[0] += 1
            counts[1] += int(exact)
            counts[2] += int(deal.bid == 0)
            counts[3] += int(deal.bid == 0 and exact)
            counts[4] += deal.points
    names = ("deals", "exact", "zero_bids", "zero_exact", "points")
    return [
        {"guild_id": guild_id, "user_id": user, "hand_size": size, "suit": suit}
        | dict(zip(names, counts, strict=True))
        for (user, size, suit), counts in grouped.items()
    ]


# ---- upgrade from schema 1 ---------------------------------------------------------------------


def backfill(db: Connection) -> None:
    """Fill names, places and every aggregate from the results of earlier releases, game by
    game in finishing order (ratings depend on it), through :func:`apply_finished_game`."""
    games = db.execute(
        sa.text(
            "SELECT id, guild_id, channel_id, seats, record FROM games"
            " WHERE id IN (SELECT DISTINCT game_id FROM results) ORDER BY id"
        )
    ).all()
    for game_id, guild_id, channel_id, seats_text, record_text in games:
        rows = db.execute(
            sa.text(
                "SELECT seat, user_id, score, won, bids_exact, bids, finished_at FROM results"
                " WHERE game_id = :game_id ORDER BY seat"
            ),
            {"game_id": game_id},
        ).all()
        try:
            seat_names = [str(entry.get("name", "?")) for entry in json.loads(seats_text)]
        except (TypeError, ValueError, AttributeError):
            seat_names = []
        deals = deal_lines_from_record(record_text)
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
        many(
            db,
            sa.text(
                "UPDATE results SET name = :name, level = :level, place = :place"
                " WHERE game_id = :game_id AND seat = :seat"
            ),
            [
                {
                    "name": s.name,
                    "level": s.level,
                    "place": s.place,
                    "game_id": game_id,
                    "seat": s.seat,
                }
                for s in seats
            ],
        )
        apply_finished_game(
            db,
            game_id=game_id,
            guild_id=guild_id,
            channel_id=channel_id,
            finished_at=str(rows[0][6]),
            seats=seats,
            periods=False,  # their tables come with migration 0005, which sums them
        )
    if games:
        log.info("filled in ratings and statistics of %d earlier game(s)", len(games))
