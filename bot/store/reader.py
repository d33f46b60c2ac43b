"""The store's read-only connection (``mode=ro`` on SQLite, read-only transactions on
PostgreSQL) and how a read runs on it: one statement at a time, SQL text on the driver
(:mod:`.direct`, the reads are a hot path). The reads themselves are :mod:`.boards` (the
leaderboards) and :mod:`.reads` (statistics, history, games, settings)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from . import direct
from .drivers import Opened, driver_of, rollback

PAGE_SIZE = 10

# Moves a server's period windows on to end a day (Store.expire_periods, on the writer).
Expire = Callable[[int, str], Awaitable[None]]


def page_count(count: int) -> int:
    return max(1, -(-count // PAGE_SIZE))


def utcnow() -> datetime:
    return datetime.now(UTC)


class Reader:
    """The read-only connection: one statement at a time, a task's turn re-entrant."""

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
        self._clock = clock or utcnow
        self._expire = expire
        # One statement at a time on the one connection (SQLAlchemy's connection is not
        # shared between tasks).
        self._lock = asyncio.Lock()
        self._owner: asyncio.Task[Any] | None = None
        self._made = 0

    async def close(self) -> None:
        await self._reader.close()

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
