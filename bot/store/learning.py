"""The store's part of reviews and practice (docs/review.md). Every statement runs on the
writer connection under the store's lock (``Store.run``). A review is written once: the
insert is keyed by its game, so a second computation of the same review (after a crash, or
by another process) changes nothing. A practice deal's move is written only over the version
its player saw."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.review.model import PracticeDeal

from .drivers import insert_once, transaction
from .rows import dump, iso
from .schema import game_reviews, practice_deals

Run = Callable[[Callable[[AsyncConnection], Awaitable[Any]]], Awaitable[Any]]


class Reviews:
    def __init__(self, run: Run, clock: Callable[[], datetime]) -> None:
        self._run = run
        self._clock = clock

    async def get(self, game_id: int) -> dict[str, Any] | None:
        query = sa.select(game_reviews.c.document).where(game_reviews.c.game_id == game_id)

        async def work(db: AsyncConnection) -> dict[str, Any] | None:
            row = (await db.execute(query)).first()
            return None if row is None else dict(json.loads(row.document))

        result: dict[str, Any] | None = await self._run(work)
        return result

    async def put(self, game_id: int, document: dict[str, Any]) -> bool:
        """Store a game's review; False if it was stored already (the first one stays)."""
        statement = sa.insert(game_reviews).values(
            game_id=game_id, document=dump(document), computed_at=iso(self._clock())
        )

        async def work(db: AsyncConnection) -> bool:
            return await insert_once(db, statement)

        done: bool = await self._run(work)
        return done


def _practice(row: sa.Row[Any]) -> PracticeDeal:
    return PracticeDeal(
        id=int(row.id),
        user_id=int(row.user_id),
        seat=int(row.seat),
        level=str(row.level),
        source_game=row.source_game,
        record=json.loads(row.record),
        hints=int(row.hints),
        version=int(row.version),
    )


class Practices:
    def __init__(self, run: Run, clock: Callable[[], datetime]) -> None:
        self._run = run
        self._clock = clock

    async def create(
        self,
        user_id: int,
        seat: int,
        level: str,
        record: dict[str, Any],
        source_game: int | None,
    ) -> PracticeDeal:
        now = iso(self._clock())
        values = {
            "user_id": user_id,
            "seat": seat,
            "level": level,
            "source_game": source_game,
            "record": dump(record),
            "hints": 0,
            "version": 1,
            "created_at": now,
            "updated_at": now,
        }
        statement = sa.insert(practice_deals).values(**values).returning(practice_deals.c.id)

        async def work(db: AsyncConnection) -> int:
            async with transaction(db):
                return int((await db.execute(statement)).scalar_one())

        new_id: int = await self._run(work)
        return PracticeDeal(
            id=new_id,
            user_id=user_id,
            seat=seat,
            level=level,
            source_game=source_game,
            record=record,
            hints=0,
            version=1,
        )

    async def load(self, practice_id: int) -> PracticeDeal | None:
        query = sa.select(practice_deals).where(practice_deals.c.id == practice_id)

        async def work(db: AsyncConnection) -> PracticeDeal | None:
            row = (await db.execute(query)).first()
            return None if row is None else _practice(row)

        found: PracticeDeal | None = await self._run(work)
        return found

    async def save(self, deal: PracticeDeal, record: dict[str, Any], hints: int) -> bool:
        """Write the deal's next state over the version ``deal`` was read at; False (nothing
        written) if another click wrote first."""
        statement = (
            sa.update(practice_deals)
            .where(practice_deals.c.id == deal.id, practice_deals.c.version == deal.version)
            .values(
                record=dump(record),
                hints=hints,
                version=deal.version + 1,
                updated_at=iso(self._clock()),
            )
        )

        async def work(db: AsyncConnection) -> bool:
            async with transaction(db):
                return bool((await db.execute(statement)).rowcount == 1)

        saved: bool = await self._run(work)
        return saved
