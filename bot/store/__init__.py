"""Persistence: every SQL statement of the bot lives in this package.

One engine of two, chosen by what :meth:`Store.open` is given (``Settings.database``): an
SQLite file in WAL mode, opened with aiosqlite (the default), or a PostgreSQL database
(``KACHUFUL_DATABASE_URL``), through psycopg 3 (:mod:`.postgres`). The SQL is written once,
in SQLite's words, and translated for PostgreSQL in one place (:mod:`.dialect`); callers see
the operations of :class:`~.protocol.GameStore` and never which engine is under them. What
follows holds on both (on PostgreSQL the reader is a read-only session, and a row lock
stands in for SQLite's database lock).

Schema changes are the numbered files in ``migrations/`` applied in order at start-up and
recorded in ``schema_version`` (on PostgreSQL under an advisory lock, so that processes
starting together migrate once). Every applied
action is written by one :meth:`Store.save_game` call: one transaction, guarded by the game's
move counter so that two writers can never both win.

A finished game's results, aggregates and rating changes are written in the transaction that
marks it finished (:mod:`.results`). Reads for leaderboards, statistics and history go through
:attr:`Store.reads` (:mod:`.stats`): a second, read-only connection that WAL lets run beside
the writer, never under the writer's lock, so that no move waits for a read.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import os
import re
import sqlite3
import stat
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import aiosqlite

from bot import rating as _rating
from bot.model import HISTORY_POST_KEYS, OPEN_STATUSES, GameStatus, Seat, Table, TableOptions
from bot.shards import ALL_SHARDS, Shards

from . import reads as _reads
from . import results as _results
from .failures import (
    DATABASE_ERRORS,
    INTEGRITY_ERRORS,
    FailureLog,
    StoreBusy,
    StoreError,
    StoreUnavailable,
    classify,
)
from .postgres import Connection, PgConnection, is_postgres_url, redacted
from .protocol import GameStore
from .rows import SELECT_GAME, game_from_row, parse_time
from .table_json import options_to_json, seat_to_json
from .values import DealLine, Delivered, GameRef, ResultRow

__all__ = [
    "ChannelBusy",
    "DealLine",
    "Delivered",
    "GameRef",
    "GameStore",
    "ResultRow",
    "StaleWrite",
    "Store",
    "StoreBusy",
    "StoreError",
    "StoreUnavailable",
    "inspect_database",
]

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

_MIGRATION_NAME = re.compile(r"^(\d{4})_[\w-]+\.sql$")
SQLITE_HEADER = b"SQLite format 3\x00"
# A locked database must fail well inside Discord's 3 s deadline for answering a click.
BUSY_TIMEOUT_SECONDS = 1.5
# claim_interval: moments as zero-padded milliseconds, and how far ahead a claim may be.
_MOMENT_DIGITS = 15
_CLAIM_SKEW_MS = 60_000
_OUR_SCHEMA_VERSION_COLUMNS = ("version", "name", "applied_at")
# What a failure to move the period windows on may raise (it is logged, not the caller's).
_EXPIRE_ERRORS: tuple[type[Exception], ...] = (StoreError, *DATABASE_ERRORS)
# PostgreSQL advisory lock key held while migrating ("kachuful" in ASCII).
MIGRATION_LOCK = 0x6B61636875667C


class ChannelBusy(StoreError):
    """The channel already has an open game (lobby or running)."""

    def __init__(self, game_id: int | None) -> None:
        super().__init__(f"channel already has open game {game_id}")
        self.game_id = game_id


class StaleWrite(StoreError):
    """save_game found another version in the database than the one it was based on."""


def _is_busy(error: BaseException) -> bool:
    return isinstance(classify(error), StoreBusy)


def _serialized(
    method: Callable[Concatenate[Store, P], Awaitable[R]],
) -> Callable[Concatenate[Store, P], Awaitable[R]]:
    """Run a Store method while holding the store's lock (one transaction at a time).

    An expected failure (a database locked by another process, a full disk...) becomes
    :class:`StoreBusy` or :class:`StoreUnavailable`, logged once per incident, after making
    sure no transaction of this connection is left open (so nothing of the write can be
    committed later by an unrelated statement)."""

    async def wrapper(self: Store, /, *args: P.args, **kwargs: P.kwargs) -> R:
        async with self._lock:
            try:
                return await method(self, *args, **kwargs)
            except DATABASE_ERRORS as error:
                failure = classify(error)
                if failure is None:
                    raise
                with contextlib.suppress(*DATABASE_ERRORS):
                    await _rollback(self._db)
                self.failures.failed(failure)
                raise failure from None

    functools.update_wrapper(wrapper, method)
    return wrapper


def _writes(
    method: Callable[Concatenate[Store, P], Awaitable[R]],
) -> Callable[Concatenate[Store, P], Awaitable[R]]:
    """A Store method that writes (under :func:`_serialized`): its success ends a storage
    incident."""

    async def wrapper(self: Store, /, *args: P.args, **kwargs: P.kwargs) -> R:
        result = await method(self, *args, **kwargs)
        self.failures.wrote()
        return result

    functools.update_wrapper(wrapper, method)
    return wrapper


def _bookkeeping(
    method: Callable[Concatenate[Store, P], Awaitable[R]],
) -> Callable[Concatenate[Store, P], Awaitable[R]]:
    """Run a Store method on the bookkeeping connection (what was delivered to Discord, the
    open hand messages), under its own lock, so that it never waits behind a move's commit
    in this process; an expected failure is raised and logged as for the game writes."""

    async def wrapper(self: Store, /, *args: P.args, **kwargs: P.kwargs) -> R:
        async with self._book_lock:
            try:
                result = await method(self, *args, **kwargs)
            except DATABASE_ERRORS as error:
                failure = classify(error)
                if failure is None:
                    raise
                self.failures.failed(failure)
                raise failure from None
        self.failures.wrote()
        return result

    functools.update_wrapper(wrapper, method)
    return wrapper


async def _rollback(db: Connection) -> None:
    """End the connection's transaction if one is open: after a full disk or an I/O error
    SQLite may have rolled it back itself, and a second ROLLBACK would fail."""
    if db.in_transaction:
        await _run(db, "ROLLBACK")


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _dump_record(record: dict[str, Any] | None) -> str | None:
    return None if record is None else _dump(record)


def load_migrations() -> list[tuple[int, str, str]]:
    """The migration files in order: (version, file name, SQL text)."""
    found: list[tuple[int, str, str]] = []
    folder = resources.files(__package__).joinpath("migrations")
    for entry in folder.iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [version for version, _, _ in found]
    # Numbers are unique and start at 1. A gap is allowed: branches developed side by side
    # reserve numbers (0002 on one, 0003 on another), and migrate() applies every file not
    # yet recorded, so a database migrated before the gap was filled still gets the file.
    if len(set(versions)) != len(versions) or (versions and versions[0] != 1):
        raise StoreError(f"migrations must be numbered 0001, 0002, ... once each: {versions}")
    return found


def split_statements(script: str) -> list[str]:
    """Split a migration into single statements (sqlite3.complete_statement decides)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            statement = buffer.strip()
            if statement and not all(
                part.strip().startswith("--") or not part.strip() for part in statement.splitlines()
            ):
                statements.append(statement)
            buffer = ""
    if buffer.strip() and not all(
        part.strip().startswith("--") or not part.strip() for part in buffer.splitlines()
    ):
        raise StoreError("a migration ends with an incomplete SQL statement")
    return statements


