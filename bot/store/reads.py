"""Reads for leaderboards, player statistics, history, export and channel settings.

They run on their own read-only connection (``mode=ro``). In WAL mode a reader sees the last
committed state and neither waits for the writer nor makes it wait, and aiosqlite runs each
connection in its own thread: a leaderboard being read never delays a move being committed,
and no read takes the writer's lock. Every query reads the aggregates kept by
:mod:`bot.store.results` through an index (``EXPLAIN QUERY PLAN`` is checked by the tests);
none goes through all results.

A 7- or 30-day board reads the running period totals (``period_totals``, kept by
:mod:`bot.store.results`) through an index of its sort, as the all-time board does. When the
period's window is behind the day being read (no game finished in the server yet today), the
reader asks the writer to move it on first (:meth:`Store.expire_periods`, one short
transaction); only a board of a day before the window's (a ``now`` in the past) is summed
afresh from the day rows.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.model import HISTORY_POST_KEYS, Table
from bot.result_pages import (
    SCOPE_LABELS,
    SORT_LABELS,
    BoardPage,
    BoardRow,
    HistoryEntry,
    HistoryPage,
    HistorySeat,
    Period,
    PlayerGame,
    PlayerStats,
    Scope,
    SortKey,
    SplitStat,
)

from . import direct
from .drivers import Opened, driver_of, rollback
from .failures import StoreError
from .rows import NO_GAME_ID, SELECT_GAME, game_from_row
from .schema import games

PAGE_SIZE = 10
TREND_GAMES = 10
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


def _pages(count: int) -> int:
    return max(1, -(-count // PAGE_SIZE))


RANKINGS_KEPT = 8  # period rankings kept (temporary tables of about 0.5 MB at 10,000 players)


# Moves a server's period windows on to end a day (Store.expire_periods, on the writer).
Expire = Callable[[int, str], Awaitable[None]]


def _utcnow() -> datetime:
    return datetime.now(UTC)


def in_place(channel_id: int, parent_id: int | None) -> sa.ColumnElement[bool]:
    """The games of a place (bot/places.py): those kept under it and, in a thread, the one
    whose lobby opened it (a thread opened from a message takes that message's id). Written
    as the channel among two, then which of them, so that the channel's index finds both."""
    if parent_id is None:
        return games.c.channel_id == channel_id
    return sa.and_(
        games.c.channel_id.in_((channel_id, parent_id)),
        sa.or_(games.c.channel_id == channel_id, games.c.message_id == channel_id),
    )


def _place_sql(thread: bool, place: str, parent: str) -> str:
    """:func:`in_place` as SQL text, for the statements written as text: ``place`` and
    ``parent`` name their parameters."""
    if not thread:
        return f"g.channel_id = {place}"
    return (
        f"g.channel_id IN ({place}, {parent})"
        f" AND (g.channel_id = {place} OR g.message_id = {place})"
    )


class Reads:
    """The read-only side of the store (made by :meth:`Store.open`)."""

    def __init__(
        self,
        reader: Opened,
        *,
        clock: Callable[[], datetime] | None = None,
        expire: Expire | None = None,
    ) -> None:
        self._reader = reader
        self._db: AsyncConnection = reader.conn
        self._driver = driver_of(reader.conn)
        self._clock = clock or _utcnow
        self._expire = expire
        # Kept period rankings: key -> (temporary table, players).
        self._rankings: OrderedDict[tuple[Any, ...], tuple[str, int]] = OrderedDict()
        self._ranking_lock = asyncio.Lock()  # reads of rankings wait for each other only
        # One statement at a time on the one connection (SQLAlchemy's connection is not
        # shared between tasks).
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._made = 0
        self._connection = reader.generation  # see _forget_lost_rankings

    async def close(self) -> None:
        await self._reader.close()

    def _forget_lost_rankings(self) -> None:
        """After a reconnection (the server dropped the session) the kept rankings'
        temporary tables are gone."""
        if self._reader.generation != self._connection:
            self._rankings.clear()
            self._connection = self._reader.generation

    @contextlib.asynccontextmanager
    async def _turn(self) -> AsyncIterator[None]:
        """The connection for this task (re-entrant: a ranking's statements run inside its
        scratch transaction's turn)."""
        task = asyncio.current_task()
        if self._owner is task:
            yield
            return
        async with self._lock:
            self._owner = task
            try:
                yield
            finally:
                self._owner = None

    @contextlib.asynccontextmanager
    async def _scratch(self) -> AsyncIterator[None]:
        """Around the making and dropping of temporary tables (see drivers.Driver.scratch)."""
        async with self._turn(), self._driver.scratch(self._db):
            yield

    async def _run(self, sql: str | sa.Executable, params: Sequence[Any]) -> list[Any]:
        """The rows of one statement: SQL text on the driver (direct.py: the reads are a hot
        path), a construct (an IN list) through SQLAlchemy."""
        values = {f"p{index}": value for index, value in enumerate(params, start=1)}
        try:
            if isinstance(sql, str):
                _, rows = await direct.run(self._db, sql, values, returns_rows=True)
                return rows
            result = await self._db.execute(sql, values)
            return list(result) if result.returns_rows else []
        except BaseException:
            with contextlib.suppress(Exception):
                await rollback(self._db)
            raise

    async def _all(self, sql: str | sa.Executable, params: Sequence[Any] = ()) -> list[Any]:
        """Every row of ``sql``, whose parameters are named ``:p1``, ``:p2``... in the order
        of ``params``."""
        async with self._turn():
            return await self._run(sql, params)

    async def _one(self, sql: str | sa.Executable, params: Sequence[Any] = ()) -> Any:
        rows = await self._all(sql, params)
        return rows[0] if rows else None

    async def explain(self, sql: str, params: Sequence[Any] = ()) -> list[str]:
        """SQLite's EXPLAIN QUERY PLAN of a statement (for the tests and the benchmark)."""
        return [str(row[3]) for row in await self._all("EXPLAIN QUERY PLAN " + sql, params)]

    # ------------------------------------------------------------------ leaderboard

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
        pages = _pages(players)
        page = min(max(page, 0), pages - 1)
        rows = await self._all(
            self.period_board_sql(sort), (*where, days, PAGE_SIZE, page * PAGE_SIZE)
        )
        board = [_board_row(page * PAGE_SIZE + i + 1, row) for i, row in enumerate(rows)]
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
        pages = _pages(players)
        page = min(max(page, 0), pages - 1)
        rows = await self._all(self.board_sql(scope, sort), (*where, PAGE_SIZE, page * PAGE_SIZE))
        board = [_board_row(page * PAGE_SIZE + i + 1, row) for i, row in enumerate(rows)]
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
        pages = _pages(players)
        page = min(max(page, 0), pages - 1)
        first = page * PAGE_SIZE
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
            (*where, first, first + PAGE_SIZE),
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

    async def player_stats(self, *, guild_id: int, user_id: int) -> PlayerStats | None:
        """A player's figures in a server, or None if they never finished a game there."""
        totals = await self._one(
            "SELECT name, games, wins, avg_score, best_score, best_game_id, exact_rate"
            " FROM player_totals WHERE guild_id = :p1 AND channel_id = 0 AND user_id = :p2",
            (guild_id, user_id),
        )
        if totals is None:
            return None
        rated = await self._one(
            "SELECT ordinal FROM ratings WHERE guild_id = :p1 AND user_id = :p2",
            (guild_id, user_id),
        )
        ordinal = float(rated[0]) if rated else None
        rank = None
        if ordinal is not None:
            ahead = await self._one(
                "SELECT COUNT(*) FROM ratings WHERE guild_id = :p1 AND ordinal > :p2",
                (guild_id, ordinal),
            )
            rank = int(ahead[0]) + 1
        everyone = await self._one(
            "SELECT COUNT(*) FROM player_totals WHERE guild_id = :p1 AND channel_id = 0",
            (guild_id,),
        )
        trend = await self._all(
            "SELECT ordinal FROM rating_history WHERE guild_id = :p1 AND user_id = :p2"
            " ORDER BY game_id DESC LIMIT :p3",
            (guild_id, user_id, TREND_GAMES),
        )
        deals = await self._all(
            "SELECT hand_size, trump, deals, exact, zero_bids, zero_exact, points"
            " FROM deal_totals WHERE guild_id = :p1 AND user_id = :p2",
            (guild_id, user_id),
        )
        by_size: dict[int, list[int]] = {}
        by_trump: dict[str, list[int]] = {}
        zero_bids = zero_exact = 0
        for size, suit, count, exact, zeros, zeros_exact, points in deals:
            for bucket in (
                by_size.setdefault(size, [0, 0, 0]),
                by_trump.setdefault(suit, [0, 0, 0]),
            ):
                bucket[0] += count
                bucket[1] += exact
                bucket[2] += points
            zero_bids += zeros
            zero_exact += zeros_exact
        return PlayerStats(
            user_id=user_id,
            name=str(totals[0]),
            games=int(totals[1]),
            wins=int(totals[2]),
            average_score=float(totals[3]),
            best_score=int(totals[4]),
            best_game_id=int(totals[5]),
            exact_bid_rate=None if totals[6] is None else float(totals[6]),
            zero_bids=zero_bids,
            zero_exact=zero_exact,
            rating=ordinal,
            rating_rank=rank,
            rated_players=int(everyone[0]) if everyone else 0,
            trend=[float(row[0]) for row in reversed(trend)],
            by_hand_size=[SplitStat(str(k), *v) for k, v in sorted(by_size.items())],
            by_trump=[SplitStat(k, *v) for k, v in sorted(by_trump.items())],
        )

    async def rating_history(
        self, *, guild_id: int, user_id: int, limit: int = 500
    ) -> list[tuple[int, float]]:
        """A player's rating (ordinal) after each of their last ``limit`` rated games in a
        server, oldest first, by game id (the primary key's order: one index range)."""
        rows = await self._all(
            "SELECT game_id, ordinal FROM rating_history WHERE guild_id = :p1 AND user_id = :p2"
            " ORDER BY game_id DESC LIMIT :p3",
            (guild_id, user_id, limit),
        )
        return [(int(game), float(ordinal)) for game, ordinal in reversed(rows)]

    async def player_games(
        self, *, guild_id: int, user_id: int, limit: int = PAGE_SIZE
    ) -> list[PlayerGame]:
        """A player's last finished games in a server, newest first (results_guild_user_game)."""
        rows = await self._all(
            "SELECT game_id, finished_at, score, place, won FROM results"
            " WHERE guild_id = :p1 AND user_id = :p2 ORDER BY game_id DESC LIMIT :p3",
            (guild_id, user_id, limit),
        )
        return [
            PlayerGame(int(game), datetime.fromisoformat(finished), int(score), place, bool(won))
            for game, finished, score, place, won in rows
        ]

    # ------------------------------------------------------------------ history and export

    # The link of a game: its final standings (or, stopped, its closing notice) as delivered
    # by the publisher (posts, migration 0002), else its table message.
    _HISTORY = (
        "SELECT g.id, g.status, g.created_at, g.updated_at,"
        " COALESCE(p.message_id, g.message_id), g.seats, COALESCE(p.channel_id, g.channel_id)"
        " FROM games AS g LEFT JOIN posts AS p ON p.game_id = g.id"
        " AND p.key = CASE g.status WHEN 'finished' THEN :p1 ELSE :p2 END"
        " WHERE {place} AND g.status IN ('finished', 'stopped')"
        " ORDER BY g.id DESC LIMIT :p4 OFFSET :p5"
    )
    # A channel's games, and a thread's (bot/places.py): :p6 the thread's channel.
    HISTORY_SQL = _HISTORY.format(place=_place_sql(False, ":p3", ":p6"))
    HISTORY_IN_THREAD_SQL = _HISTORY.format(place=_place_sql(True, ":p3", ":p6"))

    # The results of a page's finished games: a slot per game of a page (a spare slot names no
    # game), so that the statement is one text run on the driver (direct.py), not an IN list
    # SQLAlchemy builds at each read (which cost the page a quarter more).
    HISTORY_RESULTS_SQL = (
        "SELECT game_id, name, user_id, score, won FROM results WHERE game_id IN ("
        + ", ".join(f":p{slot}" for slot in range(1, PAGE_SIZE + 1))
        + ") ORDER BY game_id, seat"
    )

    async def history(
        self, *, channel_id: int, page: int = 0, parent_id: int | None = None
    ) -> HistoryPage:
        """A place's finished and stopped games, newest first: a channel's, or a thread's
        (``parent_id``: its channel; bot/places.py)."""
        thread = parent_id is not None
        more = (parent_id,) if thread else ()
        count_row = await self._one(
            f"SELECT COUNT(*) FROM games AS g WHERE {_place_sql(thread, ':p1', ':p2')}"
            " AND g.status IN ('finished', 'stopped')",
            (channel_id, *more),
        )
        count = int(count_row[0]) if count_row else 0
        pages = _pages(count)
        page = min(max(page, 0), pages - 1)
        games = await self._all(
            self.HISTORY_IN_THREAD_SQL if thread else self.HISTORY_SQL,
            (*HISTORY_POST_KEYS, channel_id, PAGE_SIZE, page * PAGE_SIZE, *more),
        )
        finished = [row[0] for row in games if row[1] == "finished"]
        results: dict[int, list[HistorySeat]] = {}
        if finished:
            spare = (NO_GAME_ID,) * (PAGE_SIZE - len(finished))
            for game_id, name, user_id, score, won in await self._all(
                self.HISTORY_RESULTS_SQL, (*finished, *spare)
            ):
                results.setdefault(game_id, []).append(
                    HistorySeat(str(name or "?"), user_id, int(score), bool(won))
                )
        entries = []
        for game_id, status, created, updated, message_id, seats_text, link_channel in games:
            seats = results.get(game_id)
            if seats is None:
                seats = [
                    HistorySeat(str(seat.get("name", "?")), seat.get("user_id"), None, False)
                    for seat in _json_list(seats_text)
                ]
            entries.append(
                HistoryEntry(
                    game_id=game_id,
                    status=status,
                    started_at=datetime.fromisoformat(created),
                    ended_at=datetime.fromisoformat(updated),
                    message_id=message_id,
                    link_channel_id=link_channel,
                    seats=seats,
                )
            )
        return HistoryPage(page=page, pages=pages, games=count, entries=entries)

    async def game(self, game_id: int) -> Table | None:
        """A stored game, read on the read-only connection (export of any game)."""
        row = await self._one(SELECT_GAME.where(games.c.id == game_id))
        return game_from_row(row) if row else None

    async def latest_closed_game(
        self, channel_id: int, parent_id: int | None = None
    ) -> Table | None:
        """A place's last finished game: a channel's, or a thread's (``parent_id``: its
        channel; bot/places.py)."""
        row = await self._one(
            SELECT_GAME.where(
                in_place(channel_id, parent_id),
                # Both conditions: the first is the partial index's (games_channel_closed).
                games.c.status.in_(("finished", "stopped")),
                games.c.status == "finished",
            )
            .order_by(games.c.id.desc())
            .limit(1)
        )
        return game_from_row(row) if row else None

    async def board_channel(self, channel_id: int, parent_id: int | None = None) -> int:
        """The channel whose leaderboard a place shows: a thread's own, unless a table's lobby
        opened it (its games count under the lobby's channel; bot/places.py)."""
        if parent_id is None:
            return channel_id
        row = await self._one(
            sa.select(games.c.id)
            .where(games.c.channel_id == parent_id, games.c.message_id == channel_id)
            .limit(1)
        )
        return channel_id if row is None else parent_id

    # ------------------------------------------------------------------ channel settings

    async def channel_settings(self, channel_id: int) -> dict[str, Any]:
        row = await self._one(
            "SELECT settings FROM channel_settings WHERE channel_id = :p1", (channel_id,)
        )
        if row is None:
            return {}
        value = json.loads(row[0])
        return value if isinstance(value, dict) else {}


def _json_list(text: str | None) -> list[dict[str, Any]]:
    try:
        value = json.loads(text or "[]")
    except ValueError:
        return []
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


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
