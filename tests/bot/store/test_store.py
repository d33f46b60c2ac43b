"""The store: migrations, one-transaction saves guarded by the move counter, WAL, leaderboards."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.model import Seat, Table, TableOptions
from bot.shards import Shards
from bot.store.drivers import INTEGRITY_ERRORS
from bot.store.failures import ChannelBusy, StaleWrite, StoreError
from bot.store.migrate import head, names, newest, revisions
from bot.store.store import Store
from bot.store.values import Delivered, ResultRow
from tests.engines import is_file
from tests.pg import execute_raw, target_of

GUILD, CHANNEL, OTHER_CHANNEL = 10, 20, 21


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
async def store(database: str | Path) -> AsyncIterator[Store]:
    """A new store on each backend (the SQLite file in folders that do not exist yet)."""
    if is_file(database):
        database = Path(database).parent / "nested" / "folder" / Path(database).name
    opened = await Store.open(database, clock=Clock())
    try:
        yield opened
    finally:
        await opened.close()


async def new_game(
    store: Store, channel: int = CHANNEL, host: int = 1, guild: int = GUILD
) -> Table:
    return await store.create_game(
        guild_id=guild,
        channel_id=channel,
        host_id=host,
        options=TableOptions.of(schedule="down", max_hand="full"),
        max_seats=4,
        seats=[Seat(user_id=host, name="Asha")],
    )


def test_revisions_are_one_line_of_numbered_versions() -> None:
    found = revisions()
    # Versions 1, 2, ... each an Alembic revision after the one before (no branch).
    assert [version for version, _, _ in found] == list(range(1, len(found) + 1))
    assert [revision for _, _, revision in found] == [f"{v:04d}" for v, _, _ in found]
    assert found[0][1] == "0001_initial.sql"  # the names databases made before Alembic hold
    # What the store reads from the file names alone (Alembic not imported) agrees.
    assert names() == {version: name for version, name, _ in found}
    assert head() == found[-1][2] and newest() == found[-1][0]


async def test_open_creates_folder_applies_migrations_and_uses_wal(
    store: Store, tmp_path: Path
) -> None:
    assert await store.schema_version() == newest()
    if store.url is None:
        assert store.path.exists()
        assert await store.journal_mode() == "wal"


async def test_migrations_are_applied_once(database: str | Path) -> None:
    first = await Store.open(database)
    await first.close()
    second = await Store.open(database)
    try:
        assert await second.migrate() == []
        assert await second.schema_version() == newest()
    finally:
        await second.close()


async def test_newer_database_is_refused(database: str | Path) -> None:
    await (await Store.open(database)).close()
    execute_raw(database, "INSERT INTO schema_version VALUES (999, 'future.sql', 'x')")
    with pytest.raises(StoreError, match="newer"):
        await Store.open(database)


async def test_save_and_load_round_trip(store: Store) -> None:
    game = await new_game(store)
    assert game.status == "lobby" and game.version == 0
    game.seats.append(Seat(user_id=None, name="Ada (computer)"))
    game.seats.append(Seat(user_id=3, name="Chen", away=True, timeouts=3, looked_deal=2))
    game.status = "running"
    game.seed = "ab" * 32
    game.record = {"format": "kachuful-record/1", "rules": {"players": 3}, "deals": []}
    game.message_id = 555
    game.version = 1
    await store.save_game(game)
    loaded = await store.load_game(game.id)
    assert loaded is not None
    assert loaded.status == "running"
    assert loaded.seats == game.seats
    assert loaded.seed == game.seed and loaded.record == game.record
    assert loaded.message_id == 555 and loaded.version == 1
    assert loaded.options == TableOptions.of(schedule="down", max_hand="full")
    assert loaded.updated_at > loaded.created_at
    assert await store.games_with_status("running") == [loaded]


async def test_stale_write_changes_nothing(store: Store) -> None:
    game = await new_game(store)
    game.version = 1
    await store.save_game(game)
    game.seats.append(Seat(user_id=2, name="Bilal"))
    game.version = 5  # based on version 4, but the database holds 1
    with pytest.raises(StaleWrite):
        await store.save_game(game)
    loaded = await store.load_game(game.id)
    assert loaded is not None and loaded.version == 1 and len(loaded.seats) == 1


async def test_moves_of_many_tables_saved_at_once_each_count_or_fail_alone(
    store: Store,
) -> None:
    """Moves of several tables handed in together share one commit: each is on disk when its
    save returns, and a stale one fails alone, changing nothing, while the others count."""
    games = [await new_game(store, channel=100 + i, host=i + 1) for i in range(6)]
    for game in games:
        game.version = 1
    games[2].version = 7  # based on 6, but the database holds 0
    outcomes = await asyncio.gather(
        *(store.save_game(game) for game in games), return_exceptions=True
    )
    assert isinstance(outcomes[2], StaleWrite)
    assert [o for i, o in enumerate(outcomes) if i != 2] == [None] * 5
    await store.close()
    reopened = await Store.open(target_of(store))
    try:
        loaded = [await reopened.load_game(game.id) for game in games]
    finally:
        await reopened.close()
    assert [g.version if g else None for g in loaded] == [1, 1, 0, 1, 1, 1]


async def test_one_open_game_per_channel(store: Store) -> None:
    game = await new_game(store)
    with pytest.raises(ChannelBusy) as busy:
        await new_game(store)
    assert busy.value.game_id == game.id
    await new_game(store, channel=OTHER_CHANNEL)  # another channel is fine
    game.status = "stopped"
    game.version = 1
    await store.save_game(game)
    again = await new_game(store)  # the channel is free again
    assert (await store.open_game_in_channel(CHANNEL)) == again


async def _finish(store: Store, channel: int, results: list[ResultRow]) -> Table:
    game = await new_game(store, channel=channel)
    game.status = "finished"
    game.version = 1
    await store.save_game(game, results=results)
    return game


async def test_results_are_written_with_the_game_or_not_at_all(store: Store) -> None:
    game = await new_game(store)
    game.status = "finished"
    game.version = 1
    bad = [
        ResultRow(seat=0, user_id=1, score=10, won=True, bids_exact=1, bids=1),
        ResultRow(seat=0, user_id=2, score=10, won=True, bids_exact=1, bids=1),  # same seat
    ]
    with pytest.raises(INTEGRITY_ERRORS):
        await store.save_game(game, results=bad)
    loaded = await store.load_game(game.id)
    assert loaded is not None and loaded.status == "lobby" and loaded.version == 0
    assert await store.results_for_game(game.id) == []


async def test_all_sql_lives_in_the_store() -> None:
    root = Path(__file__).resolve().parents[3]
    for folder in ("bot", "cogs"):
        for path in (root / folder).rglob("*.py"):
            if "store" in path.relative_to(root).parts:
                continue
            text = path.read_text(encoding="utf-8")
            for word in ("import aiosqlite", "import sqlite3", "SELECT ", "INSERT INTO", "UPDATE "):
                assert word not in text, f"{word!r} found in {path}"


async def test_a_process_reads_only_its_own_shards_games(
    database: str | Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Four servers on shards 0-3 of 4, one open and one unsettled game each, and a damaged
    row on shard 2: the process of shards 0 and 1 gets only theirs, and hears nothing of the
    damaged row (another process's to report)."""
    store = await Store.open(database)
    guilds = [shard << 22 | 5 for shard in range(4)]  # (guild_id >> 22) % 4 == shard
    opened, ended = [], []
    for index, guild in enumerate(guilds):
        opened.append(await new_game(store, channel=100 + index, guild=guild))
        done = await new_game(store, channel=200 + index, guild=guild)
        await store.stop_open_game(done.id)
        ended.append(done)
    await store.close()
    execute_raw(
        database, "UPDATE games SET seats = '[{broken' WHERE id = :id", {"id": opened[2].id}
    )
    store = await Store.open(database)
    try:
        caplog.clear()
        mine = Shards(4, frozenset({0, 1}))
        rows, damaged = await store.open_games(mine)
        assert [g.id for g in rows] == [opened[0].id, opened[1].id]
        assert damaged == []
        assert [g.id for g in await store.unsettled_games(mine)] == [ended[0].id, ended[1].id]
        assert "cannot be read" not in caplog.text
        theirs = Shards(4, frozenset({2, 3}))
        rows, damaged = await store.open_games(theirs)
        assert [g.id for g in rows] == [opened[3].id]
        assert [d.id for d in damaged] == [opened[2].id]
        assert "cannot be read" in caplog.text
        everything, _ = await store.open_games()
        assert len(everything) == 3
    finally:
        await store.close()


