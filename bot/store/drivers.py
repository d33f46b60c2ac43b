"""The engines under the store, and the few things they truly do differently.

Every query of the store is written once, against the tables of :mod:`.schema`, and
SQLAlchemy renders it for the engine; the store never asks which engine it is on. What is
left is here, one :class:`Driver` per engine, chosen by the connection's dialect:

* how a connection is made (SQLite: a file in WAL mode with its pragmas, the reader opened
  read-only; PostgreSQL: psycopg 3 with a lock timeout, the reader's transactions read-only,
  the bookkeeping's commits not flushed one by one);
* how a write transaction begins (SQLite takes the database's write lock at once with
  ``BEGIN IMMEDIATE``, so that it never fails halfway on a lock; PostgreSQL locks rows);
* the locks that keep two processes apart: SQLite's write lock is the whole database,
  PostgreSQL takes advisory locks (one server's aggregates; the migrations at start);
* the reader's scratch tables (a PostgreSQL read-only session needs a read-write transaction
  even for a temporary table);
* what is done at close (SQLite folds its WAL into the file) and how a write is checked;
* how a statement runs on the driver's own connection, for the hot paths (:mod:`.direct`).

Connections run in autocommit mode (no implicit transaction): a transaction is an explicit
``BEGIN ... COMMIT`` through :func:`transaction`, as short as the write it holds.

Why these libraries: SQLAlchemy Core 2 renders one statement for every engine and binds its
parameters (no SQL text is rewritten by hand); aiosqlite and psycopg 3 are the async drivers
it supports for SQLite and PostgreSQL; both are well kept.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, ClassVar, Literal

import sqlalchemy as sa
from psycopg import AsyncRawCursor
from psycopg.adapt import Loader
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from . import postgres
from .failures import StoreError
from .postgres import CONNECT_TIMEOUT_SECONDS, LOCK_TIMEOUT_MS, redacted
from .sqlite_file import BUSY_TIMEOUT_SECONDS, inspect_database

Role = Literal["writer", "bookkeeping", "reader"]
Values = Sequence[Any] | Mapping[str, Any]

# PostgreSQL advisory lock key held while migrating ("kachuful" in ASCII).
MIGRATION_LOCK = 0x6B61636875667C
MIGRATION_WAIT_SECONDS = 300


@dataclass
class Opened:
    """One role's engine, its connection, and how many connections it has made (a new one,
    after the server dropped the last, has lost the session's temporary tables)."""

    engine: AsyncEngine
    conn: AsyncConnection
    made: list[int] = field(default_factory=lambda: [0])

    @property
    def generation(self) -> int:
        return self.made[0]

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.conn.close()
        await self.engine.dispose()


class Driver:
    """What one engine does its own way (see the module's docstring)."""

    name: ClassVar[str]
    begin_write: ClassVar[str] = "BEGIN"
    # The first words of the message when the first connection cannot be made.
    failed_to_open: ClassVar[str] = "cannot open the database"

    def engine(self, target: str | Path, role: Role, made: list[int]) -> AsyncEngine:
        raise NotImplementedError

    async def prepare(self, target: str | Path) -> None:
        """Checks before anything is opened; raise :class:`StoreError` to refuse."""

    def describe(self, target: str | Path) -> str:
        """Where the data is, for logs and messages (never a password)."""
        return str(target)

    def url_of(self, target: str | Path) -> str | None:
        """The database server's URL (None: a file, ``Store.path``)."""
        return None

    async def opened(self, engine: AsyncEngine) -> None:
        """Checks once the first connection is made."""

    def lock_server(self, conn: sa.Connection, guild_id: int) -> None:
        """Until the transaction ends, no other process changes this server's aggregates."""

    @contextlib.asynccontextmanager
    async def migrating(self, conn: AsyncConnection) -> AsyncIterator[None]:
        """Processes starting together migrate one after the other."""
        yield

    @contextlib.asynccontextmanager
    async def scratch(self, conn: AsyncConnection) -> AsyncIterator[None]:
        """Around the making and dropping of the reader's temporary tables."""
        yield

    def in_transaction(self, conn: sa.Connection) -> bool:
        raise NotImplementedError

    async def pragma(self, conn: AsyncConnection, name: str) -> Any:
        raise StoreError(f"PRAGMA is SQLite's; this store is on {self.name}")

    async def journal_mode(self, conn: AsyncConnection) -> str:
        return ""

    async def check_writable(self, conn: AsyncConnection) -> None:
        raise NotImplementedError

    async def before_close(self, conn: AsyncConnection) -> None:
        """The writer's last act before it closes."""

    def raw_dialect(self, dialect: sa.Dialect) -> sa.Dialect:
        """The dialect that renders a statement for :meth:`run_raw` (the connection's own)."""
        return dialect

    async def run_raw(
        self, connection: Any, sql: str, values: Values, returns_rows: bool
    ) -> tuple[int, list[tuple[Any, ...]]]:
        """One statement on the driver's own connection: (rows changed, rows returned);
        ``returns_rows``: it returns rows (a read, or RETURNING), the first figure is then
        how many."""
        raise NotImplementedError


