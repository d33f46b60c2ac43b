"""SQLAlchemy's lower level, for the hot paths: a statement is rendered once per engine by
SQLAlchemy (its dialect writes the SQL and the parameter style: no SQL is rewritten by hand)
and then run on the driver's own connection (aiosqlite's or psycopg's), without SQLAlchemy's
execution layer around each call.

Measured side by side (docs/benchmarks.md, "The store on SQLAlchemy"): through SQLAlchemy's
async execution a move's commit cost 50% more on SQLite and the group commit of 40 tables
five to seven times more (one greenlet switch and driver round trip per statement, where the
group commit is now one statement for the whole batch); the leaderboard reads 60-100% more.
Those paths run here; everything else goes through SQLAlchemy as usual. How a statement is
rendered and run on each driver is the driver's (:mod:`.drivers`: PostgreSQL's with
numbered placeholders on a raw cursor).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from .drivers import driver_of

_Statement = str | sa.Executable


@dataclass(frozen=True)
class Rendered:
    sql: str
    positions: tuple[str, ...] | None  # the parameters' names in order (qmark), or None


# Statements given as objects are module constants: kept (so their ids stay theirs).
_BY_OBJECT: dict[tuple[str, str, int], tuple[sa.Executable, Rendered]] = {}


# SQL text rendered, by engine and parameter style (not by dialect object: every engine made
# has its own, and a statement rendered for one serves every engine of its kind).
_BY_TEXT: dict[tuple[str, str, str], Rendered] = {}
_TEXTS_KEPT = 1024


def _render_text(sql: str, dialect: sa.Dialect) -> Rendered:
    key = (dialect.name, dialect.paramstyle, sql)
    found = _BY_TEXT.get(key)
    if found is None:
        if len(_BY_TEXT) >= _TEXTS_KEPT:
            _BY_TEXT.clear()
        found = _BY_TEXT[key] = _render(sa.text(sql), dialect)
    return found


def _render(statement: sa.Executable, dialect: sa.Dialect) -> Rendered:
    compiled = statement.compile(dialect=dialect)  # type: ignore[attr-defined]
    positions = tuple(compiled.positiontup) if compiled.positional else None
    return Rendered(str(compiled), positions)


def rendered(statement: _Statement, dialect: sa.Dialect) -> Rendered:
    if isinstance(statement, str):
        return _render_text(statement, dialect)
    key = (dialect.name, dialect.paramstyle, id(statement))
    kept = _BY_OBJECT.get(key)
    if kept is None or kept[0] is not statement:
        kept = (statement, _render(statement, dialect))
        _BY_OBJECT[key] = kept
    return kept[1]


async def run(
    conn: AsyncConnection,
    statement: _Statement,
    params: Mapping[str, Any] | None = None,
    *,
    returns_rows: bool = False,
) -> tuple[int, list[tuple[Any, ...]]]:
    """Run one statement on the driver: (rows changed, rows returned). ``returns_rows``: the
    statement returns rows (a read, or RETURNING); the first figure is then how many."""
    driver = driver_of(conn)
    shape = rendered(statement, driver.raw_dialect(conn.dialect))
    values: Sequence[Any] | Mapping[str, Any] = dict(params or {})
    if shape.positions is not None:
        values = [params[name] for name in shape.positions] if params else []
    sync = conn.sync_connection
    if sync is not None and not (sync.invalidated or sync.closed):
        # A valid connection has its pooled connection at hand: no need for the greenlet
        # get_raw_connection() starts in case one must be made again (about 50 µs of a move).
        raw = sync.connection
    else:
        raw = await conn.get_raw_connection()
    connection: Any = raw.driver_connection
    try:
        return await driver.run_raw(connection, shape.sql, values, returns_rows)
    except BaseException:
        if getattr(connection, "broken", False) or getattr(connection, "closed", False) is True:
            # The server dropped the connection: SQLAlchemy makes a new one at the next use.
            await conn.invalidate()
        raise
