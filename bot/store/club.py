"""The store's part of club play (docs/events.md): events, their players and the tables of
their rounds. Every statement runs on the writer connection under the store's lock
(``Store.run``), one transaction per change; a change that finds the event moved on (its
version or round is not the one the caller saw) writes nothing and says so.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.club.model import (
    OPEN_EVENT_STATUSES,
    Entrant,
    EntrantStatus,
    Event,
    EventSeat,
    EventStatus,
    EventTable,
)
from bot.model import TableOptions
from bot.shards import ALL_SHARDS, Shards

from .drivers import INTEGRITY_ERRORS, transaction
from .rows import dump as _dump
from .rows import iso as _iso
from .schema import event_players, event_tables, events
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