def _one_connection(url: sa.URL, connect_args: dict[str, Any]) -> AsyncEngine:
    """An engine of one connection in autocommit mode (transactions are the store's own
    BEGIN ... COMMIT), which the pool hands back as it is (no reset: nothing is left open)."""
    return create_async_engine(
        url,
        isolation_level="AUTOCOMMIT",
        pool_size=1,
        max_overflow=0,
        pool_reset_on_return=None,
        connect_args=connect_args,
    )


def _counted(engine: AsyncEngine, made: list[int], setup: Callable[[Any, Any], None]) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_connection: Any, record: Any) -> None:
        made[0] += 1
        setup(dbapi_connection, record)


class SQLite(Driver):
    name = "sqlite"
    begin_write = "BEGIN IMMEDIATE"
    # Per role: the writer's commit is fsynced (FULL: a move that was posted survives a power
    # cut); the bookkeeping's is not (a post it forgets is sent again with the same nonce,
    # which Discord drops); the reader waits longer, it holds nobody up.
    PRAGMAS: ClassVar[dict[Role, tuple[str, ...]]] = {
        "writer": ("journal_mode = WAL", "synchronous = FULL", "foreign_keys = ON"),
        "bookkeeping": ("synchronous = NORMAL", "foreign_keys = ON"),
        "reader": (),
    }

    async def prepare(self, target: str | Path) -> None:
        path = Path(target)
        # Read-only checks run before anything is created or written: a file that will be
        # refused is left byte for byte as it was.
        await asyncio.to_thread(inspect_database, path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot open the database {str(path)!r}: {error}") from error

    def describe(self, target: str | Path) -> str:
        return repr(str(target))

    def engine(self, target: str | Path, role: Role, made: list[int]) -> AsyncEngine:
        path = Path(target).resolve()
        database = path.as_uri() + ("?mode=ro" if role == "reader" else "")
        busy = 5000 if role == "reader" else int(BUSY_TIMEOUT_SECONDS * 1000)
        url = sa.URL.create("sqlite+aiosqlite", database=database, query={"uri": "true"})
        engine = _one_connection(url, {"timeout": BUSY_TIMEOUT_SECONDS})
        pragmas = (*self.PRAGMAS[role], f"busy_timeout = {busy}")

        def setup(dbapi_connection: Any, record: Any) -> None:
            cursor = dbapi_connection.cursor()
            try:
                for pragma in pragmas:
                    cursor.execute(f"PRAGMA {pragma}")
                    cursor.fetchall()
            finally:
                cursor.close()

        _counted(engine, made, setup)
        return engine

    def in_transaction(self, conn: sa.Connection) -> bool:
        return bool(conn.connection.driver_connection.in_transaction)  # type: ignore[union-attr]

    async def pragma(self, conn: AsyncConnection, name: str) -> Any:
        if not name.isidentifier():
            raise ValueError(f"not a pragma name: {name!r}")
        return (await conn.exec_driver_sql(f"PRAGMA {name}")).scalar()

    async def journal_mode(self, conn: AsyncConnection) -> str:
        return str(await self.pragma(conn, "journal_mode") or "")

    async def check_writable(self, conn: AsyncConnection) -> None:
        await conn.exec_driver_sql(self.begin_write)
        await conn.exec_driver_sql("ROLLBACK")

    async def before_close(self, conn: AsyncConnection) -> None:
        # A stopped bot leaves one self-contained file to back up or move.
        await conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")

    async def run_raw(
        self, connection: Any, sql: str, values: Values, returns_rows: bool
    ) -> tuple[int, list[tuple[Any, ...]]]:
        if returns_rows:
            # aiosqlite runs the statement and hands back every row in one trip to its
            # thread (execute, fetch and close would be three).
            found = [tuple(row) for row in await connection.execute_fetchall(sql, values)]
            return len(found), found
        cursor = await connection.execute(sql, values)
        if cursor.description is None:
            # A write without rows: its statement is done (nothing left open that would hold
            # a later COMMIT), so no round trip to close its cursor.
            return int(cursor.rowcount), []
        try:
            return int(cursor.rowcount), [tuple(row) for row in await cursor.fetchall()]
        finally:
            await cursor.close()


class _NumberLoader(Loader):
    """NUMERIC (what SUM of a BIGINT gives) as int when whole, else float, as SQLite does."""

    def load(self, data: Any) -> int | float:
        value = Decimal(bytes(data).decode())
        return int(value) if value == value.to_integral_value() else float(value)


class PostgreSQL(Driver):
    name = "postgresql"
    failed_to_open = "cannot connect to"

    def __init__(self) -> None:
        self._numbered: dict[type[sa.Dialect], sa.Dialect] = {}

    def raw_dialect(self, dialect: sa.Dialect) -> sa.Dialect:
        # Placeholders $1, $2...: psycopg's usual cursor turns a query's %(name)s into them by
        # parsing the query at every execution once it is longer than 4,096 characters or has
        # more than 50 parameters (the limits of its cache). The group commit's statement has
        # up to 64 x 14 parameters, and that parse cost about a millisecond of the event loop
        # per batch; rendered once by SQLAlchemy in this style, a raw cursor sends it as is.
        kind = type(dialect)
        if kind not in self._numbered:
            make: Callable[..., sa.Dialect] = kind  # a DefaultDialect: takes paramstyle=
            self._numbered[kind] = make(paramstyle="numeric_dollar")
        return self._numbered[kind]

    async def run_raw(
        self, connection: Any, sql: str, values: Values, returns_rows: bool
    ) -> tuple[int, list[tuple[Any, ...]]]:
        async with AsyncRawCursor(connection) as cursor:
            await cursor.execute(sql, values)
            rows = [] if cursor.description is None else await cursor.fetchall()
            return cursor.rowcount, [tuple(row) for row in rows]

    async def prepare(self, target: str | Path) -> None:
        postgres.check_url(str(target))

    def describe(self, target: str | Path) -> str:
        return redacted(str(target))

    def url_of(self, target: str | Path) -> str | None:
        return str(target)

    def engine(self, target: str | Path, role: Role, made: list[int]) -> AsyncEngine:
        options = f"-c lock_timeout={LOCK_TIMEOUT_MS} -c timezone=UTC"
        options += f" -c application_name=kachuful-{role}"
        if role == "reader":
            options += " -c default_transaction_read_only=on"
        if role == "bookkeeping":
            # synchronous_commit off: a crash of the server may lose the last fraction of a
            # second of these commits (posts are sent again with the same nonce), never
            # corrupt anything, as the SQLite bookkeeping's synchronous = NORMAL.
            options += " -c synchronous_commit=off"
        url = sa.make_url(str(target)).set(drivername="postgresql+psycopg")
        engine = _one_connection(
            url, {"options": options, "connect_timeout": CONNECT_TIMEOUT_SECONDS}
        )

        def setup(dbapi_connection: Any, record: Any) -> None:
            record.driver_connection.adapters.register_loader("numeric", _NumberLoader)

        _counted(engine, made, setup)
        return engine

    async def opened(self, engine: AsyncEngine) -> None:
        version = engine.dialect.server_version_info or (0,)
        number = version[0] * 10000 + (version[1] if len(version) > 1 else 0)
        if number < postgres.MIN_SERVER_VERSION:
            shown = redacted(engine.url.render_as_string(hide_password=False))
            raise StoreError(
                f"{shown} is PostgreSQL {'.'.join(str(part) for part in version)}; "
                "the bot needs 14 or newer"
            )

    def lock_server(self, conn: sa.Connection, guild_id: int) -> None:
        # Two processes (a misconfiguration) would both read a window and count it twice.
        conn.execute(sa.select(sa.func.pg_advisory_xact_lock(guild_id)))

    @contextlib.asynccontextmanager
    async def migrating(self, conn: AsyncConnection) -> AsyncIterator[None]:
        # The session's lock, let go when this connection's migration is done. A process
        # starting beside one that migrates waits for it as long as a migration may take,
        # not the 1.5 s a click may wait for a row.
        await conn.exec_driver_sql(f"SET lock_timeout = '{MIGRATION_WAIT_SECONDS}s'")
        try:
            await conn.execute(sa.select(sa.func.pg_advisory_lock(MIGRATION_LOCK)))
        finally:
            await conn.exec_driver_sql(f"SET lock_timeout = {LOCK_TIMEOUT_MS}")
        try:
            yield
        finally:
            await conn.execute(sa.select(sa.func.pg_advisory_unlock(MIGRATION_LOCK)))

    @contextlib.asynccontextmanager
    async def scratch(self, conn: AsyncConnection) -> AsyncIterator[None]:
        async with transaction(conn, "BEGIN READ WRITE"):
            yield

    def in_transaction(self, conn: sa.Connection) -> bool:
        from psycopg.pq import TransactionStatus

        raw = conn.connection.driver_connection
        if raw is None or raw.broken or raw.closed:
            return False  # the server ended the transaction with the connection
        return bool(raw.info.transaction_status != TransactionStatus.IDLE)

    async def check_writable(self, conn: AsyncConnection) -> None:
        # No database-wide write lock: a read-write transaction is the check (a server in
        # recovery, or read-only, refuses it).
        async with transaction(conn, "BEGIN READ WRITE", commit=False):
            await conn.exec_driver_sql(
                "CREATE TEMP TABLE IF NOT EXISTS kachuful_health (x INTEGER)"
            )


DRIVERS: dict[str, Driver] = {driver.name: driver for driver in (SQLite(), PostgreSQL())}


def driver_of(conn: AsyncConnection | sa.Connection) -> Driver:
    return DRIVERS[conn.dialect.name]


def driver_for(target: str | Path) -> Driver:
    """The engine ``Settings.database`` names: a ``postgresql://`` URL, else an SQLite file."""
    return DRIVERS["postgresql" if postgres.is_postgres_url(target) else "sqlite"]


async def open_role(driver: Driver, target: str | Path, role: Role) -> Opened:
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
    """End the connection's transaction if one is open: after a full disk or an I/O error
    SQLite may have rolled it back itself, and a second ROLLBACK would fail. A connection the
    server dropped is made again at its next statement."""
    if conn.invalidated:
        await conn.rollback()
        return
    if driver_of(conn).in_transaction(conn.sync_connection):  # type: ignore[arg-type]
        await conn.exec_driver_sql("ROLLBACK")


@contextlib.asynccontextmanager
async def transaction(
    conn: AsyncConnection, begin: str | None = None, *, commit: bool = True
) -> AsyncIterator[AsyncConnection]:
    """``BEGIN`` (the engine's write lock, or ``begin``) ... ``COMMIT``; rolled back if the
    block raises (or ``commit`` is False)."""
    await conn.exec_driver_sql(begin or driver_of(conn).begin_write)
    try:
        yield conn
    except BaseException:
        with contextlib.suppress(Exception):
            await rollback(conn)
        raise
    if commit:
        await conn.exec_driver_sql("COMMIT")
    else:
        await rollback(conn)


async def insert_once(conn: AsyncConnection, statement: sa.Executable) -> bool:
    """Run an insert keyed so that it can happen once (a review, a season's crown) in its own
    transaction; False, nothing changed, if its row is there already."""
    from .failures import INTEGRITY_ERRORS  # failures names the drivers' errors, not the reverse

    try:
        async with transaction(conn):
            await conn.execute(statement)
    except INTEGRITY_ERRORS:
        return False
    return True