async def test_a_settled_game_keeps_only_the_post_its_history_links_to(
    database: str | Path,
) -> None:
    """Delivery rows are bookkeeping for a game still owing posts: settling drops them but the
    closing notice's, which the channel's history links to (and which a restart still sees as
    delivered: the game is settled, nothing is posted again)."""
    store = await Store.open(database)
    try:
        game = await new_game(store)
        await store.stop_open_game(game.id)
        for number, key in enumerate(("lobby", "deal:1", "trick:1:1", "end"), start=1):
            await store.mark_delivered(game.id, key, Delivered(CHANNEL, 5_000 + number, key))
        await store.settle(game.id)
        assert await store.delivered(game.id) == {"end": Delivered(CHANNEL, 5_004, "end")}
        assert await store.unsettled_games() == []
        page = await store.reads.history(channel_id=CHANNEL)
        assert [(e.game_id, e.message_id) for e in page.entries] == [(game.id, 5_004)]
    finally:
        await store.close()


async def test_an_unreadable_row_is_left_out_and_can_be_stopped(database: str | Path) -> None:
    path = database
    store = await Store.open(path)
    good = await new_game(store)
    bad = await new_game(store, channel=OTHER_CHANNEL, host=7)
    await store.close()
    execute_raw(path, "UPDATE games SET seats = '[{broken' WHERE id = :id", {"id": bad.id})
    store = await Store.open(path)
    try:
        assert [g.id for g in await store.games_with_status("lobby")] == [good.id]
        rows, damaged = await store.open_games()
        assert [g.id for g in rows] == [good.id]
        assert [(d.id, d.channel_id, d.host_id) for d in damaged] == [(bad.id, OTHER_CHANNEL, 7)]
        assert await store.stop_open_game(bad.id) is True
        assert await store.stop_open_game(bad.id) is False  # not open any more
        assert (await store.open_games())[1] == []
        assert await store.open_game_in_channel(OTHER_CHANNEL) is None
    finally:
        await store.close()
