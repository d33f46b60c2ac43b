"""What a finished game adds to the aggregates and ratings (writer side).

:func:`apply_finished_game` runs inside the transaction of :meth:`Store.save_game` that marks
the game finished and inserts its results: the aggregates, ratings and deal figures therefore
count a game exactly once or not at all, whenever the process dies. A stopped game never
comes here. :func:`backfill` feeds the finished games of a database made by an earlier
release through the same function, in the transaction of migration 0003.

The 7- and 30-day boards are running totals too (``period_totals``, migration 0005): each
holds the sum of the day rows from its window's first day (``period_windows``) on. A finished
game is added to the windows that hold its day; :func:`expire_period` moves a window on,
subtracting the day rows that left it (the store does it in a transaction of its own after
the day's first finished game, or at the first read that finds the window behind);
:func:`rebuild_periods` sums a window afresh (the migration, or a window that moved by a whole
period). Adding and subtracting commute, so a window may be moved on before or after a game
of the day is added: the totals are always the sum of the day rows from the first day on.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection

from bot import rating
from bot.rating import RatedSeat, Skill

from .drivers import driver_of
from .schema import period_totals
from .values import DealLine

log = logging.getLogger(__name__)

SERVER = 0  # the channel_id of a server-wide aggregate row
PERIOD_DAYS = (7, 30)  # the period boards: today and the days before it


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


def _many(db: Connection, statement: sa.Executable, rows: Sequence[dict[str, Any]]) -> None:
    if rows:  # an empty list would run the statement once, without parameters
        db.execute(statement, list(rows))


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
    (:func:`expire_periods`, best in a transaction of its own)."""
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
            common = _figures(guild_id, scope, seat)
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
    _many(db, _UPSERT_TOTALS, totals)
    _many(db, _UPSERT_DAYS, days)
    ordinals = _rate(db, game_id=game_id, guild_id=guild_id, seats=seats)
    _many(db, _UPSERT_DEALS, _deal_rows(guild_id, players))
    if periods:
        _add_to_periods(db, guild_id, channel_id, day, players, ordinals)


def _figures(guild_id: int, scope: int, seat: FinishedSeat) -> dict[str, Any]:
    """One seat's figures of a game, as a row of a server's (scope 0) or channel's totals."""
    return {
        "guild_id": guild_id,
        "channel_id": scope,
        "user_id": seat.user_id,
        "wins": int(seat.won),
        "score_sum": seat.score,
        "bids_exact": seat.bids_exact,
        "bids": seat.bids,
    }


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
    _many(db, _UPSERT_RATING, updates)
    _many(db, _INSERT_HISTORY, updates)
    return {int(row["user_id"]): float(row["ordinal"]) for row in updates}


# ---- the period boards -------------------------------------------------------------------------

_UPSERT_PERIOD = sa.text("""
INSERT INTO period_totals (guild_id, days, channel_id, user_id, games, wins, score_sum,
    bids_exact, bids, avg_score, exact_rate, ordinal)
VALUES (:guild_id, :days, :channel_id, :user_id, 1, :wins, :score_sum, :bids_exact, :bids,
    :avg_score, :exact_rate, :ordinal)
ON CONFLICT (guild_id, days, channel_id, user_id) DO UPDATE SET
    games = period_totals.games + 1,
    wins = period_totals.wins + excluded.wins,
    score_sum = period_totals.score_sum + excluded.score_sum,
    bids_exact = period_totals.bids_exact + excluded.bids_exact,
    bids = period_totals.bids + excluded.bids,
    avg_score = CAST(period_totals.score_sum + excluded.score_sum AS DOUBLE PRECISION)
                / (period_totals.games + 1),
    exact_rate = CASE WHEN period_totals.bids + excluded.bids > 0
                      THEN CAST(period_totals.bids_exact + excluded.bids_exact AS DOUBLE PRECISION)
                           / (period_totals.bids + excluded.bids)
                 END,
    ordinal = excluded.ordinal
""")

