"""What the store's concerns share (the writer connection and its lock, the bookkeeping's,
the reader, the clock) and the three ways one of their methods runs: under the writer's lock
(:func:`serialized`), as a write that ends a storage incident (:func:`writes`), or on the
bookkeeping connection (:func:`bookkeeping`). Each concern is a module of its own (games.py,
moves.py, posts.py, hands.py, state.py); store.py puts them together as one
:class:`~.store.Store`."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from .drivers import DATABASE_ERRORS, Opened, classify, driver_of, rollback
from .failures import FailureLog, StoreBusy, StoreError
from .rows import dump

if TYPE_CHECKING:
    from .reads import Reads

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S", bound="StoreBase")


def is_busy(error: BaseException) -> bool:
    return isinstance(classify(error), StoreBusy)


def serialized(
    method: Callable[Concatenate[S, P], Awaitable[R]],
) -> Callable[Concatenate[S, P], Awaitable[R]]:
    """Run a Store method while holding the store's lock (one transaction at a time).

    An expected failure (a database locked by another process, a full disk...) becomes
    :class:`StoreBusy` or :class:`StoreUnavailable`, logged once per incident, after making
    sure no transaction of this connection is left open (so nothing of the write can be
    committed later by an unrelated statement)."""

    async def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        async with self._lock:
            try:
                return await method(self, *args, **kwargs)
            except DATABASE_ERRORS as error:
                failure = classify(error)
                if failure is None:
                    raise
                with contextlib.suppress(*DATABASE_ERRORS):
                    await rollback(self._db)
                self.failures.failed(failure)
                raise failure from None

    functools.update_wrapper(wrapper, method)
    return wrapper


def writes(
    method: Callable[Concatenate[S, P], Awaitable[R]],
) -> Callable[Concatenate[S, P], Awaitable[R]]:
    """A Store method that writes (under :func:`serialized`): its success ends a storage
    incident."""

    async def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        result = await method(self, *args, **kwargs)
        self.failures.wrote()
        return result

    functools.update_wrapper(wrapper, method)
    return wrapper


def bookkeeping(
    method: Callable[Concatenate[S, P], Awaitable[R]],
) -> Callable[Concatenate[S, P], Awaitable[R]]:
    """Run a Store method on the bookkeeping connection (what was delivered to Discord, the
    open hand messages), under its own lock, so that it never waits behind a move's commit
    in this process; an expected failure is raised and logged as for the game writes."""

    async def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        async with self._book_lock:
            try:
                result = await method(self, *args, **kwargs)
            except DATABASE_ERRORS as error:
                failure = classify(error)
                if failure is None:
                    raise
                with contextlib.suppress(*DATABASE_ERRORS):
                    await rollback(self._book)
                self.failures.failed(failure)
                raise failure from None
        self.failures.wrote()
        return result

    functools.update_wrapper(wrapper, method)
    return wrapper


def utcnow() -> datetime:
    return datetime.now(UTC)


def dump_record(record: dict[str, Any] | None) -> str | None:
    return None if record is None else dump(record)


class StoreBase:
    """What every concern of the store shares: the writer connection and its lock, the
    bookkeeping connection and its lock, the reader, the clock and the incident log."""

    def __init__(
        self,
        writer: Opened,
        path: Path,
        clock: Callable[[], datetime],
        *,
        url: str | None = None,
    ) -> None:
        self._writer = writer
        self._db: AsyncConnection = writer.conn
        self._driver = driver_of(writer.conn)
        self.path = path
        # The PostgreSQL database (None: the SQLite file at ``path``).
        self.url = url
        self._clock = clock
        # One connection serves every table: transactions must not interleave.
        self._lock = asyncio.Lock()
        self._closed = False
        self._reads: Reads | None = None
        # The delivery bookkeeping has a connection of its own whose commits are not flushed
        # one by one (drivers.py): a game's commit is, and on SQLite its WAL sync covers the
        # bookkeeping written before it; only the bookkeeping of the last moments before a
        # power cut can be lost, and then a message is posted again with the same nonce,
        # which Discord drops.
        self._bookkeeper: Opened | None = None
        self._book: AsyncConnection = writer.conn
        self._book_lock = asyncio.Lock()
        # The last day each server's period windows were moved on to (expire_periods).
        self._expired: dict[int, str] = {}
        # Storage incidents (disk full, locked by another process), logged once each.
        self.failures = FailureLog()

    @serialized
    @writes
    async def run(self, work: Callable[[AsyncConnection], Awaitable[R]]) -> R:
        """A unit of work of a feature's store module (``club.py``), on the writer connection
        under the store's lock, failures classified as for every write."""
        return await work(self._db)

    def busy(self) -> bool:
        """Whether a write is under way (a new one would wait for it)."""
        return self._lock.locked()

    @property
    def reads(self) -> Reads:
        """Leaderboards, statistics, history and settings, on the read-only connection."""
        if self._reads is None:
            raise StoreError("the store is not open")
        return self._reads


def first(result: sa.CursorResult[Any]) -> Any:
    """The first column of the first row, or None."""
    row = result.first()
    return None if row is None else row[0]
