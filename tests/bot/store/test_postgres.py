"""What PostgreSQL adds to the store's guarantees: several processes on one database (the
version check and the finish's once-only guarantee hold across them), row locks that fail
fast, reads that never hold up a move, 64-bit Discord ids, and clear one-line errors. The
store's whole suite runs on both engines besides (tests/bot/store/test_store.py and others)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest

from bot.config import SettingsError, load_settings
from bot.model import Seat, Table, TableOptions
from bot.store.drivers import DATABASE_ERRORS
from bot.store.failures import StaleWrite, StoreBusy, StoreError, StoreUnavailable
from bot.store.migrate import newest
from bot.store.postgres import LOCK_TIMEOUT_MS, MIGRATION_LOCK, redacted
from bot.store.store import Store
from bot.store.values import Delivered, ResultRow
from tests import pg
from tests.pg import execute_raw

BIG = 2**63 - 1  # the largest Discord snowflake the API could send
GUILD, CHANNEL = 1_100_000_000_000_000_001, 1_200_000_000_000_000_002


@pytest.fixture
async def two(pg_url: str) -> AsyncIterator[tuple[Store, Store]]:
    """Two stores on one database, as two bot processes (a misconfigured pair on one shard)."""
    first, second = await asyncio.gather(Store.open(pg_url), Store.open(pg_url))
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()


async def new_game(store: Store, channel: int = CHANNEL) -> Table:
    return await store.create_game(
        guild_id=GUILD,
        channel_id=channel,
        host_id=BIG,
        options=TableOptions(),
        max_seats=4,
        seats=[Seat(user_id=BIG, name="Asha"), Seat(user_id=BIG - 1, name="Bilal")],
    )


async def test_opening_at_once_migrates_once(two: tuple[Store, Store], pg_url: str) -> None:
    first, second = two
    latest = newest()
    assert await first.schema_version() == await second.schema_version() == latest
    rows = execute_raw(pg_url, "SELECT COUNT(*), COUNT(DISTINCT version) FROM schema_version")
    assert rows == [(latest, latest)]
    assert execute_raw(pg_url, "SELECT version_num FROM alembic_version") == [(f"{latest:04d}",)]


async def test_a_process_waits_for_a_long_migration_beside_it(pg_url: str) -> None:
    """A migration that takes longer than a click may wait for a row lock (1.5 s), as a new
    database's does on a busy machine: the process starting beside it waits, then opens."""
    with psycopg.connect(pg_url, autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK,))
        opening = asyncio.create_task(Store.open(pg_url))
        await asyncio.sleep(LOCK_TIMEOUT_MS / 1000 + 1.0)
        assert not opening.done()  # still waiting, not refused as "locked"
        other.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))
        store = await asyncio.wait_for(opening, 30)
    try:
        assert await store.schema_version() == newest()
        # A click's statement still gives up after the short wait.
        shown = await store._db.exec_driver_sql("SHOW lock_timeout")
        assert shown.scalar() == f"{LOCK_TIMEOUT_MS}ms"
    finally:
        await store.close()


async def test_two_processes_never_both_apply_a_move(two: tuple[Store, Store]) -> None:
    first, second = two
    game = await new_game(first)
    mine, theirs = await first.load_game(game.id), await second.load_game(game.id)
    assert mine is not None and theirs is not None
    mine.version = theirs.version = 1
    mine.seats.append(Seat(user_id=3, name="Chen"))
    theirs.seats.append(Seat(user_id=4, name="Dev"))
    outcomes = await asyncio.gather(
        first.save_game(mine), second.save_game(theirs), return_exceptions=True
    )
    assert sorted(type(o).__name__ for o in outcomes) == ["NoneType", "StaleWrite"]
    stored = await first.load_game(game.id)
    assert stored is not None and stored.version == 1 and len(stored.seats) == 3


async def test_a_game_finished_by_two_processes_counts_once(two: tuple[Store, Store]) -> None:
    first, second = two
    game = await new_game(first)
    results = [
        ResultRow(seat=0, user_id=BIG, score=30, won=True, bids_exact=2, bids=3),
        ResultRow(seat=1, user_id=BIG - 1, score=12, won=False, bids_exact=1, bids=3),
    ]
    copies = [await store.load_game(game.id) for store in two]
    for copy in copies:
        assert copy is not None
        copy.status, copy.version = "finished", 1
    outcomes = await asyncio.gather(
        *(store.save_game(copy, results=results) for store, copy in zip(two, copies, strict=True)),  # type: ignore[arg-type]
        return_exceptions=True,
    )
    assert sum(isinstance(o, StaleWrite) for o in outcomes) == 1
    assert sum(o is None for o in outcomes) == 1
    board = await second.reads.leaderboard(guild_id=GUILD, channel_id=CHANNEL, sort="wins")
    assert [(row.user_id, row.games, row.wins) for row in board.rows] == [
        (BIG, 1, 1),
        (BIG - 1, 1, 0),
    ]
    assert len(await first.results_for_game(game.id)) == 2


