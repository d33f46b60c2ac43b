"""The PostgreSQL engine: a database on a server (``postgresql://`` URLs), through psycopg 3;
how a URL is recognised, checked and shown without its password, the limits of a connection,
and what the server's errors mean.

Why psycopg 3: well kept (the PostgreSQL driver most Python projects use), async, supported
by SQLAlchemy, binds parameters on the server, and has COPY for the bulk copy of
``migrate-to``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

import psycopg
import sqlalchemy as sa
from psycopg import AsyncRawCursor
from psycopg import errors as pg_errors
from psycopg.adapt import Loader
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .driver import Driver, Role, Target, Values, counted, one_connection, redact_url
from .failures import StoreBusy, StoreError, StoreUnavailable

URL_SCHEMES = ("postgresql", "postgres")
# A statement waiting for a row lock held by another process (two processes on one table,
# a misconfiguration) gives up well inside Discord's 3 s deadline for answering a click.
LOCK_TIMEOUT_MS = 1500
CONNECT_TIMEOUT_SECONDS = 10
MIN_SERVER_VERSION = 140000  # PostgreSQL 14
# Advisory lock key held while migrating ("kachuful" in ASCII).
MIGRATION_LOCK = 0x6B61636875667C
MIGRATION_WAIT_SECONDS = 300

# A row or table lock held past lock_timeout, or a conflict the server resolved by cancelling
# this statement: nothing was written, and trying again may succeed.
_BUSY = (
    pg_errors.LockNotAvailable,
    pg_errors.DeadlockDetected,
    pg_errors.SerializationFailure,
    pg_errors.QueryCanceled,
)
_UNAVAILABLE: tuple[tuple[type[Exception], str], ...] = (
    (pg_errors.DiskFull, "the database server's disk is full"),
    (pg_errors.InsufficientResources, "the database server is out of resources"),
    (pg_errors.ReadOnlySqlTransaction, "the database has become read-only"),
    (pg_errors.AdminShutdown, "the database server is shutting down"),
    (pg_errors.CannotConnectNow, "the database server is starting or stopping"),
    (pg_errors.TooManyConnections, "the database server has too many connections"),
    (psycopg.OperationalError, "the database server cannot be reached"),
    (psycopg.InterfaceError, "the connection to the database server is closed"),
)

# ``url`` without its password (the one way every engine's URL is shown).
redacted = redact_url


def check_url(url: str) -> None:
    """Raise :class:`StoreError` (one line, no password) if ``url`` is not a usable
    ``postgresql://`` URL."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number)
    except ValueError as error:
        raise StoreError(f"not a valid PostgreSQL URL ({error}): {redacted(url)}") from None
    if parts.scheme not in URL_SCHEMES:
        raise StoreError(f"not a PostgreSQL URL (postgresql://user@host/database): {redacted(url)}")
    try:
        psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        raise StoreError(f"not a valid PostgreSQL URL: {redacted(url)}") from None
    if not parts.path.strip("/"):
        raise StoreError(f"the PostgreSQL URL names no database: {redacted(url)}")


class _NumberLoader(Loader):
    """NUMERIC (what SUM of a BIGINT gives) as int when whole, else float, as SQLite does."""

    def load(self, data: Any) -> int | float:
        value = Decimal(bytes(data).decode())
        return int(value) if value == value.to_integral_value() else float(value)


class PostgreSQL(Driver):
    name = "postgresql"
    schemes = URL_SCHEMES
    loggers = ("psycopg",)
    failed_to_open = "cannot connect to"
    begin_snapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    errors = (psycopg.Error,)
    integrity_errors = (psycopg.IntegrityError,)

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

    def check(self, target: Target) -> None:
        check_url(str(target))

    def sync_url(self, target: Target, *, read_only: bool = False) -> sa.URL:
        url = sa.make_url(str(target)).set(drivername="postgresql+psycopg")
        # A server that cannot be reached is told within the connect timeout, as at start,
        # and a tool's session is named (unless the URL says otherwise).
        defaults = {
            "connect_timeout": str(CONNECT_TIMEOUT_SECONDS),
            "application_name": "kachuful-tool",
        }
        return url.update_query_dict({k: v for k, v in defaults.items() if k not in url.query})

    def engine(self, target: Target, role: Role, made: list[int]) -> AsyncEngine:
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
        engine = one_connection(
            url, {"options": options, "connect_timeout": CONNECT_TIMEOUT_SECONDS}
        )

        def setup(dbapi_connection: Any, record: Any) -> None:
            record.driver_connection.adapters.register_loader("numeric", _NumberLoader)

        counted(engine, made, setup)
        return engine

    async def opened(self, engine: AsyncEngine) -> None:
        version = engine.dialect.server_version_info or (0,)
        number = version[0] * 10000 + (version[1] if len(version) > 1 else 0)
        if number < MIN_SERVER_VERSION:
            shown = redact_url(engine.url.render_as_string(hide_password=False))
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
        async with self.transaction(conn, "BEGIN READ WRITE"):
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
        async with self.transaction(conn, "BEGIN READ WRITE", commit=False):
            await conn.exec_driver_sql(
                "CREATE TEMP TABLE IF NOT EXISTS kachuful_health (x INTEGER)"
            )

    # ---- errors

    def classify(self, error: Exception) -> StoreBusy | StoreUnavailable | None:
        if isinstance(error, _BUSY):
            return StoreBusy("a row is locked by another process (or a conflict was resolved)")
        for kind, reason in _UNAVAILABLE:
            if isinstance(error, kind):
                # The first line of the server's message (no data of the bot is in it).
                detail = (str(error).splitlines() or [type(error).__name__])[0]
                return StoreUnavailable(f"{reason} ({detail})")
        return None

    # ---- migrate-to's fast path: COPY

    def copy_rows(
        self, conn: sa.Connection, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
    ) -> None:
        names = ", ".join(f'"{column}"' for column in columns)
        raw: Any = conn.connection.driver_connection
        with raw.cursor() as cursor, cursor.copy(f'COPY "{table}" ({names}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row(row)

    def after_copy(self, conn: sa.Connection) -> None:
        # Identity sequences past the copied ids, so the next game gets a fresh id.
        identities = conn.exec_driver_sql(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND is_identity = 'YES'"
        ).all()
        for table, column in identities:
            conn.exec_driver_sql(
                f"SELECT setval(pg_get_serial_sequence('\"{table}\"', '{column}'),"
                f' COALESCE((SELECT MAX("{column}") FROM "{table}"), 0) + 1, false)'
            )