async def _run(db: Connection, sql: str, params: Sequence[Any] = ()) -> int:
    """Execute one statement to the end and close its cursor; return the rows changed.

    Every cursor is closed at once: an open statement (even a PRAGMA's unread result row)
    would make the next COMMIT fail with "SQL statements in progress".
    """
    async with db.execute(sql, params) as cursor:
        await cursor.fetchall()
        return cursor.rowcount


def _refuse(path: Path, reason: str) -> StoreError:
    # One line for the operator, whatever SQLite's message holds (quick_check's are several).
    return StoreError(f"cannot open the database {str(path)!r}: {' '.join(reason.split())}")


def inspect_database(path: Path) -> None:
    """Check, without writing anything, that ``path`` is this bot's database (or can become
    one); raise :class:`StoreError` with the reason otherwise.

    Opening a file read-write first would already change it (WAL mode, a -wal file, the
    schema_version table of migration), so another application's file or a damaged one is
    looked at read-only and refused untouched. The one write: a hot rollback journal (a
    process killed in the middle of a write) is rolled back first, as SQLite does for any
    client that opens the file, since the file cannot be read before.
    """
    try:
        info = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        _check_new_location(path)
        return
    except OSError as error:
        raise _refuse(path, error.strerror or type(error).__name__) from None
    if stat.S_ISDIR(info.st_mode):
        raise _refuse(path, "it is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(path, "it is not a regular file")
    # Root may write a file whatever its mode; a file nobody may write is still meant to be
    # read-only, and refusing it beats a half-working bot that fails at its first move.
    if not info.st_mode & 0o222 or not os.access(path, os.R_OK | os.W_OK):
        raise _refuse(path, "the file is read-only (the bot must write to it)")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise _refuse(path, f"its folder {str(path.parent)!r} is not writable (SQLite needs it)")
    if Path(f"{path}-journal").exists():
        _roll_back_hot_journal(path)
        info = path.stat()
    if info.st_size == 0:
        return  # an empty file is an empty SQLite database
    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as error:
        raise _refuse(path, error.strerror or type(error).__name__) from None
    if header != SQLITE_HEADER:
        raise _refuse(path, "it is not an SQLite database")
    _check_contents(path)


def _check_new_location(path: Path) -> None:
    folder = path.parent
    while not folder.exists():
        if folder.parent == folder:
            break
        folder = folder.parent
    if not folder.is_dir():
        raise _refuse(path, f"{str(folder)!r} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _refuse(path, f"the folder {str(folder)!r} is not writable")


def _roll_back_hot_journal(path: Path) -> None:
    """A process killed in the middle of a write in rollback-journal mode (a new file, in the
    moment before it is switched to WAL) leaves a hot ``-journal``: the file cannot even be
    read until it is rolled back, which SQLite does at the first read of a connection that may
    write. That only puts back the last committed state, as any SQLite client opening the file
    would; nothing else is written."""
    try:
        with contextlib.closing(sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS)) as raw:
            raw.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as error:
        raise _refuse(path, f"its interrupted write could not be rolled back ({error})") from None


def _check_contents(path: Path) -> None:
    uri = f"{path.resolve().as_uri()}?mode=ro"
    if not any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-journal")):
        # Nothing is being written to it (no other process has it open for writing, no crash
        # left a journal behind), so the file alone is the database: "immutable" reads it
        # without creating the -wal and -shm files a WAL database needs even to be read.
        uri += "&immutable=1"
    try:
        raw = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS)
    except sqlite3.Error as error:
        raise _refuse(path, str(error)) from None
    try:
        check = raw.execute("PRAGMA quick_check(1)").fetchone()
        if not check or check[0] != "ok":
            raise _refuse(path, f"the database is damaged ({check[0] if check else 'no answer'})")
        tables = {
            row[0]
            for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not str(row[0]).startswith("sqlite_")
        }
        if not tables:
            return
        if "schema_version" not in tables:
            raise _refuse(path, "it is not this bot's database " + _foreign(tables))
        columns = tuple(row[1] for row in raw.execute("PRAGMA table_info(schema_version)"))
        if columns != _OUR_SCHEMA_VERSION_COLUMNS:
            raise _refuse(path, "its schema_version table is not this bot's " + _foreign(tables))
        ours = {version: name for version, name, _ in load_migrations()}
        applied = raw.execute(
            "SELECT version, name FROM schema_version ORDER BY version"
        ).fetchall()
        for version, name in applied:
            if version in ours and ours[version] != name:
                raise _refuse(
                    path,
                    f"its schema_version table names {name!r} for version {version}, "
                    f"not this bot's {ours[version]!r} " + _foreign(tables),
                )
        if not applied and tables != {"schema_version"}:
            raise _refuse(path, "it is not this bot's database " + _foreign(tables))
        newest = max((version for version, _ in applied), default=0)
        if newest > len(ours):
            raise _refuse(
                path,
                f"the database is at schema version {newest}, newer than this bot "
                f"({len(ours)}); upgrade the bot",
            )
        if applied and not {"games", "results"} <= tables:
            raise _refuse(path, "tables of this bot are missing " + _foreign(tables))
    except sqlite3.Error as error:
        if isinstance(error, sqlite3.DatabaseError) and "not a database" in str(error):
            raise _refuse(path, "it is not an SQLite database") from None
        if isinstance(error, sqlite3.DatabaseError) and "malformed" in str(error):
            raise _refuse(path, "the database is damaged (malformed)") from None
        raise _refuse(path, str(error)) from None
    finally:
        raw.close()