async def test_a_row_locked_elsewhere_fails_fast_and_writes_nothing(
    two: tuple[Store, Store], pg_url: str
) -> None:
    store, _ = two
    game = await new_game(store)
    game.version = 1
    with psycopg.connect(pg_url) as other:  # another program holds the game's row
        other.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (game.id,))
        started = time.monotonic()
        with pytest.raises(StoreBusy):
            await store.save_game(game)
        assert time.monotonic() - started < 2.9  # inside Discord's 3 s to answer a click
        other.rollback()
    stored = await store.load_game(game.id)
    assert stored is not None and stored.version == 0
    await store.save_game(game)  # free again
    stored = await store.load_game(game.id)
    assert stored is not None and stored.version == 1


async def test_a_move_commits_while_a_long_read_runs(two: tuple[Store, Store]) -> None:
    store, _ = two
    game = await new_game(store)
    game.version = 1
    reading = asyncio.ensure_future(store.reads._one("SELECT pg_sleep(1.5)"))
    await asyncio.sleep(0.1)
    started = time.monotonic()
    await store.save_game(game)
    assert time.monotonic() - started < 0.5  # the move did not wait for the read
    assert not reading.done()
    await reading


async def test_the_reader_cannot_write(two: tuple[Store, Store]) -> None:
    store, _ = two
    await new_game(store)
    with pytest.raises(DATABASE_ERRORS) as refused:
        await store.reads._all("DELETE FROM games")
    # The driver's error, as SQLAlchemy wraps it or as the driver raised it (direct.py).
    error = getattr(refused.value, "orig", refused.value)
    assert isinstance(error, psycopg.errors.ReadOnlySqlTransaction)


async def test_health_check_writes_nothing(two: tuple[Store, Store], pg_url: str) -> None:
    store, _ = two
    await store.check_writable()
    assert execute_raw(pg_url, "SELECT COUNT(*) FROM games") == [(0,)]


async def test_a_server_that_cannot_be_reached_is_one_line_without_the_password(
    tmp_path: Path,
) -> None:
    url = f"postgresql://kachuful:s3cret@/nowhere?host={tmp_path}"
    with pytest.raises(StoreError) as refused:
        await Store.open(url)
    message = str(refused.value)
    assert "s3cret" not in message and "\n" not in message
    assert message.startswith("cannot connect to postgresql://kachuful:***@/nowhere")


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://kachuful:s3cret@host:notaport/db",
        "postgresql://kachuful:s3cret@host/",
        "postgresql://kachuful:s3cret@host/db?bogus_option=1",
        "mysql://kachuful:s3cret@host/db",
    ],
)
def test_a_malformed_database_url_is_a_settings_error_without_the_password(url: str) -> None:
    with pytest.raises(SettingsError) as refused:
        load_settings(
            env_file=None,
            discord_token="MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789",
            database_url=url,
        )
    message = str(refused.value)
    assert message.startswith("KACHUFUL_DATABASE_URL: ") and "s3cret" not in message


async def test_a_server_older_than_14_is_refused(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.store import postgres

    monkeypatch.setattr(postgres, "MIN_SERVER_VERSION", 10**7)  # this server is "too old"
    with pytest.raises(StoreError, match=r"is PostgreSQL \d+\.\d+; the bot needs 14 or newer"):
        await Store.open(pg_url)


def test_a_url_shown_never_holds_its_password() -> None:
    assert redacted("postgresql://bot:s3cret@db:5432/k?sslmode=require") == (
        "postgresql://bot:***@db:5432/k?sslmode=require"
    )
    assert redacted("postgresql://db/k?user=bot&password=s3cret&sslmode=require") == (
        "postgresql://db/k?user=bot&password=***&sslmode=require"
    )
    assert redacted("postgresql://bot@db/k") == "postgresql://bot@db/k"


def test_the_database_url_chooses_the_backend(tmp_path: Path) -> None:
    token = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
    plain = load_settings(env_file=None, discord_token=token, db_path=tmp_path / "k.sqlite3")
    assert plain.database == tmp_path / "k.sqlite3"
    url = "postgresql://bot:pw@db.example/kachuful"
    on_pg = load_settings(env_file=None, discord_token=token, database_url=url)
    assert on_pg.database == url
    assert "pw" not in repr(on_pg)


def test_without_postgresql_the_tests_fail_saying_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pg, "find_binaries", lambda: None)
    with pytest.raises(pytest.fail.Exception, match=r"apt-get install postgresql"):
        pg.start_cluster()