# A rating changes only when its player finishes a game: then it is copied to every period row
# of theirs (other channels' too), so that each board's rating order is an index's. The rows
# are found in the player's index, which holds the rating too (revision 0009: without it,
# SQLite walks the server's whole board in the covering rating index). A NULL-safe comparison
# (IS NOT on SQLite, IS DISTINCT FROM on PostgreSQL, as SQLAlchemy renders it).
_COPY_ORDINAL = (
    sa.update(period_totals)
    .where(
        period_totals.c.guild_id == sa.bindparam("g"),
        period_totals.c.user_id == sa.bindparam("u"),
        period_totals.c.ordinal.is_distinct_from(sa.bindparam("o")),
    )
    .values(ordinal=sa.bindparam("o"))
)

# The day rows in [:old, :first) of a server, per channel (0: the server) and player.
_LEFT_WINDOW = """
SELECT channel_id, user_id, SUM(games) AS games, SUM(wins) AS wins,
       SUM(score_sum) AS score_sum, SUM(bids_exact) AS bids_exact, SUM(bids) AS bids
FROM player_days WHERE guild_id = :guild_id AND day >= :old AND day < :first
GROUP BY channel_id, user_id
"""

_SUBTRACT = sa.text(f"""
UPDATE period_totals SET
    games = period_totals.games - g.games,
    wins = period_totals.wins - g.wins,
    score_sum = period_totals.score_sum - g.score_sum,
    bids_exact = period_totals.bids_exact - g.bids_exact,
    bids = period_totals.bids - g.bids,
    avg_score = CASE WHEN period_totals.games > g.games
                     THEN CAST(period_totals.score_sum - g.score_sum AS DOUBLE PRECISION)
                          / (period_totals.games - g.games)
                     ELSE 0.0 END,
    exact_rate = CASE WHEN period_totals.bids > g.bids
                      THEN CAST(period_totals.bids_exact - g.bids_exact AS DOUBLE PRECISION)
                           / (period_totals.bids - g.bids)
                 END
FROM ({_LEFT_WINDOW}) AS g
WHERE period_totals.guild_id = :guild_id AND period_totals.days = :days
  AND period_totals.channel_id = g.channel_id AND period_totals.user_id = g.user_id
""")

# First the rows all of whose games left (found by primary key): deleted, not updated and
# then deleted (each change of a row changes its four sort indexes).
_DROP_GONE = sa.text("""
DELETE FROM period_totals WHERE guild_id = :guild_id AND days = :days
  AND (channel_id, user_id, games) IN (
      SELECT channel_id, user_id, SUM(games) FROM player_days
      WHERE guild_id = :guild_id AND day >= :old AND day < :first GROUP BY channel_id, user_id)
""")

_REBUILD = sa.text("""
INSERT INTO period_totals (guild_id, days, channel_id, user_id, games, wins, score_sum,
    bids_exact, bids, avg_score, exact_rate, ordinal)
SELECT :guild_id, :days, d.channel_id, d.user_id, SUM(d.games), SUM(d.wins), SUM(d.score_sum),
       SUM(d.bids_exact), SUM(d.bids), CAST(SUM(d.score_sum) AS DOUBLE PRECISION) / SUM(d.games),
       CASE WHEN SUM(d.bids) > 0
            THEN CAST(SUM(d.bids_exact) AS DOUBLE PRECISION) / SUM(d.bids) END,
       (SELECT r.ordinal FROM ratings AS r WHERE r.guild_id = :guild_id AND r.user_id = d.user_id)
FROM player_days AS d WHERE d.guild_id = :guild_id AND d.day >= :first
GROUP BY d.channel_id, d.user_id
""")


def lock_server(db: Connection, guild_id: int) -> None:
    """Until the transaction ends, no other process changes this server's aggregates.

    Each of these transactions reads what it then adds to or subtracts from (the ratings, the
    period windows). On SQLite a write transaction already holds the whole database; on
    PostgreSQL two processes (a misconfiguration: one server's tables live on one shard's
    process) would both read the same window and count its days twice, so the transaction
    takes the server's advisory lock (:mod:`.drivers`). Inside one process the store's lock
    serialises them anyway."""
    driver_of(db).lock_server(db, guild_id)


def first_day(today: str, days: int) -> str:
    """The oldest day (YYYY-MM-DD) of a period of ``days`` days ending with ``today``."""
    return (date.fromisoformat(today) - timedelta(days=days - 1)).isoformat()


