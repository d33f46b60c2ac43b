"""The engines under the store: the registry of drivers, and what the rest of the bot asks it.

Every query of the store is written once, against the tables of :mod:`.schema`, and
SQLAlchemy renders it for the engine; the store never asks which engine it is on. What an
engine does its own way is its driver's (:mod:`.driver` says what a driver owns: its URL
schemes and checks, its passwords hidden, its connections and locks, its errors, its fast
paths), one module each: :mod:`.postgres`, :mod:`.sqlite`.

:data:`ENGINES` is the one list of them. A target (``Settings.database``: a URL or a path)
belongs to the first driver that claims it; a connection, to the driver of its dialect.
``bot/config.py`` checks and shows a URL through :func:`check_url` and :func:`describe`;
``migrate-to`` copies between any two of them (:mod:`.copy`).

Why these libraries: SQLAlchemy Core 2 renders one statement for every engine and binds its
parameters (no SQL text is rewritten by hand); aiosqlite and psycopg 3 are the async drivers
it supports for SQLite and PostgreSQL; all are well kept.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

import sqlalchemy as sa
import sqlalchemy.exc
from sqlalchemy.ext.asyncio import AsyncConnection

from .driver import Driver, Opened, Role, Target, redact_url, scheme_of
from .failures import StoreBusy, StoreError, StoreUnavailable
from .postgres import PostgreSQL
from .sqlite import SQLite

__all__ = [
    "DATABASE_ERRORS",
    "ENGINES",
    "INTEGRITY_ERRORS",
    "Driver",
    "Opened",
    "check_url",
    "classify",
    "describe",
    "driver_for",
    "driver_of",
    "insert_once",
    "open_role",
    "rollback",
    "transaction",
]

# Every engine the store runs on. The file engine (SQLite) comes last: it takes any path,
# and a URL no other engine claims is refused rather than taken for a file name.
ENGINES: tuple[Driver, ...] = (PostgreSQL(), SQLite())
_BY_DIALECT: dict[str, Driver] = {driver.name: driver for driver in ENGINES}

# What a database call of any engine raises (the store catches these, not one driver's):
# SQLAlchemy wraps the driver's error (DBAPIError.orig), or refuses a connection the server
# dropped until it is rolled back (PendingRollbackError).
DATABASE_ERRORS: tuple[type[Exception], ...] = (
    sqlalchemy.exc.DBAPIError,
    sqlalchemy.exc.PendingRollbackError,
    *(error for driver in ENGINES for error in driver.errors),
)
# A unique index refused the row (one open game per channel).
INTEGRITY_ERRORS: tuple[type[Exception], ...] = (
    sqlalchemy.exc.IntegrityError,
    *(error for driver in ENGINES for error in driver.integrity_errors),
)


def driver_of(conn: AsyncConnection | sa.Connection) -> Driver:
    return _BY_DIALECT[conn.dialect.name]


def driver_for(target: Target) -> Driver:
    """The engine ``Settings.database`` names: the first driver that claims it. Raises
    :class:`StoreError` for a URL of no engine of this bot."""
    for driver in ENGINES:
        if driver.claims(target):
            return driver
    schemes = ", ".join(f"{scheme}://" for driver in ENGINES for scheme in driver.schemes)
    raise StoreError(
        f"not a database URL this bot can use ({schemes}...): {redact_url(str(target))}"
    )


def check_url(url: str) -> None:
    """Raise :class:`StoreError` (one line, no password) unless ``url`` is a well-formed URL
    of a database server engine (``KACHUFUL_DATABASE_URL``)."""
    driver = driver_for(url) if scheme_of(url) else None
    if driver is None or not driver.schemes:
        schemes = " or ".join(
            f"{driver.schemes[0]}://user@host/database" for driver in ENGINES if driver.schemes
        )
        raise StoreError(f"not a database URL ({schemes}): {redact_url(url)}")
    driver.check(url)


def describe(target: Target) -> str:
    """Where the data is, for logs and messages (never a password)."""
    try:
        return driver_for(target).describe(target)
    except StoreError:
        return redact_url(str(target))


def classify(error: BaseException) -> StoreBusy | StoreUnavailable | None:
    """The expected failure an error of an engine (as SQLAlchemy raises it, or not) is, or
    None for anything else."""
    if isinstance(error, sqlalchemy.exc.PendingRollbackError):
        return StoreUnavailable("the connection to the database server was lost")
    if isinstance(error, sqlalchemy.exc.DBAPIError):
        found = classify(error.orig) if isinstance(error.orig, BaseException) else None
        if found is None and error.connection_invalidated:
            return StoreUnavailable("the connection to the database server was lost")
        return found
    for driver in ENGINES:
        if isinstance(error, driver.errors):
            return driver.classify(error)
    return None


async def open_role(driver: Driver, target: Target, role: Role) -> Opened:
    """The engine of one role and its connection (made now, so that a wrong URL or a
    locked file is found at start)."""
    made = [0]
    engine = driver.engine(target, role, made)
    try:
        conn = await engine.connect()
    except BaseException:
        await engine.dispose()
        raise
    opened = Opened(engine, conn, made)
    try:
        await driver.opened(engine)
    except BaseException:
        await opened.close()
        raise
    return opened


async def rollback(conn: AsyncConnection) -> None:
    """End the connection's transaction if one is open (:meth:`Driver.rollback`)."""
    await driver_of(conn).rollback(conn)


def transaction(
    conn: AsyncConnection, begin: str | None = None, *, commit: bool = True
) -> AbstractAsyncContextManager[AsyncConnection]:
    """``BEGIN`` (the engine's write lock, or ``begin``) ... ``COMMIT``; rolled back if the
    block raises (or ``commit`` is False)."""
    return driver_of(conn).transaction(conn, begin, commit=commit)


async def insert_once(conn: AsyncConnection, statement: sa.Executable) -> bool:
    """Run an insert keyed so that it can happen once (a review, a season's crown) in its own
    transaction; False, nothing changed, if its row is there already."""
    try:
        async with transaction(conn):
            await conn.execute(statement)
    except INTEGRITY_ERRORS:
        return False
    return True
