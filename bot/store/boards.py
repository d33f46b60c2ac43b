"""The leaderboards, read on the read-only connection (:mod:`.reader`): every board reads the
aggregates kept by :mod:`.results` through an index (``EXPLAIN QUERY PLAN`` is checked by the
tests); none goes through all results.

A 7- or 30-day board reads the running period totals (``period_totals``, kept by
:mod:`.periods`) through an index of its sort, as the all-time board does. When the period's
window is behind the day being read (no game finished in the server yet today), the reader
asks the writer to move it on first (:meth:`Store.expire_periods`, one short transaction);
only a board of a day before the window's (a ``now`` in the past) is summed afresh from the
day rows.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from bot.result_pages import (
    SCOPE_LABELS,
    SORT_LABELS,
    BoardPage,
    BoardRow,
    Period,
    Scope,
    SortKey,
)

from . import reader
from .failures import StoreError
from .reader import Reader, page_count

SCOPES: tuple[Scope, ...] = tuple(SCOPE_LABELS)
PERIODS: dict[Period, int | None] = {"all": None, "30d": 30, "7d": 7}
SORTS: tuple[SortKey, ...] = tuple(SORT_LABELS)
# ORDER BY of each sort: the key, then more games, then the lower user id (a stable order).
# For the all-time board each matches an index of player_totals (or ratings_board).
_ORDER: dict[SortKey, tuple[str, str]] = {
    "rating": ("r.ordinal", "t.games"),
    "wins": ("t.wins", "t.games"),
    "average": ("t.avg_score", "t.games"),
    "exact": ("t.exact_rate", "t.games"),
}


# The column of period_totals each sort orders by (each has an index in that order).
_PERIOD_KEY: dict[SortKey, str] = {
    "rating": "ordinal",
    "wins": "wins",
    "average": "avg_score",
    "exact": "exact_rate",
}

RANKINGS_KEPT = 8  # period rankings kept (temporary tables of about 0.5 MB at 10,000 players)


class Boards(Reader):
    """The all-time and period leaderboards of a server or a channel."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Kept period rankings: key -> (temporary table, players).
        self._rankings: OrderedDict[tuple[Any, ...], tuple[str, int]] = OrderedDict()
        self._ranking_lock = asyncio.Lock()  # reads of rankings wait for each other only
        self._connection = self._reader.generation  # see _forget_lost_rankings

    def _forget_lost_rankings(self) -> None:
        """After a reconnection (the server dropped the session) the kept rankings'
        temporary tables are gone."""
        if self._reader.generation != self._connection:
            self._rankings.clear()
            self._connection = self._reader.generation

    async def leaderboard(
        self,
        *,
        guild_id: int,
        channel_id: int,
        scope: Scope = "channel",
        period: Period = "all",
        sort: SortKey = "rating",
        page: int = 0,
        viewer_id: int | None = None,
        now: datetime | None = None,
    ) -> BoardPage:
        """One page of players, best first, and the viewer's own row when it is elsewhere.
        A period is today (UTC, of ``now``, default the store's clock) and the days before."""
        if scope not in SCOPES or period not in PERIODS or sort not in SORTS:
            raise ValueError(f"unknown leaderboard option: {scope}/{period}/{sort}")
        where = (guild_id, 0 if scope == "server" else channel_id)
        days = PERIODS[period]
        if days is None:
            return await self._board_all(where, scope, sort, page, viewer_id)
        moment = now or self._clock()
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        today = moment.astimezone(UTC).date()
        since = today - timedelta(days=days - 1)
        first = await self._window(guild_id, days)
        if first is not None and first < since.isoformat() and self._expire is not None:
            # No game finished in the server yet today: the writer moves the window on.
            # If the database cannot be written now (logged by the store), the board is
            # counted from the results of the period instead: slower, the same numbers.
            with contextlib.suppress(StoreError):
                await self._expire(guild_id, today.isoformat())
            first = await self._window(guild_id, days)
        if first == since.isoformat():
            return await self._board_kept(where, days, scope, period, sort, page, viewer_id)
        return await self._board_period(where, scope, period, sort, page, viewer_id, since)

    async def _window(self, guild_id: int, days: int) -> str | None:
        row = await self._one(
            "SELECT first_day FROM period_windows WHERE guild_id = :p1 AND days = :p2",
            (guild_id, days),
        )
        return None if row is None else str(row[0])

    def period_board_sql(self, sort: SortKey) -> str:
        """The page query of a period board from the kept totals (public for the EXPLAIN
        QUERY PLAN test): as :meth:`board_sql`, the page's user ids are picked from the
        covering index of the sort, then only the page's rows are looked up. Parameters:
        guild, channel (0: server), days, limit, offset."""
        key = _PERIOD_KEY[sort]
        return (
            "SELECT t.user_id, n.name, t.games, t.wins, t.avg_score, t.exact_rate, NULL,"
            f" t.ordinal FROM (SELECT user_id, {key} AS k, games AS g FROM period_totals"
            " WHERE guild_id = :p1 AND days = :p3 AND channel_id = :p2"
            f" ORDER BY {key} DESC NULLS LAST, games DESC NULLS LAST, user_id"
            " LIMIT :p4 OFFSET :p5) AS p"
            " JOIN period_totals AS t ON t.guild_id = :p1 AND t.days = :p3"
            " AND t.channel_id = :p2 AND t.user_id = p.user_id"
            " JOIN player_totals AS n"
            " ON n.guild_id = :p1 AND n.channel_id = :p2 AND n.user_id = p.user_id"
            " ORDER BY p.k DESC NULLS LAST, p.g DESC NULLS LAST, p.user_id"
        )

    def period_rank_sql(self, sort: SortKey, known: bool) -> str:
        """How many players come before one in a period board (public for the EXPLAIN QUERY
        PLAN test): three index ranges of the sort's index (a better key; the same key and
        more games; the same key and games and a lower user id), as an OR of them would walk
        the whole board. With ``known`` False the player's key is NULL (sorted last), and the
        first range is counted as every player but those with a NULL key. Parameters: guild,
        channel, days, key, games, user id, and (not ``known``) players."""
        key = _PERIOD_KEY[sort]
        base = (
            "SELECT COUNT(*) FROM period_totals"
            " WHERE guild_id = :p1 AND days = :p3 AND channel_id = :p2"
        )
        same = f"{key} = :p4" if known else f"{key} IS NULL"
        better = f"({base} AND {key} > :p4)" if known else f"(:p7 - ({base} AND {key} IS NULL))"
        return (
            f"SELECT {better} + ({base} AND {same} AND games > :p5)"
            f" + ({base} AND {same} AND games = :p5 AND user_id < :p6)"
        )

    async def _board_kept(
        self,
        where: tuple[int, int],
        days: int,
        scope: Scope,
        period: Period,
        sort: SortKey,
        page: int,
        viewer_id: int | None,
    ) -> BoardPage:
        guild_id, channel = where
        count_row = await self._one(
            "SELECT COUNT(*) FROM period_totals WHERE guild_id = :p1 AND days = :p2"
            " AND channel_id = :p3",
            (guild_id, days, channel),
        )
        players = int(count_row[0]) if count_row else 0
        pages = page_count(players)
        page = min(max(page, 0), pages - 1)
        rows = await self._all(
            self.period_board_sql(sort), (*where, days, reader.PAGE_SIZE, page * reader.PAGE_SIZE)
        )
        board = [_board_row(page * reader.PAGE_SIZE + i + 1, row) for i, row in enumerate(rows)]
        viewer = None
        if viewer_id is not None and all(row.user_id != viewer_id for row in board):
            mine = await self._one(
                "SELECT t.user_id, n.name, t.games, t.wins, t.avg_score, t.exact_rate, NULL,"
                " t.ordinal FROM period_totals AS t JOIN player_totals AS n"
                " ON n.guild_id = t.guild_id AND n.channel_id = t.channel_id"
                " AND n.user_id = t.user_id"
                " WHERE t.guild_id = :p1 AND t.days = :p3 AND t.channel_id = :p2"
                " AND t.user_id = :p4",
                (*where, days, viewer_id),
            )
            if mine is not None:
                value = {"rating": mine[7], "wins": mine[3], "average": mine[4], "exact": mine[5]}
                key = value[sort]
                ahead = await self._one(
                    self.period_rank_sql(sort, key is not None),
                    (*where, days, key, mine[2], viewer_id)
                    + (() if key is not None else (players,)),
                )
                viewer = _board_row(int(ahead[0]) + 1, mine)
        return BoardPage(scope, period, sort, page, pages, players, board, viewer)

    def board_sql(self, scope: Scope, sort: SortKey) -> str:
        """The all-time page query (public for the EXPLAIN QUERY PLAN test).

        The page's user ids are picked first from an index that holds the order (a covering
        index, so OFFSET skips index entries only); only the ten rows of the page are then
        looked up. With the lookups in the outer query, a deep page would join every row it
        skips (10,000 lookups for page 1,000).
        """
        columns = (
            "t.user_id, t.name, t.games, t.wins, t.avg_score, t.exact_rate, t.best_score, r.ordinal"
        )
        if sort == "rating" and scope == "server":
            # The server's ratings in order (covering index ratings_board).
            return (
                f"SELECT {columns} FROM ("
                "SELECT user_id, ordinal FROM ratings WHERE guild_id = :p1 AND :p2 = 0"
                " ORDER BY ordinal DESC NULLS LAST, user_id LIMIT :p3 OFFSET :p4) AS p"
                " JOIN ratings AS r ON r.guild_id = :p1 AND r.user_id = p.user_id"
                " JOIN player_totals AS t"
                " ON t.guild_id = :p1 AND t.channel_id = 0 AND t.user_id = p.user_id"
                " ORDER BY p.ordinal DESC NULLS LAST, p.user_id"
            )
        if sort == "rating":
            # A channel's players by their server rating: sorted, as no index holds it.
            return (
                f"SELECT {columns} FROM player_totals AS t LEFT JOIN ratings AS r"
                " ON r.guild_id = t.guild_id AND r.user_id = t.user_id"
                " WHERE t.guild_id = :p1 AND t.channel_id = :p2"
                " ORDER BY r.ordinal DESC NULLS LAST, t.games DESC NULLS LAST, t.user_id"
                " LIMIT :p3 OFFSET :p4"
            )
        column = {"wins": "wins", "average": "avg_score", "exact": "exact_rate"}[sort]
        order = f"{column} DESC NULLS LAST, games DESC NULLS LAST, user_id"
        return (
            f"SELECT {columns} FROM ("
            f"SELECT user_id, {column} AS k, games AS g FROM player_totals"
            f" WHERE guild_id = :p1 AND channel_id = :p2 ORDER BY {order}"
            " LIMIT :p3 OFFSET :p4) AS p"
            " JOIN player_totals AS t"
            " ON t.guild_id = :p1 AND t.channel_id = :p2 AND t.user_id = p.user_id"
            " LEFT JOIN ratings AS r ON r.guild_id = :p1 AND r.user_id = p.user_id"
            " ORDER BY p.k DESC NULLS LAST, p.g DESC NULLS LAST, p.user_id"
        )

    async def _board_all(
        self,
        where: tuple[int, int],
        scope: Scope,
        sort: SortKey,
        page: int,
        viewer_id: int | None,
    ) -> BoardPage:
        count_row = await self._one(
            "SELECT COUNT(*) FROM player_totals WHERE guild_id = :p1 AND channel_id = :p2", where
        )
        players = int(count_row[0]) if count_row else 0
        pages = page_count(players)
        page = min(max(page, 0), pages - 1)
        rows = await self._all(
            self.board_sql(scope, sort), (*where, reader.PAGE_SIZE, page * reader.PAGE_SIZE)
        )
        board = [_board_row(page * reader.PAGE_SIZE + i + 1, row) for i, row in enumerate(rows)]
        viewer = None
        if viewer_id is not None and all(row.user_id != viewer_id for row in board):
            viewer = await self._viewer_all(where, sort, viewer_id)
        return BoardPage(scope, "all", sort, page, pages, players, board, viewer)

    async def _viewer_all(
        self, where: tuple[int, int], sort: SortKey, viewer_id: int
    ) -> BoardRow | None:
        mine = await self._one(
            "SELECT t.user_id, t.name, t.games, t.wins, t.avg_score, t.exact_rate, t.best_score,"
            " r.ordinal FROM player_totals AS t LEFT JOIN ratings AS r"
            " ON r.guild_id = t.guild_id AND r.user_id = t.user_id"
            " WHERE t.guild_id = :p1 AND t.channel_id = :p2 AND t.user_id = :p3",
            (*where, viewer_id),
        )
        if mine is None:
            return None
        value = {"rating": mine[7], "wins": mine[3], "average": mine[4], "exact": mine[5]}[sort]
        games, me = mine[2], viewer_id
        # The players before the viewer in the board's order, counted as two index ranges
        # (a better key; the same key and a better tie-break): an OR of the two would make
        # SQLite walk every player of the board. A missing key sorts last, as NULL does in a
        # descending ORDER BY.
        if sort == "rating":
            if where[1] == 0:
                # The server board's order is ratings_board's: ordinal, then user id.
                sql = (
                    "SELECT (SELECT COUNT(*) FROM ratings WHERE guild_id = :p1 AND ordinal > :p2)"
                    " + (SELECT COUNT(*) FROM ratings"
                    " WHERE guild_id = :p1 AND ordinal = :p2 AND user_id < :p3)"
                )
                params: tuple[Any, ...] = (where[0], value, me)
            else:
                sql = (
                    "SELECT COUNT(*) FROM player_totals AS t JOIN ratings AS r"
                    " ON r.guild_id = t.guild_id AND r.user_id = t.user_id"
                    " WHERE t.guild_id = :p1 AND t.channel_id = :p2 AND (r.ordinal > :p3"
                    " OR (r.ordinal = :p3"
                    " AND (t.games > :p4 OR (t.games = :p4 AND t.user_id < :p5))))"
                )
                params = (*where, value, games, me)
        else:
            column = {"wins": "wins", "average": "avg_score", "exact": "exact_rate"}[sort]
            better, same = (f"{column} IS NOT NULL", f"{column} IS NULL")
            if value is not None:
                better, same = f"{column} > :p3", f"{column} = :p3"
            sql = (
                "SELECT (SELECT COUNT(*) FROM player_totals"
                f" WHERE guild_id = :p1 AND channel_id = :p2 AND {better})"
                " + (SELECT COUNT(*) FROM player_totals"
                f" WHERE guild_id = :p1 AND channel_id = :p2 AND {same}"
                " AND (games > :p4 OR (games = :p4 AND user_id < :p5)))"
            )
            params = (*where, value, games, me)
        if value is None and sort == "rating":
            count = await self._one(
                "SELECT COUNT(*) FROM player_totals WHERE guild_id = :p1 AND channel_id = :p2",
                where,
            )
            return _board_row(int(count[0]), mine)
        count = await self._one(sql, params)
        return _board_row(int(count[0]) + 1, mine)

    async def _board_period(
        self,
        where: tuple[int, int],
        scope: Scope,
        period: Period,
        sort: SortKey,
        page: int,
        viewer_id: int | None,
        since: date,
    ) -> BoardPage:
        """A period board summed afresh from the day rows: only for a day before the kept
        window's (a ``now`` in the past), or a store without the writer's expiry."""
        table, players = await self._period_ranking(where, period, sort, since.isoformat())
        pages = page_count(players)
        page = min(max(page, 0), pages - 1)
        first = page * reader.PAGE_SIZE
        select = (
            "SELECT k.user_id, n.name, k.games, k.wins, k.avg_score, k.exact_rate, NULL,"
            f" q.ordinal, k.position FROM {table} AS k"
            # CROSS JOIN keeps the ranking as the outer loop in SQLite (with no statistics on
            # the temporary table it would otherwise walk every player_totals row); the join
            # condition is in the WHERE, where both engines take it.
            " CROSS JOIN player_totals AS n"
            " LEFT JOIN ratings AS q ON q.guild_id = :p1 AND q.user_id = k.user_id"
            " WHERE n.guild_id = :p1 AND n.channel_id = :p2 AND n.user_id = k.user_id"
        )
        # Two lookups, a rowid range and the user index (an OR of both scans the table).
        rows = await self._all(
            select + " AND k.position > :p3 AND k.position <= :p4 ORDER BY k.position",
            (*where, first, first + reader.PAGE_SIZE),
        )
        board = [_board_row(int(r[8]), r) for r in rows]
        viewer = None
        if viewer_id is not None and all(row.user_id != viewer_id for row in board):
            mine = await self._one(select + " AND k.user_id = :p3", (*where, viewer_id))
            viewer = _board_row(int(mine[8]), mine) if mine else None
        return BoardPage(scope, period, sort, page, pages, players, board, viewer)

    async def forget_rankings(self) -> None:
        """Drop the kept period rankings (the benchmark's cold reads)."""
        async with self._ranking_lock, self._scratch():
            while self._rankings:
                _, (table, _) = self._rankings.popitem()
                await self._all(f"DROP TABLE {table}")

    async def _period_ranking(
        self, where: tuple[int, int], period: Period, sort: SortKey, since: str
    ) -> tuple[str, int]:
        """A temporary table of every player of a period in board order (its rowid is the
        position), and how many there are. No index can hold an order over a sliding window
        of days, so the period's day rows are summed and sorted: the one costly read (tens of
        milliseconds at a month of 100,000 games a year), done by SQLite on the reader's
        thread, and never brought into Python (that would hold the GIL, and the event loop,
        for every row). The table is kept until the server's next finished game
        (guild_totals.games) or the next day, so paging through it, or a second viewer, costs
        a few index lookups. Temporary tables live in the reader's own temp database: the
        read-only connection can make them."""
        count = await self._one("SELECT games FROM guild_totals WHERE guild_id = :p1", (where[0],))
        generation = int(count[0]) if count else 0
        self._forget_lost_rankings()
        key = (where, period, sort, since, generation)
        async with self._ranking_lock, self._scratch():
            kept = self._rankings.get(key)
            if kept is not None:
                self._rankings.move_to_end(key)
                return kept
            self._made += 1
            table = f"ranking_{self._made}"
            order_key, games = _ORDER[sort]
            rating_join = (
                "LEFT JOIN ratings AS r ON r.guild_id = :p1 AND r.user_id = t.user_id"
                if sort == "rating"
                else ""
            )
            await self._all(
                # position: SQLite's rowid (INTEGER PRIMARY KEY); ids need BIGINT elsewhere.
                f"CREATE TEMP TABLE {table} (position INTEGER PRIMARY KEY, user_id BIGINT,"
                " games BIGINT, wins BIGINT, avg_score DOUBLE PRECISION,"
                " exact_rate DOUBLE PRECISION)"
            )
            # Each row's position is its number in the board's order (in SQLite the rowid).
            await self._all(
                f"""
                INSERT INTO {table} (position, user_id, games, wins, avg_score, exact_rate)
                SELECT ROW_NUMBER() OVER (
                           ORDER BY {order_key} DESC NULLS LAST, {games} DESC NULLS LAST,
                                    t.user_id),
                       t.user_id, t.games, t.wins, t.avg_score, t.exact_rate FROM (
                    SELECT user_id, SUM(games) AS games, SUM(wins) AS wins,
                           CAST(SUM(score_sum) AS DOUBLE PRECISION) / SUM(games) AS avg_score,
                           CASE WHEN SUM(bids) > 0
                                THEN CAST(SUM(bids_exact) AS DOUBLE PRECISION) / SUM(bids)
                           END AS exact_rate
                    FROM player_days
                    WHERE guild_id = :p1 AND channel_id = :p2 AND day >= :p3
                    GROUP BY user_id
                ) AS t {rating_join}
                ORDER BY {order_key} DESC NULLS LAST, {games} DESC NULLS LAST, t.user_id
                """,
                (*where, since),
            )
            # Unqualified: in the temporary schema of its table, on both engines.
            await self._all(f"CREATE INDEX {table}_user ON {table} (user_id)")
            total = await self._one(f"SELECT COALESCE(MAX(position), 0) FROM {table}")
            kept = (table, int(total[0]))
            self._rankings[key] = kept
            while len(self._rankings) > RANKINGS_KEPT:
                _, (old, _) = self._rankings.popitem(last=False)
                await self._all(f"DROP TABLE {old}")
            return kept

    # ------------------------------------------------------------------ player statistics


def _board_row(rank: int, row: Sequence[Any]) -> BoardRow:
    return BoardRow(
        rank=rank,
        user_id=int(row[0]),
        name=str(row[1]),
        games=int(row[2]),
        wins=int(row[3]),
        average_score=float(row[4]),
        exact_bid_rate=None if row[5] is None else float(row[5]),
        best_score=None if row[6] is None else int(row[6]),
        rating=None if row[7] is None else float(row[7]),
    )
