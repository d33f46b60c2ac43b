"""What a failed database call means, and logging each storage incident once.

Two kinds of failure are expected in operation and each has its own answer to players:

* busy (:class:`StoreBusy`): another process held the database locked past the busy timeout;
  trying again in a moment may succeed.
* unavailable (:class:`StoreUnavailable`): the database cannot be written at all for now: the
  disk is full, the file system reports an I/O error, the file or its folder became read-only.
  Nothing is corrupted (SQLite rolls the write back) and writes succeed again once the
  operator frees space or fixes the file system.

Anything else a database call raises is a bug or damage and keeps its traceback.

A failure of either kind is not one event but an incident: every click while the disk is full
fails the same way. :class:`FailureLog` logs the first failure of an incident as one line (and
the first of another kind during it), counts the rest silently, and logs one line when the
next write succeeds.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Literal

import psycopg
import sqlalchemy.exc
from psycopg import errors as pg_errors

log = logging.getLogger("bot.store")

Kind = Literal["busy", "unavailable"]

_BUSY = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}
# Primary result codes (an extended code, e.g. SQLITE_IOERR_WRITE, keeps its primary code in
# the low byte): the database cannot be written until the operator acts.
_UNAVAILABLE = {
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_IOERR: "the disk reports an I/O error",
    sqlite3.SQLITE_READONLY: "the database has become read-only",
    sqlite3.SQLITE_CANTOPEN: "the database's files cannot be opened",
}


class StoreError(Exception):
    """The database could not be opened or used."""


class StoreBusy(StoreError):
    """The database stayed locked (by another process) past the busy timeout; nothing of the
    write was committed, and trying again later may succeed."""

    kind: Kind = "busy"


class StoreUnavailable(StoreError):
    """The database cannot be written now (disk full, I/O error, read-only); nothing of the
    write was committed, and writes succeed again once the cause is fixed."""

    kind: Kind = "unavailable"


class ChannelBusy(StoreError):
    """The channel already has an open game (lobby or running)."""

    def __init__(self, game_id: int | None) -> None:
        super().__init__(f"channel already has open game {game_id}")
        self.game_id = game_id


class StaleWrite(StoreError):
    """save_game found another version in the database than the one it was based on."""


# What a database call of either engine raises (the store catches these, not one driver's):
# SQLAlchemy wraps the driver's error (DBAPIError.orig), or refuses a connection the server
# dropped until it is rolled back (PendingRollbackError).
DATABASE_ERRORS: tuple[type[Exception], ...] = (
    sqlalchemy.exc.DBAPIError,
    sqlalchemy.exc.PendingRollbackError,
    sqlite3.Error,
    psycopg.Error,
)
# A unique index refused the row (one open game per channel).
INTEGRITY_ERRORS: tuple[type[Exception], ...] = (
    sqlalchemy.exc.IntegrityError,
    sqlite3.IntegrityError,
    psycopg.IntegrityError,
)

# PostgreSQL: a row or table lock held past lock_timeout, or a conflict the server resolved by
# cancelling this statement: nothing was written, and trying again may succeed.
_PG_BUSY = (
    pg_errors.LockNotAvailable,
    pg_errors.DeadlockDetected,
    pg_errors.SerializationFailure,
    pg_errors.QueryCanceled,
)
_PG_UNAVAILABLE: tuple[tuple[type[Exception], str], ...] = (
    (pg_errors.DiskFull, "the database server's disk is full"),
    (pg_errors.InsufficientResources, "the database server is out of resources"),
    (pg_errors.ReadOnlySqlTransaction, "the database has become read-only"),
    (pg_errors.AdminShutdown, "the database server is shutting down"),
    (pg_errors.CannotConnectNow, "the database server is starting or stopping"),
    (pg_errors.TooManyConnections, "the database server has too many connections"),
    (psycopg.OperationalError, "the database server cannot be reached"),
    (psycopg.InterfaceError, "the connection to the database server is closed"),
)


def classify(error: BaseException) -> StoreBusy | StoreUnavailable | None:
    """The expected failure an error of sqlite3 or psycopg (as SQLAlchemy raises it, or
    not) is, or None for anything else."""
    if isinstance(error, sqlalchemy.exc.PendingRollbackError):
        return StoreUnavailable("the connection to the database server was lost")
    if isinstance(error, sqlalchemy.exc.DBAPIError):
        found = classify(error.orig) if isinstance(error.orig, BaseException) else None
        if found is None and error.connection_invalidated:
            return StoreUnavailable("the connection to the database server was lost")
        return found
    if isinstance(error, psycopg.Error):
        return _classify_postgres(error)
    code = getattr(error, "sqlite_errorcode", None)
    if not isinstance(error, sqlite3.Error) or not isinstance(code, int):
        return None
    if code in _BUSY:
        return StoreBusy("the database is locked by another process")
    reason = _UNAVAILABLE.get(code & 0xFF)
    if reason is not None:
        # SQLite's own words ("database or disk is full") name no data of the bot.
        return StoreUnavailable(f"{reason} ({error})")
    return None


def _classify_postgres(error: psycopg.Error) -> StoreBusy | StoreUnavailable | None:
    if isinstance(error, _PG_BUSY):
        return StoreBusy("a row is locked by another process (or a conflict was resolved)")
    for kind, reason in _PG_UNAVAILABLE:
        if isinstance(error, kind):
            # The first line of the server's message (no data of the bot is in it).
            detail = (str(error).splitlines() or [type(error).__name__])[0]
            return StoreUnavailable(f"{reason} ({detail})")
    return None


def is_expected(error: BaseException) -> bool:
    """Whether ``error`` is a storage failure already logged by :class:`FailureLog`."""
    return isinstance(error, StoreBusy | StoreUnavailable)


class FailureLog:
    """Storage failures, logged once per incident (see the module's docstring)."""

    def __init__(self) -> None:
        self.failed_writes = 0  # in the current incident; 0: none under way
        self._logged: set[Kind] = set()

    def failed(self, failure: StoreBusy | StoreUnavailable, writes: int = 1) -> None:
        self.failed_writes += writes
        if failure.kind in self._logged:
            return
        self._logged.add(failure.kind)
        if failure.kind == "busy":
            log.warning(
                "storage busy: %s; changes are refused (nothing changed) until it is free",
                failure,
            )
        else:
            log.error(
                "storage cannot be written: %s; every change is refused (nothing changed) "
                "until it can be written again; further failures are counted, not logged",
                failure,
            )

    def wrote(self) -> None:
        """A write was committed: the incident (if any) is over."""
        if not self.failed_writes:
            return
        log.warning("storage writable again after %d failed writes", self.failed_writes)
        self.failed_writes = 0
        self._logged.clear()
