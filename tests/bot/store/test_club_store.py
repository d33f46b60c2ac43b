"""The store's part of club play: an event's version guards every change, a round is seated
once, registrations race the start safely, and each process conducts its own servers' events."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from bot.club.model import Crown, EventSeat, EventTable, SeasonPlayer
from bot.model import TableOptions
from bot.shards import Shards
from bot.store.store import Store


@pytest.fixture
async def store(database: str | Path) -> AsyncIterator[Store]:
    opened = await Store.open(database, clock=lambda: datetime(2026, 12, 4, 12, tzinfo=UTC))
    try:
        yield opened
    finally:
        await opened.close()


async def open_event(store: Store, guild: int) -> object:
    return await store.club.open_event(
        guild_id=guild,
        channel_id=guild + 1,
        organiser_id=7,
        name="Cup",
        format="rotation",
        table_size=4,
        rounds=2,
        level="heuristic",
        options=TableOptions(),
        starts_at=None,
    )


def tables_of(event_id: int, round_number: int) -> list[EventTable]:
    seats = tuple(EventSeat(user, f"P{user}") for user in (1, 2, None))
    return [EventTable(event_id, round_number, 1, seats, "seed")]


async def test_a_round_is_seated_once_and_a_stale_change_writes_nothing(store: Store) -> None:
    event = await open_event(store, 100)
    stale = await store.club.load_event(event.id)
    assert await store.club.seat_round(event, tables_of(event.id, 1))
    assert (event.round, event.status) == (1, "running")
    # The same round planned from the event as it was: refused, nothing written.
    assert not await store.club.seat_round(stale, tables_of(event.id, 1))
    assert not await store.club.update_event(stale, status="closed")
    stored = await store.club.load_event(event.id)
    assert (stored.round, stored.status, stored.version) == (1, "running", 1)
    assert len(await store.club.tables(event.id)) == 1
    with pytest.raises(ValueError):
        await store.club.seat_round(stored, tables_of(event.id, 3))


async def test_registration_written_only_while_the_event_registers(store: Store) -> None:
    event = await open_event(store, 100)
    assert await store.club.set_entrant(event.id, 1, "P1", "registered", only_while="registering")
    assert await store.club.update_event(event, status="running")
    assert not await store.club.set_entrant(
        event.id, 2, "P2", "registered", only_while="registering"
    )
    assert [e.user_id for e in await store.club.entrants(event.id)] == [1]


async def test_each_process_restores_its_own_servers_events(store: Store) -> None:
    # (guild >> 22) % 2 decides the shard: these two guilds are on shards 0 and 1.
    mine, theirs = 0 << 22, 1 << 22
    await open_event(store, mine)
    await open_event(store, theirs)
    found = await store.club.open_events(Shards(2, frozenset({0})))
    assert [e.guild_id for e in found] == [mine]
    assert len(await store.club.open_events()) == 2


async def test_a_season_is_crowned_once(store: Store) -> None:
    crown = Crown(
        guild_id=5,
        season="2026-11",
        first_day=date(2026, 11, 1),
        end_day=date(2026, 12, 1),
        standings=(SeasonPlayer(1, "asha", 1, 3.0, 1, 2),),
        channel_id=6,
    )
    assert await store.seasons.crown(crown)
    assert not await store.seasons.crown(crown)
    (stored,) = await store.seasons.crowns(5)
    assert stored.champions == crown.champions and stored.message_id is None
    await store.seasons.crowned(stored, message_id=42, roles_done=True)
    (done,) = await store.seasons.crowns(5)
    assert (done.message_id, done.roles_done) == (42, True)