def _foreign(tables: set[str]) -> str:
    shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
    return f"(tables: {shown}); it was left unchanged"


_UPDATE_GAME = (
    "UPDATE games SET host_id = ?, status = ?, rules = ?, max_seats = ?, seed = ?,"
    " record = ?, seats = ?, message_id = ?, version = ?, updated_at = ?, ended = ?, settled = ?"
    " WHERE id = ? AND version = ?"
)
_INSERT_RESULT = (
    "INSERT INTO results (game_id, seat, guild_id, channel_id, user_id, score, won,"
    " bids_exact, bids, finished_at, name, level, place)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


async def _backfill(db: Connection, today: str) -> None:
    await _results.backfill(db)


# Python steps of a migration, run in its transaction after its SQL (with today's UTC date).
_AFTER_MIGRATION: dict[int, Callable[[Connection, str], Awaitable[None]]] = {
    3: _backfill,
    5: _results.rebuild_all_periods,
}


async def _open_bookkeeping(path: Path) -> aiosqlite.Connection:
    book = await aiosqlite.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_SECONDS)
    try:
        for pragma in (
            "PRAGMA synchronous = NORMAL",
            "PRAGMA foreign_keys = ON",
            f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}",
        ):
            await _run(book, pragma)
    except BaseException:
        await book.close()
        raise
    return book


@dataclass(slots=True)
class _PendingMove:
    game_id: int
    based_on: int
    update: tuple[Any, ...]
    done: asyncio.Future[None]