def _windows(db: Connection, guild_id: int) -> dict[int, str]:
    rows = db.execute(
        sa.text("SELECT days, first_day FROM period_windows WHERE guild_id = :guild_id"),
        {"guild_id": guild_id},
    )
    return {int(days): str(first) for days, first in rows}


def rebuild_periods(db: Connection, guild_id: int, days: int, today: str) -> None:
    """Sum the period ending ``today`` afresh from the day rows (inside a transaction)."""
    window = {"guild_id": guild_id, "days": days, "first": first_day(today, days)}
    db.execute(
        sa.text("DELETE FROM period_totals WHERE guild_id = :guild_id AND days = :days"), window
    )
    db.execute(_REBUILD, window)
    db.execute(
        sa.text(
            "INSERT INTO period_windows (guild_id, days, first_day)"
            " VALUES (:guild_id, :days, :first)"
            " ON CONFLICT (guild_id, days) DO UPDATE SET first_day = excluded.first_day"
        ),
        window,
    )


def expire_period(db: Connection, guild_id: int, days: int, today: str) -> bool:
    """Move a server's window of ``days`` days on to end ``today`` (inside a transaction): the
    day rows that left it are subtracted from its totals, a player left with no game is
    dropped. The work is the rows of the days that left (one day's, once a day), at most a
    period's: a window that moved by a whole period is summed afresh from what is left in it.
    A window already there (or ahead, if the clock went back) is left alone. Returns whether
    anything changed."""
    first = first_day(today, days)
    lock_server(db, guild_id)
    old = _windows(db, guild_id).get(days)
    if old is not None and old >= first:
        return False
    if old is None or (date.fromisoformat(first) - date.fromisoformat(old)).days >= days:
        rebuild_periods(db, guild_id, days, today)
        return True
    window = {"guild_id": guild_id, "days": days, "old": old, "first": first}
    db.execute(_DROP_GONE, window)
    db.execute(_SUBTRACT, window)
    db.execute(
        sa.text(
            "UPDATE period_windows SET first_day = :first"
            " WHERE guild_id = :guild_id AND days = :days"
        ),
        window,
    )
    return True


def expire_periods(db: Connection, guild_id: int, today: str) -> None:
    """:func:`expire_period` for every period (inside one transaction)."""
    for days in PERIOD_DAYS:
        expire_period(db, guild_id, days, today)


def windows_behind(db: Connection, guild_id: int, today: str) -> list[int]:
    """The periods of a server whose window ends before ``today`` (or that have none)."""
    windows = _windows(db, guild_id)
    return [
        days
        for days in PERIOD_DAYS
        if days not in windows or windows[days] < first_day(today, days)
    ]


def _add_to_periods(
    db: Connection,
    guild_id: int,
    channel_id: int,
    day: str,
    players: Sequence[FinishedSeat],
    ordinals: dict[int, float],
) -> None:
    """Add a finished game to the period totals whose window holds its day."""
    rows = []
    for days, first in _windows(db, guild_id).items():
        if day < first:
            continue  # the clock went back past a window: the game is too old for it
        for seat in players:
            assert seat.user_id is not None
            rate = seat.bids_exact / seat.bids if seat.bids else None
            for scope in (SERVER, channel_id):
                rows.append(
                    _figures(guild_id, scope, seat)
                    | {
                        "days": days,
                        "avg_score": float(seat.score),
                        "exact_rate": rate,
                        "ordinal": ordinals.get(seat.user_id),
                    }
                )
    _many(db, _UPSERT_PERIOD, rows)
    _many(
        db,
        _COPY_ORDINAL,
        [
            {"g": guild_id, "u": seat.user_id, "o": ordinals[seat.user_id]}
            for seat in players
            if seat.user_id in ordinals
        ],
    )


def rebuild_all_periods(db: Connection, today: str) -> None:
    """Migration 0005: sum every server's periods ending ``today`` from its day rows."""
    guilds = db.execute(sa.text("SELECT guild_id FROM guild_totals ORDER BY guild_id")).all()
    for (guild_id,) in guilds:
        for days in PERIOD_DAYS:
            rebuild_periods(db, int(guild_id), days, today)


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


def _deal_lines(record: str | None) -> list[tuple[DealLine, ...]]:
    # Imported here: bot.results imports the store's models (and so this package).
    from bot.results import deal_lines_from_record

    return deal_lines_from_record(record)


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
        _many(
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
