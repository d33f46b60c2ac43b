"""The 7- and 30-day boards (writer side): running totals (``period_totals``, migration 0005),
each the sum of the day rows from its window's first day (``period_windows``) on. A finished
game is added to the windows that hold its day (:func:`add_to_periods`, in the finish
transaction); :func:`expire_period` moves a window on, subtracting the day rows that left it
(the store does it in a transaction of its own after the day's first finished game, or at the
first read that finds the window behind); :func:`rebuild_periods` sums a window afresh (the
migration, or a window that moved by a whole period). Adding and subtracting commute, so a
window may be moved on before or after a game of the day is added: the totals are always the
sum of the day rows from the first day on.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

import sqlalchemy as sa
from sqlalchemy import Connection

from .drivers import driver_of
from .finished import SERVER, FinishedSeat, figures, many
from .schema import period_totals

PERIOD_DAYS = (7, 30)  # the period boards: today and the days before it


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


def add_to_periods(
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
                    figures(guild_id, scope, seat)
                    | {
                        "days": days,
                        "avg_score": float(seat.score),
                        "exact_rate": rate,
                        "ordinal": ordinals.get(seat.user_id),
                    }
                )
    many(db, _UPSERT_PERIOD, rows)
    many(
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
