"""The store's part of seasons (bot/club/seasons.py): each server's season settings, the
games a season counts, and the champions crowned. Every statement runs on the writer
connection under the store's lock (``Store.run``)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.club.model import Crown, SeasonPlayer, SeasonSettings
from bot.shards import ALL_SHARDS, Shards

from .club import Work
from .drivers import insert_once, transaction
from .rows import dump as _dump
from .rows import iso as _iso
from .schema import results, season_crowns, season_settings


def _day(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(text)


def _settings(row: sa.Row[Any]) -> SeasonSettings:
    return SeasonSettings(
        guild_id=int(row.guild_id),
        kind=str(row.kind),
        channel_id=int(row.channel_id),
        since=date.fromisoformat(row.since),
        first_day=_day(row.first_day),
        last_day=_day(row.last_day),
        role_id=row.role_id,
    )


def _crown(row: sa.Row[Any]) -> Crown:
    standings = tuple(SeasonPlayer(**entry) for entry in json.loads(row.standings))
    return Crown(
        guild_id=int(row.guild_id),
        season=str(row.season),
        first_day=date.fromisoformat(row.first_day),
        end_day=date.fromisoformat(row.end_day),
        standings=standings,
        channel_id=int(row.channel_id),
        role_id=row.role_id,
        message_id=row.message_id,
        roles_done=bool(row.roles_done),
    )


class Seasons:
    """Seasons in the store (bot/club/seasons.py): ``run`` is the store's unit of work."""

    def __init__(self, run: Callable[[Work[Any]], Awaitable[Any]], clock: Callable[[], datetime]):
        self._run = run
        self._clock = clock

    async def _do(self, statement: Any, *, write: bool = True) -> Any:
        async def work(db: AsyncConnection) -> Any:
            if not write:
                return list(await db.execute(statement))
            async with transaction(db):
                return (await db.execute(statement)).rowcount

        return await self._run(work)

    async def settings(self, guild_id: int) -> SeasonSettings | None:
        rows = await self._do(
            sa.select(season_settings).where(season_settings.c.guild_id == guild_id), write=False
        )
        return _settings(rows[0]) if rows else None

    async def all_settings(self, shards: Shards = ALL_SHARDS) -> list[SeasonSettings]:
        query = sa.select(season_settings).where(shards.condition(season_settings.c.guild_id))
        return [_settings(row) for row in await self._do(query, write=False)]

    async def set_settings(self, settings: SeasonSettings, updated_by: int) -> None:
        values = {
            "kind": settings.kind,
            "first_day": None if settings.first_day is None else settings.first_day.isoformat(),
            "last_day": None if settings.last_day is None else settings.last_day.isoformat(),
            "channel_id": settings.channel_id,
            "role_id": settings.role_id,
            "since": settings.since.isoformat(),
            "updated_by": updated_by,
            "updated_at": _iso(self._clock()),
        }
        key = season_settings.c.guild_id == settings.guild_id

        async def work(db: AsyncConnection) -> None:
            async with transaction(db):
                await db.execute(sa.delete(season_settings).where(key))
                await db.execute(
                    sa.insert(season_settings).values(guild_id=settings.guild_id, **values)
                )

        await self._run(work)

    async def clear_settings(self, guild_id: int) -> bool:
        statement = sa.delete(season_settings).where(season_settings.c.guild_id == guild_id)
        return bool(await self._do(statement))

    async def games(
        self, guild_id: int, first: date, end: date
    ) -> tuple[list[list[tuple[int | None, int, bool]]], dict[int, str]]:
        """The server's games finished from ``first`` to the day before ``end``: each game's
        seats (player or None, score, won), and each player's latest name."""
        query = (
            sa.select(
                results.c.game_id,
                results.c.user_id,
                results.c.score,
                results.c.won,
                results.c.name,
            )
            .where(
                results.c.guild_id == guild_id,
                results.c.finished_at >= first.isoformat(),
                results.c.finished_at < end.isoformat(),
            )
            .order_by(results.c.game_id, results.c.seat)
        )
        games: dict[int, list[tuple[int | None, int, bool]]] = {}
        names: dict[int, str] = {}
        for row in await self._do(query, write=False):
            user = None if row.user_id is None else int(row.user_id)
            games.setdefault(int(row.game_id), []).append((user, int(row.score), bool(row.won)))
            if user is not None and row.name:
                names[user] = str(row.name)
        return list(games.values()), names

    async def crown(self, crown: Crown) -> bool:
        """Write a season's crown once (False: it was crowned already)."""
        standings = [vars(player) for player in crown.standings]
        statement = sa.insert(season_crowns).values(
            guild_id=crown.guild_id,
            season=crown.season,
            first_day=crown.first_day.isoformat(),
            end_day=crown.end_day.isoformat(),
            standings=_dump(standings),
            channel_id=crown.channel_id,
            role_id=crown.role_id,
            message_id=None,
            roles_done=0,
            crowned_at=_iso(self._clock()),
        )

        async def work(db: AsyncConnection) -> bool:
            return await insert_once(db, statement)

        done: bool = await self._run(work)
        return done

    async def crowns(self, guild_id: int) -> list[Crown]:
        """Every crowned season of the server, newest first."""
        query = (
            sa.select(season_crowns)
            .where(season_crowns.c.guild_id == guild_id)
            .order_by(season_crowns.c.end_day.desc(), season_crowns.c.season.desc())
        )
        return [_crown(row) for row in await self._do(query, write=False)]

    async def crowned(self, crown: Crown, **done: Any) -> None:
        """Remember what of the announcement is done (``message_id``, ``roles_done``)."""
        statement = (
            sa.update(season_crowns)
            .where(
                season_crowns.c.guild_id == crown.guild_id, season_crowns.c.season == crown.season
            )
            .values(**{k: (int(v) if isinstance(v, bool) else v) for k, v in done.items()})
        )
        await self._do(statement)
