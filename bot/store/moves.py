"""Games and moves, the writes: a move's UPDATE committed with the other tables' moves in one
group commit (one fsync for all of them), a finished game's row, results, aggregates and
ratings in one transaction (:mod:`.results`), and the period windows moved on after it
(:mod:`.periods`).

Every move is guarded by the game's move counter (``version``), so that two writers can never
both win: a stale write changes nothing and raises :class:`~.failures.StaleWrite`."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from bot import rating as _rating
from bot.deal_lines import deal_lines_from_record
from bot.model import Table

from . import direct
from . import periods as _periods
from . import results as _results
from .base import StoreBase, dump_record, serialized, writes
from .drivers import DATABASE_ERRORS, classify, rollback, transaction
from .failures import StaleWrite, StoreBusy, StoreError, StoreUnavailable
from .finished import FinishedSeat
from .rows import NO_GAME_ID
from .rows import dump as _dump
from .rows import iso as _iso
from .schema import games
from .schema import results as results_table
from .table_json import options_to_json, seat_to_json
from .values import DealLine, ResultRow

log = logging.getLogger("bot.store")

# What a failure to move the period windows on may raise (it is logged, not the caller's).
_EXPIRE_ERRORS: tuple[type[Exception], ...] = (StoreError, *DATABASE_ERRORS)

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


class Moves(StoreBase):
    """A game's writes once it is open: every move, and the finish."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Moves waiting for the next group commit (see _write_move), and its task.
        self._moves: list[_PendingMove] = []
        self._mover: asyncio.Task[None] | None = None

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
            "record": record if record is not None else dump_record(game.record),
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

    @serialized
    @writes
    async def _write_game(
        self,
        game: Table,
        based_on: int,
        update: dict[str, Any],
        rows: list[dict[str, Any]],
        seats: list[FinishedSeat],
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

    async def expire_periods(self, guild_id: int, today: str) -> None:
        """Move a server's 7- and 30-day windows on to end ``today`` (YYYY-MM-DD, UTC): done
        after the day's first finished game in the server, and by a period board read that
        finds a window behind. One transaction a period, each taking the store's lock on its
        own so that moves of other tables commit between them: the rows of the day that left
        the window are subtracted (tens of milliseconds at 100,000 games a year)."""
        if self._expired.get(guild_id) == today:
            return
        for days in _periods.PERIOD_DAYS:
            await self._expire_period(guild_id, days, today)
        self._expired[guild_id] = today

    @serialized
    @writes
    async def _expire_period(self, guild_id: int, days: int, today: str) -> None:
        async with transaction(self._db):
            await self._db.run_sync(_periods.expire_period, guild_id, days, today)


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


def _finished_seats(
    game: Table, results: list[ResultRow], record: str | None
) -> list[FinishedSeat]:
    """The results with what the aggregates need: names (the seat's when the caller gave
    none), computer levels, places, and each seat's deals (replayed from the record when the
    caller gave none). Runs before the store's lock is taken."""
    if not results:
        return []
    deals: list[tuple[DealLine, ...]] = []
    if any(not result.deals for result in results):
        deals = deal_lines_from_record(record if record is not None else dump_record(game.record))
    places = _rating.places([result.score for result in results])
    seats = []
    for result, place in zip(results, places, strict=True):
        entry = game.seats[result.seat] if 0 <= result.seat < len(game.seats) else None
        level = result.level
        if level is None and result.user_id is None:
            # A Seat may carry the computer's level (added with the levels); else the default.
            level = getattr(entry, "level", None) or _rating.DEFAULT_LEVEL
        seats.append(
            FinishedSeat(
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
