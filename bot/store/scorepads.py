"""The store's part of score pads (docs/scorepad.md): one row per pad, every change written
over the version its click read; a finished pad's results are counted in the same transaction
that marks it finished, so a pad counts once or not at all whenever the process dies."""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.scorepad.model import Board, Pad, PadSeat, board_guild, pad_game_id
from bot.shards import ALL_SHARDS, Shards

from . import results as _results
from .drivers import transaction
from .rows import dump, iso
from .schema import scorepads
from .table_json import options_from_json, options_to_json

Run = Callable[[Callable[[AsyncConnection], Awaitable[Any]]], Awaitable[Any]]
ACTIVE = ("open", "running")


def _pad(row: sa.Row[Any]) -> Pad:
    return Pad(
        id=int(row.id),
        guild_id=int(row.guild_id),
        channel_id=int(row.channel_id),
        host_id=int(row.host_id),
        status=row.status,
        seats=[PadSeat(int(s["user_id"]), str(s["name"])) for s in json.loads(row.seats)],
        options=options_from_json(json.loads(row.rules)),
        record=None if row.record is None else json.loads(row.record),
        message_id=row.message_id,
        version=int(row.version),
        board=row.board,
        shown=int(row.shown),
    )


class ScorePads:
    def __init__(self, run: Run, clock: Callable[[], datetime]) -> None:
        self._run = run
        self._clock = clock

    async def open(self, pad: Pad) -> Pad | None:
        """A new pad in its channel; None if the channel already has one open or running."""
        now = iso(self._clock())
        values = {
            "guild_id": pad.guild_id,
            "channel_id": pad.channel_id,
            "host_id": pad.host_id,
            "status": "open",
            "seats": dump([vars(s) for s in pad.seats]),
            "rules": dump(options_to_json(pad.options)),
            "record": None,
            "message_id": None,
            "version": 1,
            "shown": 0,
            "board": None,
            "created_at": now,
            "updated_at": now,
        }
        busy = sa.select(scorepads.c.id).where(
            scorepads.c.channel_id == pad.channel_id, scorepads.c.status.in_(ACTIVE)
        )

        async def work(db: AsyncConnection) -> int | None:
            async with transaction(db):
                if (await db.execute(busy)).first() is not None:
                    return None
                inserted = sa.insert(scorepads).values(values).returning(scorepads.c.id)
                return int((await db.execute(inserted)).scalar_one())

        new_id: int | None = await self._run(work)
        if new_id is None:
            return None
        pad.id, pad.status, pad.version = new_id, "open", 1
        return pad

    async def load(self, pad_id: int) -> Pad | None:
        query = sa.select(scorepads).where(scorepads.c.id == pad_id)

        async def work(db: AsyncConnection) -> Pad | None:
            row = (await db.execute(query)).first()
            return None if row is None else _pad(row)

        found: Pad | None = await self._run(work)
        return found

    async def active_in(self, channel_id: int) -> Pad | None:
        query = sa.select(scorepads).where(
            scorepads.c.channel_id == channel_id, scorepads.c.status.in_(ACTIVE)
        )

        async def work(db: AsyncConnection) -> Pad | None:
            row = (await db.execute(query)).first()
            return None if row is None else _pad(row)

        found: Pad | None = await self._run(work)
        return found

    async def shown_on(self, pad: Pad, message_id: int) -> None:
        """Its public message ``message_id`` now shows ``pad`` at its version (a later
        version already shown is not undone)."""
        statement = (
            sa.update(scorepads)
            .where(scorepads.c.id == pad.id, scorepads.c.shown < pad.version)
            .values(message_id=message_id, shown=pad.version)
        )

        async def work(db: AsyncConnection) -> None:
            async with transaction(db):
                await db.execute(statement)

        await self._run(work)

    async def unshown(self, shards: Shards = ALL_SHARDS) -> list[Pad]:
        """The pads whose public message is behind them (a process died between a write and
        its post or edit): drawn again at start."""
        query = sa.select(scorepads).where(
            scorepads.c.shown < scorepads.c.version, shards.condition(scorepads.c.guild_id)
        )

        async def work(db: AsyncConnection) -> list[Pad]:
            return [_pad(row) for row in await db.execute(query)]

        found: list[Pad] = await self._run(work)
        return found

    async def save(
        self,
        pad: Pad,
        *,
        finished: Sequence[_results.FinishedSeat] = (),
        board: Board | None = None,
    ) -> bool:
        """Write ``pad`` (its version already raised by one) over the version before; with
        ``finished`` seats, count its results on ``board`` in the same transaction. False,
        nothing written, if another click wrote first."""
        values = {
            "status": pad.status,
            "seats": dump([vars(s) for s in pad.seats]),
            "host_id": pad.host_id,
            "record": None if pad.record is None else dump(pad.record),
            "version": pad.version,
            "board": board if finished else pad.board,
            "updated_at": iso(self._clock()),
        }
        statement = (
            sa.update(scorepads)
            .where(scorepads.c.id == pad.id, scorepads.c.version == pad.version - 1)
            .values(values)
        )
        now = iso(self._clock())

        async def work(db: AsyncConnection) -> bool:
            async with transaction(db):
                if (await db.execute(statement)).rowcount != 1:
                    return False
                if finished and board is not None:
                    await db.run_sync(
                        functools.partial(
                            _results.apply_finished_game,
                            game_id=pad_game_id(pad.id),
                            guild_id=board_guild(pad.guild_id, board),
                            channel_id=pad.channel_id,
                            finished_at=now,
                            seats=list(finished),
                        )
                    )
            return True

        saved: bool = await self._run(work)
        return saved
