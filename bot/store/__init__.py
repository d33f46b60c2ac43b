"""Persistence: every SQL statement of the bot lives in this package.

One engine of two, chosen by what :meth:`Store.open` is given (``Settings.database``): an
SQLite file in WAL mode, through aiosqlite (the default), or a PostgreSQL database
(``KACHUFUL_DATABASE_URL``), through psycopg 3, both under SQLAlchemy Core 2. The tables are
defined once (:mod:`.schema`) and every query is written once against them; what the engines
truly do differently (locks, the first statement of a write, the WAL checkpoint) is in
:mod:`.drivers`. Callers see the operations of :class:`~.protocol.GameStore` and never which
engine is under them. What follows holds on both (on PostgreSQL the reader is a read-only
session, and a row lock stands in for SQLite's database lock).

Schema changes are Alembic revisions (``migrations/versions``) applied in order at start-up
(:mod:`.migrate`; on PostgreSQL under an advisory lock, so that processes starting together
migrate once). Every applied action is written by one :meth:`Store.save_game` call: one
transaction, guarded by the game's move counter so that two writers can never both win.

A finished game's results, aggregates and rating changes are written in the transaction that
marks it finished (:mod:`.results`). Reads for leaderboards, statistics and history go through
:attr:`Store.reads` (:mod:`.reads`): a second, read-only connection that WAL lets run beside
the writer, never under the writer's lock, so that no move waits for a read.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot import rating as _rating
from bot.model import HISTORY_POST_KEYS, OPEN_STATUSES, GameStatus, Seat, Table, TableOptions
from bot.shards import ALL_SHARDS, Shards

from . import club as _club
from . import direct
from . import learning as _learning
from . import migrate as _migrate
from . import reads as _reads
from . import results as _results
from . import scorepads as _scorepads
from .drivers import (
    Driver,
    Opened,
    driver_for,
    driver_of,
    open_role,
    rollback,
    transaction,
)
from .failures import (
    DATABASE_ERRORS,
    INTEGRITY_ERRORS,
    FailureLog,
    StoreBusy,
    StoreError,
    StoreUnavailable,
    classify,
)
from .postgres import redacted
from .protocol import GameStore
from .rows import NO_GAME_ID, SELECT_GAME, game_from_row, parse_time
from .rows import dump as _dump
from .rows import iso as _iso
from .schema import bot_state, games, hand_messages, posts
from .schema import results as results_table
from .sqlite_file import BUSY_TIMEOUT_SECONDS, inspect_database
from .table_json import options_to_json, seat_to_json
from .values import DealLine, Delivered, GameRef, ResultRow

__all__ = [
    "BUSY_TIMEOUT_SECONDS",
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

# claim_interval: moments as zero-padded milliseconds, and how far ahead a claim may be.
_MOMENT_DIGITS = 15
_CLAIM_SKEW_MS = 60_000
# What a failure to move the period windows on may raise (it is logged, not the caller's).
_EXPIRE_ERRORS: tuple[type[Exception], ...] = (StoreError, *DATABASE_ERRORS)


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
                    await rollback(self._db)
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
                with contextlib.suppress(*DATABASE_ERRORS):
                    await rollback(self._book)
                self.failures.failed(failure)
                raise failure from None
        self.failures.wrote()
        return result

    functools.update_wrapper(wrapper, method)
    return wrapper


def _utcnow() -> datetime:
    return datetime.now(UTC)


def _dump_record(record: dict[str, Any] | None) -> str | None:
    return None if record is None else _dump(record)


# A move's write: the row as the move left it, if the row is still at the version the move
# was based on.
# The columns a move writes (the rest of a games row never changes after the lobby).
_MOVE_COLUMNS = (
    "host_id",
    "status",
    "rules",
    "max_seats",
    "seed",
    "record",
    "seats",
    "message_id",
    "version",
    "updated_at",
    "ended",
    "settled",
)
_UPDATE_GAME = (
    sa.update(games)
    .where(games.c.id == sa.bindparam("game_id"), games.c.version == sa.bindparam("based_on"))
    .values({name: sa.bindparam(name) for name in _MOVE_COLUMNS})
)


@dataclass(slots=True)
class _PendingMove:
    game_id: int
    based_on: int
    update: dict[str, Any]
    done: asyncio.Future[None]


def _settle(future: asyncio.Future[None], error: BaseException | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)


def _first(result: sa.CursorResult[Any]) -> Any:
    row = result.first()
    return None if row is None else row[0]


class Store:
    """The bot's database. Create with :meth:`open`; close with :meth:`close`."""

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
        self._reads: _reads.Reads | None = None
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
        # Moves waiting for the next group commit (see _write_move), and its task.
        self._moves: list[_PendingMove] = []
        self._mover: asyncio.Task[None] | None = None

    @_serialized
    @_writes
    async def run(self, work: Callable[[AsyncConnection], Awaitable[R]]) -> R:
        """A unit of work of a feature's store module (``club.py``), on the writer connection
        under the store's lock, failures classified as for every write."""
        return await work(self._db)

    @property
    def club(self) -> _club.Club:
        """Events (club play): bot/store/club.py."""
        return _club.Club(self.run, self._clock)

    @property
    def seasons(self) -> _club.Seasons:
        """Seasons and their champions: bot/store/club.py."""
        return _club.Seasons(self.run, self._clock)

    @property
    def reviews(self) -> _learning.Reviews:
        """Stored reviews of finished games: bot/store/learning.py."""
        return _learning.Reviews(self.run, self._clock)

    @property
    def practice(self) -> _learning.Practices:
        """Practice deals: bot/store/learning.py."""
        return _learning.Practices(self.run, self._clock)

    @property
    def scorepads(self) -> _scorepads.ScorePads:
        """Score pads of games played with a real deck: bot/store/scorepads.py."""
        return _scorepads.ScorePads(self.run, self._clock)

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

    def describe(self) -> str:
        """Where the data is, for logs (a URL without its password)."""
        return redacted(self.url) if self.url is not None else str(self.path)

    @classmethod
    async def open(cls, path: str | Path, *, clock: Callable[[], datetime] | None = None) -> Store:
        """Open (creating the SQLite file and its folder if needed) and apply pending
        migrations. ``path``: the SQLite file, or a ``postgresql://`` URL (an existing
        database). Three connections: the writer (game moves, under the store's lock), the
        bookkeeping (delivered posts, hand messages) and the reader (leaderboards): a move's
        commit never waits behind a read or the bookkeeping."""
        driver = driver_for(path)
        await driver.prepare(path)
        url = driver.url_of(path)
        return await cls._open(driver, path, Path(path) if url is None else Path(), url, clock)

    @classmethod
    async def _open(
        cls,
        driver: Driver,
        target: str | Path,
        path: Path,
        url: str | None,
        clock: Callable[[], datetime] | None,
    ) -> Store:
        shown = driver.describe(target)
        opened: list[Opened] = []
        try:
            opened.append(await open_role(driver, target, "writer"))
            store = cls(opened[0], path, clock or _utcnow, url=url)
            await store.migrate()
            opened.append(await open_role(driver, target, "bookkeeping"))
            store._bookkeeper = opened[1]
            store._book = opened[1].conn
            opened.append(await open_role(driver, target, "reader"))
            store._reads = _reads.Reads(opened[2], clock=store._clock, expire=store.expire_periods)
        except (*DATABASE_ERRORS, OSError) as error:  # type: ignore[misc]
            for role in opened:
                await role.close()
            reason = (
                "it is locked by another process"
                if _is_busy(error)
                else " ".join(str(getattr(error, "orig", None) or error).split())
                or type(error).__name__
            )
            # A server that cannot be reached is told as such (the SQLite file is "opened").
            verb = driver.failed_to_open if not opened else "cannot open the database"
            raise StoreError(f"{verb} {shown}: {reason}") from None
        except BaseException:
            for role in opened:
                await role.close()
            raise
        return store

    @_serialized
    async def close(self) -> None:
        """Fold SQLite's WAL into the database file and close (idempotent): a stopped bot
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
        if self._bookkeeper is not None:
            async with self._book_lock:
                await self._bookkeeper.close()
        try:
            await self._driver.before_close(self._db)
        except DATABASE_ERRORS as error:
            log.warning("database checkpoint at close failed: %s", error)
        await self._writer.close()

    @_serialized
    async def check_writable(self) -> None:
        """Take the database's write lock and let it go (for the health check); raises
        :class:`StoreBusy` if another process holds it, :class:`StoreUnavailable` if the file
        has become read-only, :class:`StoreError` for anything else."""
        try:
            await self._driver.check_writable(self._db)
        except DATABASE_ERRORS as error:
            if classify(error) is not None:
                raise
            raise StoreError(f"the database cannot be written: {error}") from None

    @_serialized
    async def pragma(self, name: str) -> Any:
        """The value of one SQLite connection setting (journal_mode, synchronous...)."""
        return await self._driver.pragma(self._db, name)

    @_serialized
    async def journal_mode(self) -> str:
        return await self._driver.journal_mode(self._db)

    async def schema_version(self) -> int:
        return max(await self._db.run_sync(_migrate.recorded), default=0)

    async def migrate(self) -> list[int]:
        """Apply every migration newer than the database; return the versions applied."""
        async with self._driver.migrating(self._db):
            return await self._db.run_sync(_migrate.upgrade, self._driver, None, self._clock())

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
        insert = (
            sa.insert(games)
            .values(
                guild_id=guild_id,
                channel_id=channel_id,
                host_id=host_id,
                status="lobby",
                rules=_dump(options_to_json(options)),
                max_seats=max_seats,
                seats=_dump([seat_to_json(seat) for seat in seats]),
                version=0,
                created_at=_iso(now),
                updated_at=_iso(now),
                settled=0,
                lobby_token=lobby_token,
            )
            .returning(games.c.id)
        )
        try:
            async with transaction(self._db):
                game_id = _first(await self._db.execute(insert))
        except INTEGRITY_ERRORS:
            busy = sa.select(games.c.id).where(
                games.c.channel_id == channel_id, games.c.status.in_(OPEN_STATUSES)
            )
            found = _first(await self._db.execute(busy))
            raise ChannelBusy(None if found is None else int(found)) from None
        assert game_id is not None
        return Table(
            id=int(game_id),
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
        update = {
            "host_id": game.host_id,
            "status": game.status,
            "rules": _dump(options_to_json(game.options)),
            "max_seats": game.max_seats,
            "seed": game.seed,
            "record": record if record is not None else _dump_record(game.record),
            "seats": _dump([seat_to_json(seat) for seat in game.seats]),
            "message_id": game.message_id,
            "version": game.version,
            "updated_at": _iso(now),
            "ended": game.ended,
            "settled": int(game.settled),
            "game_id": game.id,
            "based_on": based_on,
        }
        finished_at = _iso(now)
        seats = _finished_seats(game, list(results), record)
        rows = [
            {
                "game_id": game.id,
                "seat": seat.seat,
                "guild_id": game.guild_id,
                "channel_id": game.channel_id,
                "user_id": seat.user_id,
                "score": seat.score,
                "won": int(seat.won),
                "bids_exact": seat.bids_exact,
                "bids": seat.bids,
                "finished_at": finished_at,
                "name": seat.name,
                "level": seat.level,
                "place": seat.place,
            }
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

    async def _write_move(self, game_id: int, based_on: int, update: dict[str, Any]) -> None:
        """A move's UPDATE, committed together with the other tables' moves that queued
        meanwhile: one fsync for all of them, instead of each click waiting behind every
        other table's fsync in turn. Returns once its commit is on disk; raises as
        :meth:`save_game` does, for this move alone (a stale UPDATE changes nothing, so the
        others commit)."""
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
                    with contextlib.suppress(*DATABASE_ERRORS):
                        await rollback(self._db)
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
        """One statement, its own transaction (autocommit), on the driver (direct.py): one
        commit (one fsync) and one round trip for the whole batch, which holds the write
        lock for that statement only."""
        if len(batch) == 1:
            changed, _ = await direct.run(self._db, _UPDATE_GAME, batch[0].update)
            return [changed == 1]
        if len({pending.game_id for pending in batch}) < len(batch):
            # A table has one move in flight at a time; should two ever meet, one at a time.
            return [changed for pending in batch for changed in await self._update_games([pending])]
        # The statement has a slot per move; its sizes are powers of two (a spare slot names
        # no game), so that a process renders a handful of them once, not one per batch size.
        if len(batch) > _BATCH_MOST:
            head, tail = batch[:_BATCH_MOST], batch[_BATCH_MOST:]
            return [*await self._update_games(head), *await self._update_games(tail)]
        size = 1 << (len(batch) - 1).bit_length()
        rows = [pending.update for pending in batch] + [_NO_GAME] * (size - len(batch))
        values = {
            f"{name}_{index}": row[name]
            for index, row in enumerate(rows)
            for name in _BATCH_COLUMNS
        }
        _, returned = await direct.run(self._db, _batch_update(size), values, returns_rows=True)
        updated = {int(row[0]) for row in returned}
        return [pending.game_id in updated for pending in batch]

    @_serialized
    @_writes
    async def _write_game(
        self,
        game: Table,
        based_on: int,
        update: dict[str, Any],
        rows: list[dict[str, Any]],
        seats: list[_results.FinishedSeat],
        finished_at: str,
    ) -> None:
        # Aggregates and ratings in the same transaction as the results: a game counts once
        # or not at all, whenever the process dies.
        async with transaction(self._db):
            changed = (await self._db.execute(_UPDATE_GAME, update)).rowcount
            if changed != 1:
                raise StaleWrite(f"game {game.id} is not at version {based_on}")
            await self._db.execute(sa.insert(results_table), rows)
            await self._db.run_sync(
                functools.partial(
                    _results.apply_finished_game,
                    game_id=game.id,
                    guild_id=game.guild_id,
                    channel_id=game.channel_id,
                    finished_at=finished_at,
                    seats=seats,
                )
            )

    @_serialized
    @_writes
    async def set_message_id(self, game_id: int, message_id: int | None) -> None:
        """Remember the current public table message (does not change the move counter)."""
        await self._db.execute(
            sa.update(games)
            .where(games.c.id == game_id)
            .values(message_id=message_id, lobby_token=None)
        )

    @_serialized
    async def lobby_token(self, game_id: int) -> str | None:
        """The token of the interaction that answered with this game's lobby, while the
        lobby's message id is not stored yet (see migration 0006)."""
        token = _first(
            await self._db.execute(
                sa.select(games.c.lobby_token).where(
                    games.c.id == game_id, games.c.message_id.is_(None)
                )
            )
        )
        return None if token is None else str(token)

    @_serialized
    async def load_game(self, game_id: int) -> Table | None:
        row = (await self._db.execute(SELECT_GAME.where(games.c.id == game_id))).first()
        return game_from_row(row) if row else None

    @_serialized
    async def open_game_in_channel(self, channel_id: int) -> Table | None:
        query = SELECT_GAME.where(
            games.c.channel_id == channel_id, games.c.status.in_(OPEN_STATUSES)
        )
        row = (await self._db.execute(query)).first()
        return game_from_row(row) if row else None

    @_serialized
    async def latest_game_in_channel(
        self, channel_id: int, statuses: Sequence[GameStatus] = ("finished",)
    ) -> Table | None:
        query = (
            SELECT_GAME.where(games.c.channel_id == channel_id, games.c.status.in_(statuses))
            .order_by(games.c.id.desc())
            .limit(1)
        )
        row = (await self._db.execute(query)).first()
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
        query = SELECT_GAME.where(
            games.c.settled == 0,
            games.c.status.in_(("finished", "stopped")),
            shards.condition(games.c.guild_id),
        ).order_by(games.c.id)
        games_read = []
        for row in await self._db.execute(query):
            try:
                games_read.append(game_from_row(row))
            except Exception as error:
                log.error(
                    "game %s: its stored row cannot be read (%s)", row[0], type(error).__name__
                )
        return games_read

    @_serialized
    @_writes
    async def settle(self, game_id: int) -> None:
        """Every public message of a finished or stopped game has been delivered: its
        delivery bookkeeping is no longer needed, but for the message its history entry links
        to (the final standings, or a stopped game's closing notice), about half of what a
        game would otherwise keep on disk (docs/scaling.md, "Disk")."""
        await self._db.execute(sa.update(games).where(games.c.id == game_id).values(settled=1))
        await self._db.execute(sa.delete(hand_messages).where(hand_messages.c.game_id == game_id))
        await self._db.execute(
            sa.delete(posts).where(
                posts.c.game_id == game_id, posts.c.key.not_in(HISTORY_POST_KEYS)
            )
        )

    # ------------------------------------------------------------------ delivery

    @_serialized
    async def delivered(self, game_id: int) -> dict[str, Delivered]:
        """The public messages delivered for a game so far, by key."""
        query = sa.select(posts.c.key, posts.c.channel_id, posts.c.message_id, posts.c.digest)
        rows = await self._db.execute(query.where(posts.c.game_id == game_id))
        return {row[0]: Delivered(int(row[1]), int(row[2]), str(row[3])) for row in rows}

    @_bookkeeping
    async def mark_delivered(self, game_id: int, key: str, delivered: Delivered) -> None:
        await self._book.execute(
            _MARK_DELIVERED,
            {
                "game_id": game_id,
                "key": key,
                "channel_id": delivered.channel_id,
                "message_id": delivered.message_id,
                "digest": delivered.digest,
            },
        )

    @_bookkeeping
    async def forget_delivered(self, game_id: int, key: str) -> None:
        await self._book.execute(
            sa.delete(posts).where(posts.c.game_id == game_id, posts.c.key == key)
        )

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
        await self._book.execute(
            _SAVE_HAND,
            {
                "game_id": game_id,
                "user_id": user_id,
                "token": token,
                "opened_at": _iso(opened_at),
                "message_id": message_id,
                "language": language,
            },
        )

    @_bookkeeping
    async def drop_hand(self, game_id: int, user_id: int) -> None:
        await self._book.execute(
            sa.delete(hand_messages).where(
                hand_messages.c.game_id == game_id, hand_messages.c.user_id == user_id
            )
        )

    @_serialized
    async def open_hands(
        self, game_id: int
    ) -> dict[int, tuple[str, datetime, int | None, str | None]]:
        """user id -> (interaction token, when it was issued, follow-up message id or None,
        the player's language or None) of the game's open hands."""
        h = hand_messages.c
        rows = await self._db.execute(
            sa.select(h.user_id, h.token, h.opened_at, h.message_id, h.language).where(
                h.game_id == game_id
            )
        )
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
        query = SELECT_GAME.where(
            games.c.status.in_(statuses), shards.condition(games.c.guild_id)
        ).order_by(games.c.id)
        games_read: list[Table] = []
        damaged: list[GameRef] = []
        for row in await self._db.execute(query):
            try:
                games_read.append(game_from_row(row))
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
                            message_id=None if row[10] is None else int(row[10]),
                        )
                    )
                except (TypeError, ValueError):
                    continue
        return games_read, damaged

    @_serialized
    @_writes
    async def stop_open_game(self, game_id: int) -> bool:
        """Mark an open game stopped without reading it (for a row that cannot be used);
        returns whether it was open. No result is written."""
        stop = (
            sa.update(games)
            .where(games.c.id == game_id, games.c.status.in_(OPEN_STATUSES))
            .values(status="stopped", version=games.c.version + 1, updated_at=_iso(self._clock()))
        )
        async with transaction(self._db):
            changed = (await self._db.execute(stop)).rowcount
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
        async with transaction(self._db):
            await self._db.run_sync(_results.expire_period, guild_id, days, today)

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
        await self._db.execute(
            _SET_CHANNEL_SETTINGS,
            {
                "channel_id": channel_id,
                "guild_id": guild_id,
                "settings": _dump(settings),
                "updated_by": updated_by,
                "updated_at": _iso(self._clock()),
            },
        )

    # ------------------------------------------------------------------ the bot's own state

    @_serialized
    async def bot_state(self, key: str) -> str | None:
        """A value the bot kept about itself (e.g. the last synced commands' digest)."""
        query = sa.select(bot_state.c.value).where(bot_state.c.key == key)
        value = _first(await self._db.execute(query))
        return None if value is None else str(value)

    @_serialized
    async def set_bot_state(self, key: str, value: str) -> None:
        await self._db.execute(
            _SET_BOT_STATE, {"key": key, "value": value, "updated_at": _iso(self._clock())}
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
        changed = (
            await self._db.execute(
                _CLAIM,
                {
                    "key": key,
                    "value": moment,
                    "updated_at": _iso(self._clock()),
                    "old_enough": f"{max(0, now_ms - spacing_ms):0{_MOMENT_DIGITS}d}",
                    "too_new": f"{now_ms + _CLAIM_SKEW_MS:0{_MOMENT_DIGITS}d}",
                },
            )
        ).rowcount
        if changed:
            return 0
        value = _first(
            await self._db.execute(sa.select(bot_state.c.value).where(bot_state.c.key == key))
        )
        last = int(value) if value is not None and str(value).isdigit() else now_ms
        return max(1, last + spacing_ms - now_ms)

    # ------------------------------------------------------------------ leaderboards

    @_serialized
    async def results_for_game(self, game_id: int) -> list[ResultRow]:
        r = results_table.c
        rows = await self._db.execute(
            sa.select(r.seat, r.user_id, r.score, r.won, r.bids_exact, r.bids)
            .where(r.game_id == game_id)
            .order_by(r.seat)
        )
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


# The group commit's statement: every queued move's row in one UPDATE ... FROM (VALUES ...)
# (a VALUES list's columns are column1, column2... on both engines), returning the games it
# changed (a stale move changes nothing). The casts give PostgreSQL the columns' types (a
# column of NULL parameters has none).
_BATCH_COLUMNS = ("game_id", "based_on", *_MOVE_COLUMNS)
_INTEGER_COLUMNS = frozenset(
    {"game_id", "based_on"}
    | {name for name in _MOVE_COLUMNS if isinstance(games.c[name].type, sa.Integer)}
)


_BATCH_MOST = 64
# A spare slot of the batch statement: no game has id 0.
_NO_GAME: dict[str, Any] = dict.fromkeys(_BATCH_COLUMNS) | {"game_id": NO_GAME_ID, "based_on": -1}


@functools.lru_cache(maxsize=16)
def _batch_update(size: int) -> str:
    def column(name: str) -> str:
        kind = "BIGINT" if name in _INTEGER_COLUMNS else "TEXT"
        return f"CAST(v.column{_BATCH_COLUMNS.index(name) + 1} AS {kind})"

    rows = ", ".join(
        "(" + ", ".join(f":{name}_{index}" for name in _BATCH_COLUMNS) + ")"
        for index in range(size)
    )
    updates = ", ".join(f"{name} = {column(name)}" for name in _BATCH_COLUMNS[2:])
    return (
        f"UPDATE games SET {updates} FROM (VALUES {rows}) AS v"
        f" WHERE games.id = {column('game_id')} AND games.version = {column('based_on')}"
        " RETURNING games.id"
    )


# Upserts, in the SQL both engines run (ON CONFLICT ... DO UPDATE; the stored row's columns
# named with their table, which PostgreSQL needs beside ``excluded``).
_MARK_DELIVERED = sa.text(
    "INSERT INTO posts (game_id, key, channel_id, message_id, digest)"
    " VALUES (:game_id, :key, :channel_id, :message_id, :digest)"
    " ON CONFLICT (game_id, key) DO UPDATE SET channel_id = excluded.channel_id,"
    " message_id = excluded.message_id, digest = excluded.digest"
)
_SAVE_HAND = sa.text(
    "INSERT INTO hand_messages (game_id, user_id, token, opened_at, message_id, language)"
    " VALUES (:game_id, :user_id, :token, :opened_at, :message_id, :language)"
    " ON CONFLICT (game_id, user_id) DO UPDATE SET token = excluded.token,"
    " opened_at = excluded.opened_at, message_id = excluded.message_id,"
    " language = excluded.language"
)
_SET_CHANNEL_SETTINGS = sa.text(
    "INSERT INTO channel_settings (channel_id, guild_id, settings, updated_by, updated_at)"
    " VALUES (:channel_id, :guild_id, :settings, :updated_by, :updated_at)"
    " ON CONFLICT (channel_id) DO UPDATE SET guild_id = excluded.guild_id,"
    " settings = excluded.settings, updated_by = excluded.updated_by,"
    " updated_at = excluded.updated_at"
)
_SET_BOT_STATE = sa.text(
    "INSERT INTO bot_state (key, value, updated_at) VALUES (:key, :value, :updated_at)"
    " ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at"
)
_CLAIM = sa.text(
    "INSERT INTO bot_state (key, value, updated_at) VALUES (:key, :value, :updated_at)"
    " ON CONFLICT (key) DO UPDATE SET value = excluded.value,"
    " updated_at = excluded.updated_at"
    " WHERE bot_state.value <= :old_enough OR bot_state.value > :too_new"
)


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