def _update_all(conn: sqlite3.Connection, updates: list[tuple[Any, ...]]) -> list[bool]:
    """Apply game UPDATEs in one transaction (on aiosqlite's thread); which ones changed a
    row (a stale one changes nothing)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        changed = [conn.execute(_UPDATE_GAME, update).rowcount == 1 for update in updates]
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return changed


async def _update_all_postgres(db: PgConnection, updates: list[tuple[Any, ...]]) -> list[bool]:
    """:func:`_update_all` on PostgreSQL: one transaction, one commit for the batch, and the
    UPDATEs sent together (one round trip, however many tables moved)."""
    await _run(db, "BEGIN")
    try:
        changed = [count == 1 for count in await db.rowcounts(_UPDATE_GAME, updates)]
        await _run(db, "COMMIT")
    except BaseException:
        with contextlib.suppress(*DATABASE_ERRORS):
            await _rollback(db)
        raise
    return changed


def _settle(future: asyncio.Future[None], error: BaseException | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)


class Store:
    """The bot's database. Create with :meth:`open`; close with :meth:`close`."""

    def __init__(
        self,
        db: Connection,
        path: Path,
        clock: Callable[[], datetime],
        *,
        url: str | None = None,
    ) -> None:
        self._db = db
        self.path = path
        # The PostgreSQL database (None: the SQLite file at ``path``).
        self.url = url
        self._clock = clock
        # One connection serves every table: transactions must not interleave.
        self._lock = asyncio.Lock()
        self._closed = False
        self._reads: _reads.Reads | None = None
        # The delivery bookkeeping has a connection of its own with synchronous = NORMAL: a
        # game's commit is fsynced (FULL), and its WAL sync covers the bookkeeping written
        # before it; only the bookkeeping of the last moments before a power cut can be lost,
        # and then a message is posted again with the same nonce, which Discord drops.
        self._book: Connection = db
        self._book_lock = asyncio.Lock()
        # The last day each server's period windows were moved on to (expire_periods).
        self._expired: dict[int, str] = {}
        # Storage incidents (disk full, locked by another process), logged once each.
        self.failures = FailureLog()
        # Moves waiting for the next group commit (see _write_move), and its task.
        self._moves: list[_PendingMove] = []
        self._mover: asyncio.Task[None] | None = None

    def busy(self) -> bool:
        """Whether a write is under way (a new one would wait for it)."""
        return self._lock.locked()

    @property
    def reads(self) -> _reads.Reads:
        """Leaderboards, statistics, history and settings, on the read-only connection."""
        if self._reads is None:
            raise StoreError("the store is not open")
        return self._reads

    # ------------------------------------------------------------------ lifecycle

    @property
    def postgres(self) -> bool:
        return self.url is not None

    def describe(self) -> str:
        """Where the data is, for logs (a URL without its password)."""
        return redacted(self.url) if self.url is not None else str(self.path)

    @classmethod
    async def open(cls, path: str | Path, *, clock: Callable[[], datetime] | None = None) -> Store:
        """Open (creating the file and its folder if needed) and apply pending migrations.
        ``path``: the SQLite file, or a ``postgresql://`` URL (an existing database)."""
        if is_postgres_url(path):
            return await cls._open_postgres(str(path), clock or _utcnow)
        path = Path(path)
        # Read-only checks run before anything is created or written: a file that will be
        # refused is left byte for byte as it was.
        await asyncio.to_thread(inspect_database, path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            db = await aiosqlite.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_SECONDS)
        except (OSError, sqlite3.Error) as error:
            raise StoreError(f"cannot open the database {str(path)!r}: {error}") from error
        store = cls(db, path, clock or _utcnow)
        try:
            for pragma in (
                "PRAGMA journal_mode = WAL",
                # FULL: a move that has been posted survives a power cut, not only a crash.
                "PRAGMA synchronous = FULL",
                "PRAGMA foreign_keys = ON",
                f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}",
            ):
                await _run(db, pragma)
            await store.migrate()
            store._reads = await _reads.Reads.open(
                path, clock=store._clock, expire=store.expire_periods
            )
            store._book = await _open_bookkeeping(path)
        except DATABASE_ERRORS as error:
            await db.close()
            reason = "it is locked by another process" if _is_busy(error) else str(error)
            raise StoreError(f"cannot open the database {str(path)!r}: {reason}") from None
        except BaseException:
            await db.close()
            raise
        return store

    @classmethod
    async def _open_postgres(cls, url: str, clock: Callable[[], datetime]) -> Store:
        """Three connections, as the SQLite store has: the writer (game moves, under the
        store's lock), the bookkeeping (delivered posts, hand messages) and the reader
        (leaderboards): a move's commit never waits behind a read or the bookkeeping."""
        opened: list[PgConnection] = []
        try:
            for role in ("writer", "bookkeeping", "reader"):
                opened.append(
                    await PgConnection.connect(
                        url,
                        application=f"kachuful-{role}",
                        read_only=role == "reader",
                        # As on SQLite: the bookkeeping's commits are not flushed one by
                        # one; a post it forgets in a crash is sent again with the same
                        # nonce, which Discord drops.
                        durable=role != "bookkeeping",
                    )
                )
            db, book, reader = opened
            store = cls(db, Path(), clock, url=url)
            # Processes starting at once migrate one after the other (the lock is the
            # session's, let go when this connection's migration is done).
            await _run(db, "SELECT pg_advisory_lock(?)", (MIGRATION_LOCK,))
            try:
                await store.migrate()
            finally:
                await _run(db, "SELECT pg_advisory_unlock(?)", (MIGRATION_LOCK,))
            store._reads = _reads.Reads(reader, clock=clock, expire=store.expire_periods)
            store._book = book
        except DATABASE_ERRORS as error:
            for conn in opened:
                await conn.close()
            reason = " ".join(str(error).split()) or type(error).__name__
            raise StoreError(f"cannot open the database {redacted(url)}: {reason}") from None
        except BaseException:
            for conn in opened:
                await conn.close()
            raise
        return store

    @_serialized
    async def close(self) -> None:
        """Checkpoint the WAL into the database file and close (idempotent): a stopped bot
        leaves one self-contained file to back up or move."""
        if self._closed:
            return
        self._closed = True
        if self._mover is not None and not self._mover.done():
            # The moves already handed in are committed before the connection goes.
            with contextlib.suppress(Exception):
                await self._mover
        if self._reads is not None:
            # First: a reader's open snapshot would keep the checkpoint from emptying the WAL.
            await self._reads.close()
        if self._book is not self._db:
            async with self._book_lock:
                await self._book.close()
        if self.postgres:
            await self._db.close()
            return
        try:
            await _run(self._db, "PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as error:
            log.warning("database checkpoint at close failed: %s", error)
        await self._db.close()

    @_serialized
    async def check_writable(self) -> None:
        """Take the database's write lock and let it go (for the health check); raises
        :class:`StoreBusy` if another process holds it, :class:`StoreUnavailable` if the file
        has become read-only, :class:`StoreError` for anything else."""
        if self.postgres:
            # PostgreSQL has no database-wide write lock: a read-write transaction is the check
            # (a server in recovery, or read-only, refuses it).
            await _run(self._db, "BEGIN READ WRITE")
            try:
                await _run(self._db, "CREATE TEMP TABLE IF NOT EXISTS kachuful_health (x INTEGER)")
            finally:
                await _rollback(self._db)
            return
        try:
            await _run(self._db, "BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if classify(error) is not None:
                raise
            raise StoreError(f"the database cannot be written: {error}") from None
        await _rollback(self._db)

    @_serialized
    async def pragma(self, name: str) -> Any:
        """The value of one connection setting (journal_mode, synchronous, busy_timeout...)."""
        if not name.isidentifier():
            raise ValueError(f"not a pragma name: {name!r}")
        if self.postgres:
            raise StoreError("PRAGMA is SQLite's; this store is on PostgreSQL")
        async with self._db.execute(f"PRAGMA {name}") as cursor:
            row = await cursor.fetchone()
        return row[0] if row else None

    @_serialized
    async def journal_mode(self) -> str:
        if self.postgres:
            return ""
        async with self._db.execute("PRAGMA journal_mode") as cursor:
            row = await cursor.fetchone()
        return str(row[0]) if row else ""

    async def schema_version(self) -> int:
        exists = (
            "SELECT to_regclass('schema_version')::text WHERE to_regclass('schema_version')"
            " IS NOT NULL"
            if self.postgres
            else "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
        )
        async with self._db.execute(exists) as cursor:
            if await cursor.fetchone() is None:
                return 0
        query = "SELECT COALESCE(MAX(version), 0) FROM schema_version"
        async with self._db.execute(query) as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def migrate(self) -> list[int]:
        """Apply every migration newer than the database; return the versions applied."""
        await _run(
            self._db,
            "CREATE TABLE IF NOT EXISTS schema_version ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
        )
        async with self._db.execute("SELECT version FROM schema_version") as cursor:
            done = {int(row[0]) for row in await cursor.fetchall()}
        applied: list[int] = []
        migrations = load_migrations()
        known = {version for version, _, _ in migrations}
        if done - known:
            raise StoreError(
                f"the database is at schema version {max(done)}, newer than this bot "
                f"({max(known)}); upgrade the bot"
            )
        for version, name, script in migrations:
            if version in done:
                continue
            await _run(self._db, "BEGIN IMMEDIATE")
            try:
                for statement in split_statements(script):
                    await _run(self._db, statement)
                after = _AFTER_MIGRATION.get(version)
                if after is not None:
                    await after(self._db, _iso(self._clock())[:10])
                await _run(
                    self._db,
                    "INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)",
                    (version, name, _iso(self._clock())),
                )
            except BaseException:
                await _rollback(self._db)
                raise
            await _run(self._db, "COMMIT")
            log.info("applied database migration %s", name)
            applied.append(version)
        return applied

    # ------------------------------------------------------------------ games

    @_serialized
    @_writes
    async def create_game(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        options: TableOptions,
        max_seats: int,
        seats: Sequence[Seat],
        lobby_token: str | None = None,
    ) -> Table:
        """Open a lobby. Raises :class:`ChannelBusy` if the channel has an open game.
        ``lobby_token``: the interaction that is about to answer with the lobby."""
        now = self._clock()
        await _run(self._db, "BEGIN IMMEDIATE")
        try:
            async with self._db.execute(
                "INSERT INTO games (guild_id, channel_id, host_id, status, rules, max_seats, seats,"
                " version, created_at, updated_at, settled, lobby_token)"
                " VALUES (?, ?, ?, 'lobby', ?, ?, ?, 0, ?, ?, 0, ?) RETURNING id",
                (
                    guild_id,
                    channel_id,
                    host_id,
                    _dump(options_to_json(options)),
                    max_seats,
                    _dump([seat_to_json(seat) for seat in seats]),
                    _iso(now),
                    _iso(now),
                    lobby_token,
                ),
            ) as cursor:
                row = await cursor.fetchone()
                game_id = int(row[0]) if row else None
        except INTEGRITY_ERRORS:
            await _rollback(self._db)
            async with self._db.execute(
                "SELECT id FROM games WHERE channel_id = ? AND status IN (?, ?)",
                (channel_id, *OPEN_STATUSES),
            ) as cursor:
                row = await cursor.fetchone()
            raise ChannelBusy(int(row[0]) if row else None) from None
        except BaseException:
            await _rollback(self._db)
            raise
        await _run(self._db, "COMMIT")
        assert game_id is not None
        return Table(
            id=game_id,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            status="lobby",
            options=options,
            max_seats=max_seats,
            seats=list(seats),
            created_at=now,
            updated_at=now,
            settled=False,
        )

    async def save_game(
        self,
        game: Table,
        *,
        record: str | None = None,
        previous_version: int | None = None,
        results: Iterable[ResultRow] = (),
    ) -> None:
        """Write everything about a game at once, in one transaction.

        ``record`` is the game record as JSON text when the caller made it (a running game's
        lives in the engine, not in the row); otherwise the row's own record is written.

        ``previous_version`` is the move counter the change was based on (default
        ``game.version - 1``); if the database holds another one, nothing is written and
        :class:`StaleWrite` is raised. ``results`` are written in the same transaction (when
        the game finishes).
        """
        based_on = game.version - 1 if previous_version is None else previous_version
        now = self._clock()
        # Serialised before the store's lock is taken: the lock is held only for the writes.
        update = (
            game.host_id,
            game.status,
            _dump(options_to_json(game.options)),
            game.max_seats,
            game.seed,
            record if record is not None else _dump_record(game.record),
            _dump([seat_to_json(seat) for seat in game.seats]),
            game.message_id,
            game.version,
            _iso(now),
            game.ended,
            int(game.settled),
            game.id,
            based_on,
        )
        finished_at = _iso(now)
        seats = _finished_seats(game, list(results), record)
        rows = [
            (
                game.id,
                seat.seat,
                game.guild_id,
                game.channel_id,
                seat.user_id,
                seat.score,
                int(seat.won),
                seat.bids_exact,
                seat.bids,
                finished_at,
                seat.name,
                seat.level,
                seat.place,
            )
            for seat in seats
        ]
        if rows:
            await self._write_game(game, based_on, update, rows, seats, finished_at)
        else:
            await self._write_move(game.id, based_on, update)
        game.updated_at = now
        if rows:
            # The day's first finished game of the server moves its period windows on, after
            # (not in) the finish transaction: the game is counted already, and the windows
            # count the same whether they move before or after it.
            try:
                await self.expire_periods(game.guild_id, finished_at[:10])
            except _EXPIRE_ERRORS as error:
                # The next finish or period board read tries again.
                log.warning("moving the period boards on failed: %s", error)

    async def _write_move(self, game_id: int, based_on: int, update: tuple[Any, ...]) -> None:
        """A move's UPDATE, committed together with the other tables' moves that queued
        meanwhile: one fsync (``synchronous = FULL``) for all of them, instead of each click
        waiting behind every other table's fsync in turn. Returns once its commit is on disk;
        raises as :meth:`save_game` does, for this move alone (a stale UPDATE changes nothing,
        so the others commit)."""
        loop = asyncio.get_running_loop()
        pending = _PendingMove(game_id, based_on, update, loop.create_future())
        self._moves.append(pending)
        if self._mover is None or self._mover.done():
            self._mover = loop.create_task(self._commit_moves(), name="kachuful-store-moves")
        # Shielded: a caller cancelled mid-commit must not cancel the other tables' moves;
        # it reloads its game from the database, which then tells what was committed.
        await asyncio.shield(pending.done)

    async def _commit_moves(self) -> None:
        while self._moves:
            async with self._lock:
                batch, self._moves = self._moves, []
                try:
                    changed = await self._update_games(batch)
                except Exception as error:  # each caller raises it, as from its own write
                    failure: BaseException = classify(error) or error
                    if isinstance(failure, StoreBusy | StoreUnavailable):
                        self.failures.failed(failure, writes=len(batch))
                    for pending in batch:
                        _settle(pending.done, failure)
                    continue
                except BaseException as error:
                    for pending in batch:
                        _settle(pending.done, StoreError(f"not saved ({type(error).__name__})"))
                    raise
            self.failures.wrote()
            for pending, ok in zip(batch, changed, strict=True):
                if ok:
                    _settle(pending.done, None)
                else:
                    stale = f"game {pending.game_id} is not at version {pending.based_on}"
                    _settle(pending.done, StaleWrite(stale))

    async def _update_games(self, batch: list[_PendingMove]) -> list[bool]:
        if len(batch) == 1:  # its own transaction (autocommit): one round trip
            cursor = await self._db.execute(_UPDATE_GAME, batch[0].update)
            return [cursor.rowcount == 1]
        # The whole transaction in one call on the database thread: as separate round trips
        # it would hold SQLite's write lock while the event loop is busy elsewhere, and the
        # bookkeeping connection's writes would wait past their busy timeout.
        updates = [pending.update for pending in batch]
        if isinstance(self._db, PgConnection):
            # Row locks, not a database lock: the round trips hold no one else up.
            return await _update_all_postgres(self._db, updates)
        run: Any = self._db._execute  # aiosqlite's own "call on the thread" (untyped)
        changed: list[bool] = await run(_update_all, self._db._conn, updates)
        return changed

    @_serialized
    @_writes
    async def _write_game(
        self,
        game: Table,
        based_on: int,
        update: tuple[Any, ...],
        rows: list[tuple[Any, ...]],
        seats: list[_results.FinishedSeat],
        finished_at: str,
    ) -> None:
        game_id = game.id
        # Each await here is a round trip to the database thread, and other tables queue on the
        # store's lock meanwhile: a move without results is one UPDATE, its own transaction
        # (autocommit); only a finished game needs BEGIN ... COMMIT around its results.
        if rows:
            await self._db.execute("BEGIN IMMEDIATE")
        try:
            cursor = await self._db.execute(_UPDATE_GAME, update)
            if cursor.rowcount != 1:
                raise StaleWrite(f"game {game_id} is not at version {based_on}")
            if rows:
                await self._db.executemany(_INSERT_RESULT, rows)
                # Aggregates and ratings in the same transaction: a game counts once or not
                # at all, whenever the process dies.
                await _results.apply_finished_game(
                    self._db,
                    game_id=game_id,
                    guild_id=game.guild_id,
                    channel_id=game.channel_id,
                    finished_at=finished_at,
                    seats=seats,
                )
        except BaseException:
            if rows:
                await _rollback(self._db)
            raise
        if rows:
            await self._db.execute("COMMIT")

    @_serialized
    @_writes
    async def set_message_id(self, game_id: int, message_id: int | None) -> None:
        """Remember the current public table message (does not change the move counter)."""
        await _run(
            self._db,
            "UPDATE games SET message_id = ?, lobby_token = NULL WHERE id = ?",
            (message_id, game_id),
        )

    @_serialized
    async def lobby_token(self, game_id: int) -> str | None:
        """The token of the interaction that answered with this game's lobby, while the
        lobby's message id is not stored yet (see migration 0006)."""
        async with self._db.execute(
            "SELECT lobby_token FROM games WHERE id = ? AND message_id IS NULL", (game_id,)
        ) as cursor:
            row = await cursor.fetchone()
        return str(row[0]) if row and row[0] is not None else None

    @_serialized
    async def load_game(self, game_id: int) -> Table | None:
        async with self._db.execute(SELECT_GAME + " WHERE id = ?", (game_id,)) as cursor:
            row = await cursor.fetchone()
        return game_from_row(row) if row else None

    @_serialized
    async def open_game_in_channel(self, channel_id: int) -> Table | None:
        async with self._db.execute(
            SELECT_GAME + " WHERE channel_id = ? AND status IN (?, ?)",
            (channel_id, *OPEN_STATUSES),
        ) as cursor:
            row = await cursor.fetchone()
        return game_from_row(row) if row else None

    @_serialized
    async def latest_game_in_channel(
        self, channel_id: int, statuses: Sequence[GameStatus] = ("finished",)
    ) -> Table | None:
        marks = ", ".join("?" for _ in statuses)
        async with self._db.execute(
            SELECT_GAME + f" WHERE channel_id = ? AND status IN ({marks}) ORDER BY id DESC LIMIT 1",
            (channel_id, *statuses),
        ) as cursor:
            row = await cursor.fetchone()
        return game_from_row(row) if row else None

    @_serialized
    async def games_with_status(self, *statuses: GameStatus) -> list[Table]:
        """The games with one of ``statuses``; a row that cannot be read is left out (and
        logged by id), so one damaged row never hides the others."""
        rows, _ = await self._readable_games(statuses, ALL_SHARDS)
        return rows

    @_serialized
    async def open_games(self, shards: Shards = ALL_SHARDS) -> tuple[list[Table], list[GameRef]]:
        """Every open game (lobby or running) of ``shards``' servers, and the bare columns of
        those whose row cannot be read."""
        return await self._readable_games(OPEN_STATUSES, shards)

    @_serialized
    async def unsettled_games(self, shards: Shards = ALL_SHARDS) -> list[Table]:
        """Finished or stopped games of ``shards``' servers whose public messages are not all
        delivered yet."""
        where, params = shards.sql_filter()
        async with self._db.execute(
            SELECT_GAME + " WHERE settled = 0 AND status IN ('finished', 'stopped')"
            f"{where} ORDER BY id",
            params,
        ) as cursor:
            rows = await cursor.fetchall()
        games = []
        for row in rows:
            try:
                games.append(game_from_row(row))
            except Exception as error:
                log.error(
                    "game %s: its stored row cannot be read (%s)", row[0], type(error).__name__
                )
        return games

    @_serialized
    @_writes
    async def settle(self, game_id: int) -> None:
        """Every public message of a finished or stopped game has been delivered: its
        delivery bookkeeping is no longer needed, but for the message its history entry links
        to (the final standings, or a stopped game's closing notice), about half of what a
        game would otherwise keep on disk (docs/scaling.md, "Disk")."""
        await _run(self._db, "UPDATE games SET settled = 1 WHERE id = ?", (game_id,))
        await _run(self._db, "DELETE FROM hand_messages WHERE game_id = ?", (game_id,))
        await _run(
            self._db,
            "DELETE FROM posts WHERE game_id = ? AND key NOT IN (?, ?)",
            (game_id, *HISTORY_POST_KEYS),
        )

    # ------------------------------------------------------------------ delivery

    @_serialized
    async def delivered(self, game_id: int) -> dict[str, Delivered]:
        """The public messages delivered for a game so far, by key."""
        async with self._db.execute(
            "SELECT key, channel_id, message_id, digest FROM posts WHERE game_id = ?", (game_id,)
        ) as cursor:
            rows = await cursor.fetchall()
        return {row[0]: Delivered(int(row[1]), int(row[2]), str(row[3])) for row in rows}

    @_bookkeeping
    async def mark_delivered(self, game_id: int, key: str, delivered: Delivered) -> None:
        await _run(
            self._book,
            "INSERT INTO posts (game_id, key, channel_id, message_id, digest)"
            " VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (game_id, key) DO UPDATE SET channel_id = excluded.channel_id,"
            " message_id = excluded.message_id, digest = excluded.digest",
            (game_id, key, delivered.channel_id, delivered.message_id, delivered.digest),
        )

    @_bookkeeping
    async def forget_delivered(self, game_id: int, key: str) -> None:
        await _run(self._book, "DELETE FROM posts WHERE game_id = ? AND key = ?", (game_id, key))

    @_bookkeeping
    async def save_hand(
        self,
        game_id: int,
        user_id: int,
        token: str,
        opened_at: datetime,
        message_id: int | None = None,
        language: str | None = None,
    ) -> None:
        """``message_id``: a follow-up message (None: the interaction's original response);
        ``language``: the player's, for redraws (bot.i18n)."""
        await _run(
            self._book,
            "INSERT INTO hand_messages (game_id, user_id, token, opened_at, message_id, language)"
            " VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (game_id, user_id) DO UPDATE SET token = excluded.token,"
            " opened_at = excluded.opened_at, message_id = excluded.message_id,"
            " language = excluded.language",
            (game_id, user_id, token, _iso(opened_at), message_id, language),
        )

    @_bookkeeping
    async def drop_hand(self, game_id: int, user_id: int) -> None:
        await _run(
            self._book,
            "DELETE FROM hand_messages WHERE game_id = ? AND user_id = ?",
            (game_id, user_id),
        )

    @_serialized
    async def open_hands(
        self, game_id: int
    ) -> dict[int, tuple[str, datetime, int | None, str | None]]:
        """user id -> (interaction token, when it was issued, follow-up message id or None,
        the player's language or None) of the game's open hands."""
        async with self._db.execute(
            "SELECT user_id, token, opened_at, message_id, language FROM hand_messages"
            " WHERE game_id = ?",
            (game_id,),
        ) as cursor:
            rows = await cursor.fetchall()
        return {
            int(row[0]): (
                str(row[1]),
                parse_time(row[2]),
                row[3] and int(row[3]),
                row[4] if isinstance(row[4], str) else None,
            )
            for row in rows
        }

    async def _readable_games(
        self, statuses: Sequence[GameStatus], shards: Shards
    ) -> tuple[list[Table], list[GameRef]]:
        marks = ", ".join("?" for _ in statuses)
        where, params = shards.sql_filter()
        async with self._db.execute(
            SELECT_GAME + f" WHERE status IN ({marks}){where} ORDER BY id",
            (*statuses, *params),
        ) as cursor:
            rows = await cursor.fetchall()
        games: list[Table] = []
        damaged: list[GameRef] = []
        for row in rows:
            try:
                games.append(game_from_row(row))
            except Exception as error:
                # Only the kind of error: a record's text holds every hand.
                log.error(
                    "game %s: its stored row cannot be read (%s)", row[0], type(error).__name__
                )
                try:
                    damaged.append(
                        GameRef(
                            id=int(row[0]),
                            guild_id=int(row[1]),
                            channel_id=int(row[2]),
                            host_id=int(row[3]),
                        )
                    )
                except (TypeError, ValueError):
                    continue
        return games, damaged

    @_serialized
    @_writes
    async def stop_open_game(self, game_id: int) -> bool:
        """Mark an open game stopped without reading it (for a row that cannot be used);
        returns whether it was open. No result is written."""
        await _run(self._db, "BEGIN IMMEDIATE")
        try:
            changed = await _run(
                self._db,
                "UPDATE games SET status = 'stopped', version = version + 1, updated_at = ?"
                " WHERE id = ? AND status IN (?, ?)",
                (_iso(self._clock()), game_id, *OPEN_STATUSES),
            )
        except BaseException:
            await _rollback(self._db)
            raise
        await _run(self._db, "COMMIT")
        return changed == 1

    async def expire_periods(self, guild_id: int, today: str) -> None:
        """Move a server's 7- and 30-day windows on to end ``today`` (YYYY-MM-DD, UTC): done
        after the day's first finished game in the server, and by a period board read that
        finds a window behind. One transaction a period, each taking the store's lock on its
        own so that moves of other tables commit between them: the rows of the day that left
        the window are subtracted (tens of milliseconds at 100,000 games a year)."""
        if self._expired.get(guild_id) == today:
            return
        for days in _results.PERIOD_DAYS:
            await self._expire_period(guild_id, days, today)
        self._expired[guild_id] = today

    @_serialized
    @_writes
    async def _expire_period(self, guild_id: int, days: int, today: str) -> None:
        await _run(self._db, "BEGIN IMMEDIATE")
        try:
            await _results.expire_period(self._db, guild_id, days, today)
        except BaseException:
            await _rollback(self._db)
            raise
        await _run(self._db, "COMMIT")

    # ------------------------------------------------------------------ channel settings

    async def channel_settings(self, channel_id: int) -> dict[str, Any]:
        """This channel's defaults for its next game (empty when none were set); read on the
        read-only connection, so /kachuful start never waits on the writer for them."""
        return await self.reads.channel_settings(channel_id)

    @_serialized
    @_writes
    async def set_channel_settings(
        self, *, guild_id: int, channel_id: int, settings: dict[str, Any], updated_by: int
    ) -> None:
        """Replace this channel's defaults (checked by the caller: bot.channel_settings)."""
        await _run(
            self._db,
            "INSERT INTO channel_settings (channel_id, guild_id, settings, updated_by, updated_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (channel_id) DO UPDATE SET"
            " guild_id = excluded.guild_id, settings = excluded.settings,"
            " updated_by = excluded.updated_by, updated_at = excluded.updated_at",
            (channel_id, guild_id, _dump(settings), updated_by, _iso(self._clock())),
        )

    # ------------------------------------------------------------------ the bot's own state

    @_serialized
    async def bot_state(self, key: str) -> str | None:
        """A value the bot kept about itself (e.g. the last synced commands' digest)."""
        async with self._db.execute("SELECT value FROM bot_state WHERE key = ?", (key,)) as cursor:
            row = await cursor.fetchone()
        return str(row[0]) if row else None

    @_serialized
    async def set_bot_state(self, key: str, value: str) -> None:
        await _run(
            self._db,
            "INSERT INTO bot_state (key, value, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value,"
            " updated_at = excluded.updated_at",
            (key, value, _iso(self._clock())),
        )

    @_serialized
    @_writes
    async def claim_interval(self, key: str, now_ms: int, spacing_ms: int) -> int:
        """Claim the moment ``now_ms`` (milliseconds since the epoch) under ``key`` if the last
        claim is at least ``spacing_ms`` old; returns 0 when claimed, else how many
        milliseconds remain. Every process sharing the database sees one claim win: a
        compare-and-set (an upsert whose update only happens when the stored moment is old
        enough), in SQL that SQLite and PostgreSQL both run. A claim more than a minute in
        the future (a clock set wrong) does not block the others forever."""
        # Fixed-width digits: text order is number order, in every engine and collation.
        moment = f"{now_ms:0{_MOMENT_DIGITS}d}"
        old_enough = f"{max(0, now_ms - spacing_ms):0{_MOMENT_DIGITS}d}"
        too_new = f"{now_ms + _CLAIM_SKEW_MS:0{_MOMENT_DIGITS}d}"
        changed = await _run(
            self._db,
            "INSERT INTO bot_state (key, value, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value,"
            " updated_at = excluded.updated_at"
            " WHERE bot_state.value <= ? OR bot_state.value > ?",
            (key, moment, _iso(self._clock()), old_enough, too_new),
        )
        if changed:
            return 0
        async with self._db.execute("SELECT value FROM bot_state WHERE key = ?", (key,)) as cursor:
            row = await cursor.fetchone()
        last = int(row[0]) if row and str(row[0]).isdigit() else now_ms
        return max(1, last + spacing_ms - now_ms)

    # ------------------------------------------------------------------ leaderboards

    @_serialized
    async def results_for_game(self, game_id: int) -> list[ResultRow]:
        async with self._db.execute(
            "SELECT seat, user_id, score, won, bids_exact, bids FROM results"
            " WHERE game_id = ? ORDER BY seat",
            (game_id,),
        ) as cursor:
            rows = await cursor.fetchall()
        return [
            ResultRow(
                seat=row[0],
                user_id=row[1],
                score=row[2],
                won=bool(row[3]),
                bids_exact=row[4],
                bids=row[5],
            )
            for row in rows
        ]


def _finished_seats(
    game: Table, results: list[ResultRow], record: str | None
) -> list[_results.FinishedSeat]:
    """The results with what the aggregates need: names (the seat's when the caller gave
    none), computer levels, places, and each seat's deals (replayed from the record when the
    caller gave none). Runs before the store's lock is taken."""
    if not results:
        return []
    deals: list[tuple[DealLine, ...]] = []
    if any(not result.deals for result in results):
        deals = _results._deal_lines(record if record is not None else _dump_record(game.record))
    places = _rating.places([result.score for result in results])
    seats = []
    for result, place in zip(results, places, strict=True):
        entry = game.seats[result.seat] if 0 <= result.seat < len(game.seats) else None
        level = result.level
        if level is None and result.user_id is None:
            # A Seat may carry the computer's level (added with the levels); else the default.
            level = getattr(entry, "level", None) or _rating.DEFAULT_LEVEL
        seats.append(
            _results.FinishedSeat(
                seat=result.seat,
                user_id=result.user_id,
                name=result.name or (entry.name if entry is not None else "?"),
                level=level,
                score=result.score,
                won=result.won,
                place=place,
                bids_exact=result.bids_exact,
                bids=result.bids,
                deals=result.deals or (deals[result.seat] if 0 <= result.seat < len(deals) else ()),
            )
        )
    return seats


if TYPE_CHECKING:
    # mypy: the store has every operation callers may use.
    _STORE_IS_A_GAME_STORE: type[GameStore] = Store
