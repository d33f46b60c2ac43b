"""What a storage engine must say and do: the :class:`Driver` interface, and the helpers every
driver shares. Each engine is one module (:mod:`.sqlite`, :mod:`.postgres`) with one
``Driver`` subclass; :mod:`.drivers` lists them (the registry) and is what the rest of the bot
asks.

A driver owns, for its engine:

* its targets: the URL schemes it answers to (:attr:`Driver.schemes`; the file engine, SQLite,
  answers to a path), how a target is checked before anything is opened (:meth:`check`,
  :meth:`prepare`) and shown without its password (:meth:`describe`);
* its connections, one per role (the writer, the bookkeeping, the reader), and what the engine
  does its own way: how a write transaction begins, the locks that keep two processes apart,
  the reader's scratch tables, what is done at close, how a write is checked;
* its errors: which exceptions its library raises (:attr:`errors`, :attr:`integrity_errors`, a
  constraint refused the row) and what one means (:meth:`classify`: busy, so trying again in a
  moment may succeed, or unavailable: a full disk, a read-only database, a lost connection);
* its fast paths: a statement run on the library's own connection for the hot paths
  (:meth:`run_raw`, :mod:`.direct`) and the bulk copy of ``migrate-to`` (:meth:`copy_rows`).

Connections run in autocommit mode (no implicit transaction): a transaction is an explicit
``BEGIN ... COMMIT`` (:meth:`Driver.transaction`), as short as the write it holds.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal
from urllib.parse import urlsplit

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from .failures import StoreBusy, StoreError, StoreUnavailable

Role = Literal["writer", "bookkeeping", "reader"]
Values = Sequence[Any] | Mapping[str, Any]
Target = str | Path


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


def scheme_of(target: Target) -> str | None:
    """The URL scheme a target is written with (``postgresql`` of ``postgresql://...``), or
    None for a path."""
    if not isinstance(target, str):
        return None
    found = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://", target)
    return found.group(1).lower() if found else None


def redact_url(url: str) -> str:
    """``url`` without its password (in the user part or a ``password=`` parameter), for
    messages and logs."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return f"{scheme_of(url) or 'database'}://..."
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", ":***@", 1)
    query = re.sub(r"(?i)(^|&)(password=)[^&]*", r"\1\2***", parts.query)
    return parts._replace(netloc=netloc, query=query).geturl()


class Driver:
    """One engine (see the module's docstring). The defaults here are a server's, reached by a
    URL; the file engine overrides what differs."""

    name: ClassVar[str]  # SQLAlchemy's dialect name
    # The URL schemes it answers to (``postgresql://``); none for the file engine.
    schemes: ClassVar[tuple[str, ...]] = ()
    # Whether every process can reach the database (a server), rather than those of one
    # machine (a file): several processes (shards) may then share it.
    shared: ClassVar[bool] = True
    begin_write: ClassVar[str] = "BEGIN"
    # A transaction that reads one snapshot of the whole database (migrate-to's source).
    begin_snapshot: ClassVar[str] = "BEGIN"
    # The first words of the message when the first connection cannot be made.
    failed_to_open: ClassVar[str] = "cannot open the database"
    # What the engine's library raises: any error, and a constraint that refused a row.
    errors: ClassVar[tuple[type[Exception], ...]] = ()
    integrity_errors: ClassVar[tuple[type[Exception], ...]] = ()
    # Its library's loggers: kept at INFO or above whatever LOG_LEVEL says (bot/__main__.py),
    # since at DEBUG a database library logs statements with their parameters (the record:
    # every hand, and the secret seed).
    loggers: ClassVar[tuple[str, ...]] = ()

    # ---- targets

    def claims(self, target: Target) -> bool:
        """Whether ``target`` names a database of this engine."""
        return scheme_of(target) in self.schemes

    def check(self, target: Target) -> None:
        """Raise :class:`StoreError` (one line, no password) if ``target`` cannot name a
        database of this engine (a malformed URL); nothing is opened."""

    async def prepare(self, target: Target) -> None:
        """Checks before anything is opened; raise :class:`StoreError` to refuse."""
        self.check(target)

    def describe(self, target: Target) -> str:
        """Where the data is, for logs and messages (never a password)."""
        return redact_url(str(target))

    def url_of(self, target: Target) -> str | None:
        """The database server's URL (None: a file, ``Store.path``)."""
        return str(target)

    def sync_url(self, target: Target, *, read_only: bool = False) -> sa.URL:
        """The URL of a synchronous SQLAlchemy engine on ``target`` (``migrate-to``, tools);
        ``read_only``: one that cannot write, where the engine can say so in its URL."""
        raise NotImplementedError

    # ---- connections

    def engine(self, target: Target, role: Role, made: list[int]) -> AsyncEngine:
        raise NotImplementedError

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

    async def rollback(self, conn: AsyncConnection) -> None:
        """End the connection's transaction if one is open: after a full disk or an I/O
        error SQLite may have rolled it back itself, and a second ROLLBACK would fail. A
        connection the server dropped is made again at its next statement."""
        if conn.invalidated:
            await conn.rollback()
            return
        if self.in_transaction(conn.sync_connection):  # type: ignore[arg-type]
            await conn.exec_driver_sql("ROLLBACK")

    @contextlib.asynccontextmanager
    async def transaction(
        self, conn: AsyncConnection, begin: str | None = None, *, commit: bool = True
    ) -> AsyncIterator[AsyncConnection]:
        """``BEGIN`` (the engine's write lock, or ``begin``) ... ``COMMIT``; rolled back if
        the block raises (or ``commit`` is False)."""
        await conn.exec_driver_sql(begin or self.begin_write)
        try:
            yield conn
        except BaseException:
            with contextlib.suppress(Exception):
                await self.rollback(conn)
            raise
        if commit:
            await conn.exec_driver_sql("COMMIT")
        else:
            await self.rollback(conn)

    # ---- errors

    def classify(self, error: Exception) -> StoreBusy | StoreUnavailable | None:
        """What one of :attr:`errors` means: busy, unavailable (a lost connection too), or
        None for anything else (a bug or damage, which keeps its traceback)."""
        return None

    # ---- fast paths

    def raw_dialect(self, dialect: sa.Dialect) -> sa.Dialect:
        """The dialect that renders a statement for :meth:`run_raw` (the connection's own)."""
        return dialect

    async def run_raw(
        self, connection: Any, sql: str, values: Values, returns_rows: bool
    ) -> tuple[int, list[tuple[Any, ...]]]:
        """One statement on the library's own connection: (rows changed, rows returned);
        ``returns_rows``: it returns rows (a read, or RETURNING), the first figure is then
        how many."""
        raise NotImplementedError

    def copy_rows(
        self, conn: sa.Connection, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]
    ) -> None:
        """Write ``rows`` into ``table`` (inside the caller's transaction), the engine's
        fastest way; by default, inserts of a thousand rows at a time."""
        insert = sa.table(table, *(sa.column(name) for name in columns)).insert()
        batch: list[dict[str, Any]] = []
        for row in rows:
            batch.append(dict(zip(columns, row, strict=True)))
            if len(batch) == 1000:
                conn.execute(insert, batch)
                batch = []
        if batch:
            conn.execute(insert, batch)

    def after_copy(self, conn: sa.Connection) -> None:
        """Once every table is copied in (same transaction): what makes the next row's
        generated id follow the copied ones, where the engine does not see it by itself."""

    def check_copy_source(self, target: Target) -> None:
        """Raise :class:`StoreError` if ``target`` cannot be copied from now (it is not there,
        or a bot is running on it); read-only."""


def one_connection(url: sa.URL, connect_args: dict[str, Any]) -> AsyncEngine:
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


def counted(engine: AsyncEngine, made: list[int], setup: Callable[[Any, Any], None]) -> None:
    """Count the connections ``engine`` makes (see :class:`Opened`), setting each up."""

    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_connection: Any, record: Any) -> None:
        made[0] += 1
        setup(dbapi_connection, record)
