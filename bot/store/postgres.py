"""PostgreSQL under the store, through psycopg 3.

:class:`PgConnection` gives a psycopg connection the few methods the store calls on an
aiosqlite connection (``execute`` as an awaitable or ``async with``, ``executemany``,
``in_transaction``, ``close``), with every statement translated by :mod:`.dialect`: the store
keeps one SQL text and one code path for both engines. Connections are in autocommit mode,
as the SQLite ones (``isolation_level=None``): a transaction is an explicit BEGIN ... COMMIT.

Why psycopg 3: well kept (the PostgreSQL driver most Python projects use), async, binds
parameters on the server, has COPY for the bulk copy of ``migrate-to``, and keeps the DB-API
shape of sqlite3 (cursors, ``rowcount``, ``executemany``), which keeps one SQL text for both.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import aiosqlite
import psycopg
from psycopg.adapt import Loader
from psycopg.pq import TransactionStatus

from .dialect import postgres_params, to_postgres
from .failures import StoreError

log = logging.getLogger(__name__)

URL_SCHEMES = ("postgresql", "postgres")
# A statement waiting for a row lock held by another process (two processes on one table,
# a misconfiguration) gives up well inside Discord's 3 s deadline for answering a click.
LOCK_TIMEOUT_MS = 1500
CONNECT_TIMEOUT_SECONDS = 10
MIN_SERVER_VERSION = 140000  # PostgreSQL 14


def is_postgres_url(target: object) -> bool:
    return isinstance(target, str) and re.match(r"^postgres(ql)?://", target) is not None


def redacted(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "postgresql://..."
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", ":***@", 1)
    query = re.sub(r"(?i)(^|&)(password=)[^&]*", r"\1\2***", parts.query)
    return parts._replace(netloc=netloc, query=query).geturl()


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


class PgCursor:
    """The result of one statement, read as an aiosqlite cursor is."""

    def __init__(self, cursor: psycopg.AsyncCursor[Any]) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    lastrowid = None  # use RETURNING

    async def fetchone(self) -> Any:
        return None if self._cursor.description is None else await self._cursor.fetchone()

    async def fetchall(self) -> list[Any]:
        return [] if self._cursor.description is None else await self._cursor.fetchall()

    async def close(self) -> None:
        await self._cursor.close()


class _Statement:
    """``await conn.execute(...)`` or ``async with conn.execute(...) as cursor``."""

    def __init__(self, conn: PgConnection, sql: str, params: Any) -> None:
        self._conn, self._sql, self._params = conn, sql, params
        self._cursor: PgCursor | None = None

    def __await__(self) -> Any:
        return self._run().__await__()

    async def _run(self) -> PgCursor:
        self._cursor = await self._conn._execute(self._sql, self._params)
        return self._cursor

    async def __aenter__(self) -> PgCursor:
        return await self._run()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._cursor is not None:
            await self._cursor.close()


class PgConnection:
    """One psycopg connection with the store's calls (see the module's docstring).

    A connection the server dropped (a restart, a failover, a network cut) is made again at
    the next statement: the statement that found it broken failed (the store answers "not
    saved", nothing was half-written: the transaction died with the connection), and the ones
    after it work again once the server is back. ``generation`` counts the connections made,
    so that a caller keeping session state (temporary tables) knows it is gone."""

    def __init__(self, conn: psycopg.AsyncConnection[Any], url: str, options: str) -> None:
        self._conn = conn
        self._url, self._options = url, options
        self._closing = False
        self.generation = 0

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        application: str = "kachuful-bot",
        read_only: bool = False,
        durable: bool = True,
    ) -> PgConnection:
        """``read_only``: every transaction is read-only unless it says otherwise.
        ``durable`` False: a commit returns before its WAL is flushed (synchronous_commit off:
        a crash of the server may lose the last fraction of a second of such commits, never
        corrupt anything), as the SQLite bookkeeping connection's synchronous = NORMAL."""
        check_url(url)
        options = (
            f"-c lock_timeout={LOCK_TIMEOUT_MS} -c timezone=UTC -c application_name={application}"
        )
        if read_only:
            options += " -c default_transaction_read_only=on"
        if not durable:
            options += " -c synchronous_commit=off"
        try:
            conn = await cls._open(url, options)
        except psycopg.Error as error:
            # psycopg's message names host and user, never the password.
            reason = " ".join(str(error).split()) or type(error).__name__
            raise StoreError(f"cannot connect to {redacted(url)}: {reason}") from None
        version = conn.info.server_version  # e.g. 150018 for 15.18
        if version < MIN_SERVER_VERSION:
            await conn.close()
            raise StoreError(
                f"{redacted(url)} is PostgreSQL {version // 10000}.{version % 10000}; "
                "the bot needs 14 or newer"
            )
        return cls(conn, url, options)

    @staticmethod
    async def _open(url: str, options: str) -> psycopg.AsyncConnection[Any]:
        conn = await psycopg.AsyncConnection.connect(
            url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_SECONDS, options=options
        )
        conn.adapters.register_loader("numeric", _NumberLoader)
        return conn

    async def _ready(self) -> psycopg.AsyncConnection[Any]:
        if self._conn.broken or (self._conn.closed and not self._closing):
            # Raises psycopg.OperationalError while the server cannot be reached: the store
            # reports it as unavailable, and the next statement tries again.
            self._conn = await self._open(self._url, self._options)
            self.generation += 1
            log.warning("reconnected to the database server")
        return self._conn

    @property
    def raw(self) -> psycopg.AsyncConnection[Any]:
        """The psycopg connection (COPY, for migrate-to)."""
        return self._conn

    @property
    def in_transaction(self) -> bool:
        if self._conn.broken or self._conn.closed:
            return False  # the server ended the transaction with the connection
        return self._conn.info.transaction_status != TransactionStatus.IDLE

    def execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> _Statement:
        return _Statement(self, sql, params)

    async def _execute(self, sql: str, params: Sequence[Any] | Mapping[str, Any]) -> PgCursor:
        cursor = (await self._ready()).cursor()
        query = to_postgres(sql)
        try:
            if params:
                await cursor.execute(query, postgres_params(sql, params))
            else:
                await cursor.execute(query.replace("%%", "%"))
        except BaseException:
            await cursor.close()
            raise
        return PgCursor(cursor)

    async def run(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> int:
        """Execute one statement; the rows it changed."""
        async with self.execute(sql, params) as cursor:
            return cursor.rowcount

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        values = [postgres_params(sql, row) for row in rows]
        if not values:
            return
        async with (await self._ready()).cursor() as cursor:
            await cursor.executemany(to_postgres(sql), values)

    async def rowcounts(self, sql: str, rows: Iterable[Sequence[Any]]) -> list[int]:
        """Execute ``sql`` once per row, in one round trip (psycopg pipelines executemany);
        the rows each execution changed."""
        values = [postgres_params(sql, row) for row in rows]
        if not values:
            return []
        async with (await self._ready()).cursor() as cursor:
            await cursor.executemany(to_postgres(sql), values, returning=True)
            counts = [cursor.rowcount]
            while cursor.nextset():
                counts.append(cursor.rowcount)
        return counts

    async def close(self) -> None:
        self._closing = True
        await self._conn.close()


# The connection of either engine (PgConnection answers the calls the store makes).
Connection = aiosqlite.Connection | PgConnection