async def test_connections_the_server_dropped_are_made_again(
    two: tuple[Store, Store], pg_url: str
) -> None:
    """A server restart (here: every connection of the bot ended by the server) fails the
    statement that finds its connection gone (each of the three connections once: the store
    answers "not saved"), and the next ones work, the kept rankings made again."""
    store, _ = two
    game = await new_game(store)
    await store.reads.leaderboard(guild_id=GUILD, channel_id=CHANNEL, period="7d")
    execute_raw(
        pg_url,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    game.version = 1
    with pytest.raises(StoreUnavailable):
        await store.save_game(game)
    await store.save_game(game)  # reconnected; the failed move had written nothing
    stored = await store.load_game(game.id)
    assert stored is not None and stored.version == 1
    with pytest.raises(DATABASE_ERRORS) as dropped:
        await store.reads.leaderboard(guild_id=GUILD, channel_id=CHANNEL)
    assert isinstance(getattr(dropped.value, "orig", dropped.value), psycopg.OperationalError)
    page = await store.reads.leaderboard(guild_id=GUILD, channel_id=CHANNEL, period="7d")
    assert page.players == 0
    with pytest.raises(StoreUnavailable):  # the bookkeeping's own connection, the same way
        await store.mark_delivered(game.id, "lobby", Delivered(CHANNEL, 1, "x"))
    await store.mark_delivered(game.id, "lobby", Delivered(CHANNEL, 1, "x"))
    assert (await store.delivered(game.id)).keys() == {"lobby"}


async def test_two_processes_moving_one_servers_windows_count_each_day_once(
    two: tuple[Store, Store],
) -> None:
    """Both processes finish games and move the 7- and 30-day windows of one server on at
    the same moments: the kept totals stay the sum of their windows' day rows."""
    from datetime import UTC, datetime, timedelta

    from .test_results_store import fresh_period_sums

    first, second = two
    start = datetime(2024, 1, 1, 12, tzinfo=UTC)
    for day in range(0, 40, 3):
        now = start + timedelta(days=day)
        for store in two:
            store._clock = lambda now=now: now  # type: ignore[misc]
        games = [await new_game(store, channel=CHANNEL + i) for i, store in enumerate(two)]
        for game in games:
            game.status, game.version = "finished", 1
        results = [
            ResultRow(seat=0, user_id=BIG, score=30 + day, won=True, bids_exact=2, bids=3),
            ResultRow(seat=1, user_id=BIG - 1, score=12, won=False, bids_exact=1, bids=3),
        ]
        await asyncio.gather(
            *(
                store.save_game(game, results=results)
                for store, game in zip(two, games, strict=True)
            ),
            *(store.expire_periods(GUILD, now.date().isoformat()) for store in two),
        )
        kept, fresh = await fresh_period_sums(first)
        assert kept == fresh, day
    assert (await second.reads.player_stats(guild_id=GUILD, user_id=BIG)).games == 28  # type: ignore[union-attr]


async def test_a_batch_of_moves_reports_each_one(two: tuple[Store, Store], pg_url: str) -> None:
    """The group commit's UPDATEs go in one transaction; each one's row count comes back (a
    stale one changed nothing and fails alone)."""
    store, _ = two
    games = [await new_game(store, channel=CHANNEL + i) for i in range(3)]
    execute_raw(
        pg_url,
        "UPDATE games SET version = version + 1 WHERE id IN (:a, :c)",
        {"a": games[0].id, "c": games[2].id},
    )
    # Through the store: moves of three tables handed in together, the middle one stale.
    versions = (2, 7, 2)  # based on 1, 6 and 1: the database holds 1, 0 and 1
    for game, version in zip(games, versions, strict=True):
        game.version = version
    outcomes = await asyncio.gather(*(store.save_game(g) for g in games), return_exceptions=True)
    assert [type(o).__name__ for o in outcomes] == ["NoneType", "StaleWrite", "NoneType"]
    stored = [await store.load_game(g.id) for g in games]
    assert [g.version if g else None for g in stored] == [2, 0, 2]
