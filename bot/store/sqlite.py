"""The SQLite engine: a file in WAL mode, through aiosqlite (the default engine: any target that
no other driver claims is an SQLite file). The file is looked at read-only before it is opened
(:mod:`.sqlite_file`).

Why aiosqlite: the async driver SQLAlchemy supports for SQLite, well kept, each connection in
its own thread (a read never holds up the event loop, nor the writer's commit).
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from .driver import Driver, Role, Target, Values, counted, one_connection
from .failures import StoreBusy, StoreError, StoreUnavailable
from .sqlite_file import BUSY_TIMEOUT_SECONDS, inspect_database

_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
# Primary result codes (an extended code, e.g. SQLITE_IOERR_WRITE, keeps its primary code in
# the low byte): the database cannot be written until the operator acts.
_UNAVAILABLE = {
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_IOERR: "the disk reports an I/O error",
    sqlite3.SQLITE_READONLY: "the database has become read-only",
    sqlite3.SQLITE_CANTOPEN: "the database's files cannot be opened",
}
# A running bot touches this file beside its database every 30 s (bot.client.beat).
_HEARTBEAT = "kachuful.heartbeat"
_HEARTBEAT_FRESH_SECONDS = 90


class SQLite(Driver):
    name = "sqlite"
    loggers = ("aiosqlite",)
    shared = False  # only processes of one machine could open it; the bot gives it to one
    begin_write = "BEGIN IMMEDIATE"
    errors = (sqlite3.Error,)
    integrity_errors = (sqlite3.IntegrityError,)
    # Per role: the writer's commit is fsynced (FULL: a move that was posted survives a power
    # cut); the bookkeeping's is not (a post it forgets is sent again with the same nonce,
    # which Discord drops); the reader waits longer, it holds nobody up.
    PRAGMAS: ClassVar[dict[Role, tuple[str, ...]]] = {
        "writer": ("journal_mode = WAL", "synchronous = FULL", "foreign_keys = ON"),
        "bookkeeping": ("synchronous = NORMAL", "foreign_keys = ON"),
        "reader": (),
    }

    # ---- targets: a path (the file engine claims what no server engine does)

    def claims(self, target: Target) -> bool:
        return not isinstance(target, str) or "://" not in target

    async def prepare(self, target: Target) -> None:
        path = Path(target)
        # Read-only checks run before anything is created or written: a file that will be
        # refused is left byte for byte as it was.
        await asyncio.to_thread(inspect_database, path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot open the database {str(path)!r}: {error}") from error

    def describe(self, target: Target) -> str:
        return repr(str(target))

    def url_of(self, target: Target) -> str | None:
        return None

    def sync_url(self, target: Target, *, read_only: bool = False) -> sa.URL:
        if not read_only:
            return sa.URL.create("sqlite", database=str(target))
        uri = f"{Path(target).resolve().as_uri()}?mode=ro"
        return sa.URL.create("sqlite", database=uri, query={"uri": "true"})

    # ---- connections

    def engine(self, target: Target, role: Role, made: list[int]) -> AsyncEngine:
        path = Path(target).resolve()
        database = path.as_uri() + ("?mode=ro" if role == "reader" else "")
        busy = 5000 if role == "reader" else int(BUSY_TIMEOUT_SECONDS * 1000)
        url = sa.URL.create("sqlite+aiosqlite", database=database, query={"uri": "true"})
        engine = one_connection(url, {"timeout": BUSY_TIMEOUT_SECONDS})
        pragmas = (*self.PRAGMAS[role], f"busy_timeout = {busy}")

        def setup(dbapi_connection: Any, record: Any) -> None:
            cursor = dbapi_connection.cursor()
            try:
                for pragma in pragmas:
                    cursor.execute(f"PRAGMA {pragma}")
                    cursor.fetchall()
            finally:
                cursor.close()

        counted(engine, made, setup)
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

    # ---- errors

    def classify(self, error: Exception) -> StoreBusy | StoreUnavailable | None:
        code = getattr(error, "sqlite_errorcode", None)
        if not isinstance(code, int):
            return None
        if code in _BUSY:
            return StoreBusy("the database is locked by another process")
        reason = _UNAVAILABLE.get(code & 0xFF)
        if reason is not None:
            # SQLite's own words ("database or disk is full") name no data of the bot.
            return StoreUnavailable(f"{reason} ({error})")
        return None

    # ---- fast paths

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

    def check_copy_source(self, target: Target) -> None:
        path = Path(target)
        if not path.is_file():
            raise StoreError(f"no SQLite database at {str(path)!r}")
        inspect_database(path)  # read-only: this bot's database, not damaged, not newer
        try:
            age = time.time() - (path.parent / _HEARTBEAT).stat().st_mtime
        except OSError:
            return
        if age < _HEARTBEAT_FRESH_SECONDS:
            raise StoreError(
                f"a bot is running on {str(path)!r} (heartbeat {age:.0f} s ago): stop it first"
            )
