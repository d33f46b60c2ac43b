"""The store's part of club play (docs/events.md): events, their players and the tables of
their rounds. Every statement runs on the writer connection under the store's lock
(``Store.run``), one transaction per change; a change that finds the event moved on (its
version or round is not the one the caller saw) writes nothing and says so.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from datetime import date, datetime
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.club.model import (
    OPEN_EVENT_STATUSES,
    Crown,
    Entrant,
    EntrantStatus,
    Event,
    EventSeat,
    EventStatus,
    EventTable,
    SeasonPlayer,
    SeasonSettings,
)
from bot.model import TableOptions
from bot.shards import ALL_SHARDS, Shards

from .drivers import insert_once, transaction
from .failures import INTEGRITY_ERRORS
from .rows import dump as _dump
from .rows import iso as _iso
from .schema import event_players, event_tables, events, results, season_crowns, season_settings
from .table_json import options_from_json, options_to_json

R = TypeVar("R")
Work = Callable[[AsyncConnection], Awaitable[R]]


def _time(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _event(row: sa.Row[Any]) -> Event:
    return Event(
        id=int(row.id),
        guild_id=int(row.guild_id),
        channel_id=int(row.channel_id),
        organiser_id=int(row.organiser_id),
        name=str(row.name),
        format=str(row.format),
        table_size=int(row.table_size),
        rounds=int(row.rounds),
        level=str(row.level),
        options=options_from_json(json.loads(row.options)),
        status=row.status,
        round=int(row.round),
        created_at=datetime.fromisoformat(row.created_at),
        updated_at=datetime.fromisoformat(row.updated_at),
        starts_at=_time(row.starts_at),
        scheduled_event_id=row.scheduled_event_id,
        message_id=row.message_id,
        reminded=bool(row.reminded),
        settled=bool(row.settled),
        version=int(row.version),
    )


def _table(row: sa.Row[Any]) -> EventTable:
    seats = tuple(EventSeat(s.get("user_id"), str(s["name"])) for s in json.loads(row.seats))
    return EventTable(
        event_id=int(row.event_id),
        round=int(row.round),
        table_no=int(row.table_no),
        seats=seats,
        seed=str(row.seed),
        thread_id=row.thread_id,
        game_id=row.game_id,
    )


class _Moved(Exception):
    """The event is not where the change was planned from."""


class Club:
    """Events in the store: ``run`` is the store's serialized unit of work."""

    def __init__(self, run: Callable[[Work[Any]], Awaitable[Any]], clock: Callable[[], datetime]):
        self._run = run
        self._clock = clock

    async def open_event(
        self,
        *,
        guild_id: int,
        channel_id: int,
        organiser_id: int,
        name: str,
        format: str,
        table_size: int,
        rounds: int,
        level: str,
        options: TableOptions,
        starts_at: datetime | None,
    ) -> Event:
        now = self._clock()
        values = {
            "guild_id": guild_id,
            "channel_id": channel_id,
            "organiser_id": organiser_id,
            "name": name,
            "format": format,
            "table_size": table_size,
            "rounds": rounds,
            "level": level,
            "options": _dump(options_to_json(options)),
            "status": "registering",
            "round": 0,
            "starts_at": None if starts_at is None else _iso(starts_at),
            "reminded": 0,
            "settled": 0,
            "version": 0,
            "created_at": _iso(now),
            "updated_at": _iso(now),
        }

        async def work(db: AsyncConnection) -> int:
            async with transaction(db):
                result = await db.execute(sa.insert(events).values(values).returning(events.c.id))
                return int(result.scalar_one())

        event_id: int = await self._run(work)
        event = await self.load_event(event_id)
        assert event is not None
        return event

    async def load_event(self, event_id: int) -> Event | None:
        async def work(db: AsyncConnection) -> Event | None:
            row = (await db.execute(sa.select(events).where(events.c.id == event_id))).first()
            return None if row is None else _event(row)

        result: Event | None = await self._run(work)
        return result

    async def events_in(
        self, guild_id: int, statuses: Sequence[EventStatus] = OPEN_EVENT_STATUSES
    ) -> list[Event]:
        """A server's events with one of ``statuses``, newest first."""
        query = (
            sa.select(events)
            .where(events.c.guild_id == guild_id, events.c.status.in_(statuses))
            .order_by(events.c.id.desc())
        )

        async def work(db: AsyncConnection) -> list[Event]:
            return [_event(row) for row in await db.execute(query)]

        found: list[Event] = await self._run(work)
        return found

    async def open_events(self, shards: Shards = ALL_SHARDS) -> list[Event]:
        """Every open event of ``shards``' servers, and every ended one whose message does not
        show its end yet (at start: each is conducted again)."""
        unfinished = sa.or_(events.c.status.in_(OPEN_EVENT_STATUSES), events.c.settled == 0)
        query = (
            sa.select(events)
            .where(unfinished, shards.condition(events.c.guild_id))
            .order_by(events.c.id)
        )

        async def work(db: AsyncConnection) -> list[Event]:
            return [_event(row) for row in await db.execute(query)]

        found: list[Event] = await self._run(work)
        return found

    async def update_event(self, event: Event, **changes: Any) -> bool:
        """Write ``changes`` (columns of the event) if the event is still at ``event.version``;
        on success the event in memory takes them and the next version. False: it moved on."""
        stored = {k: (_iso(v) if isinstance(v, datetime) else v) for k, v in changes.items()}
        for flag in ("reminded", "settled"):
            if flag in stored:
                stored[flag] = int(bool(stored[flag]))
        statement = (
            sa.update(events)
            .where(events.c.id == event.id, events.c.version == event.version)
            .values(**stored, version=event.version + 1, updated_at=_iso(self._clock()))
        )

        async def work(db: AsyncConnection) -> int:
            async with transaction(db):
                return int((await db.execute(statement)).rowcount)

        if not await self._run(work):
            return False
        for key, value in changes.items():
            setattr(event, key, value)
        event.version += 1
        return True

    # ---- players

    async def entrants(self, event_id: int) -> list[Entrant]:
        """Everyone who registered, in the order they registered."""
        query = (
            sa.select(event_players)
            .where(event_players.c.event_id == event_id)
            .order_by(event_players.c.joined_at, event_players.c.user_id)
        )

        async def work(db: AsyncConnection) -> list[Entrant]:
            return [
                Entrant(int(r.user_id), str(r.name), r.status, bool(r.remind_by_dm))
                for r in await db.execute(query)
            ]

        found: list[Entrant] = await self._run(work)
        return found

    async def set_entrant(
        self,
        event_id: int,
        user_id: int,
        name: str,
        status: EntrantStatus,
        *,
        only_while: EventStatus | None = None,
        remind_by_dm: bool | None = None,
    ) -> bool:
        """Register, withdraw or drop a player (one upsert); with ``only_while``, only if the
        event still has that status (a click racing the start changes nothing). True if
        written."""
        now = _iso(self._clock())

        async def work(db: AsyncConnection) -> bool:
            async with transaction(db):
                if only_while is not None:
                    status_now = (
                        await db.execute(sa.select(events.c.status).where(events.c.id == event_id))
                    ).scalar()
                    if status_now != only_while:
                        return False
                key = (event_players.c.event_id == event_id) & (event_players.c.user_id == user_id)
                exists = (await db.execute(sa.select(event_players.c.user_id).where(key))).first()
                values: dict[str, Any] = {"name": name, "status": status}
                if remind_by_dm is not None:
                    values["remind_by_dm"] = int(remind_by_dm)
                if exists:
                    await db.execute(sa.update(event_players).where(key).values(values))
                else:
                    values.setdefault("remind_by_dm", 0)
                    await db.execute(
                        sa.insert(event_players).values(
                            event_id=event_id, user_id=user_id, joined_at=now, **values
                        )
                    )
                return True

        done: bool = await self._run(work)
        return done

    # ---- rounds and tables

    async def seat_round(self, event: Event, tables: Sequence[EventTable]) -> bool:
        """Seat the next round: its tables and the event's round counter in one transaction,
        only if the event is still at the round and version it was planned from (a round is
        never seated twice). False: it moved on, nothing written."""
        next_round = event.round + 1
        if any(table.round != next_round for table in tables):
            raise ValueError("the tables are not the next round's")
        rows = [
            {
                "event_id": event.id,
                "round": table.round,
                "table_no": table.table_no,
                "seats": _dump([{"user_id": s.user_id, "name": s.name} for s in table.seats]),
                "seed": table.seed,
            }
            for table in tables
        ]
        moved = (
            sa.update(events)
            .where(
                events.c.id == event.id,
                events.c.version == event.version,
                events.c.round == event.round,
            )
            .values(
                round=next_round,
                status="running",
                version=event.version + 1,
                updated_at=_iso(self._clock()),
            )
        )

        async def work(db: AsyncConnection) -> bool:
            try:
                async with transaction(db):
                    if not (await db.execute(moved)).rowcount:
                        raise _Moved
                    await db.execute(sa.insert(event_tables), rows)
            except _Moved:
                return False
            except INTEGRITY_ERRORS:
                return False
            return True

        if not await self._run(work):
            return False
        event.round, event.status, event.version = next_round, "running", event.version + 1
        return True

    async def tables(self, event_id: int) -> list[EventTable]:
        query = (
            sa.select(event_tables)
            .where(event_tables.c.event_id == event_id)
            .order_by(event_tables.c.round, event_tables.c.table_no)
        )

        async def work(db: AsyncConnection) -> list[EventTable]:
            return [_table(row) for row in await db.execute(query)]

        found: list[EventTable] = await self._run(work)
        return found

    async def set_table(self, table: EventTable, **ids: int) -> None:
        """Remember a table's thread (``thread_id``) or game (``game_id``) once it exists."""
        statement = (
            sa.update(event_tables)
            .where(
                event_tables.c.event_id == table.event_id,
                event_tables.c.round == table.round,
                event_tables.c.table_no == table.table_no,
            )
            .values(**ids)
        )

        async def work(db: AsyncConnection) -> None:
            async with transaction(db):
                await db.execute(statement)

        await self._run(work)

    async def event_of_game(self, game_id: int) -> int | None:
        query = sa.select(event_tables.c.event_id).where(event_tables.c.game_id == game_id)

        async def work(db: AsyncConnection) -> int | None:
            found = (await db.execute(query)).scalar()
            return None if found is None else int(found)

        result: int | None = await self._run(work)
        return result


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
