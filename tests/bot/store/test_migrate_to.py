"""kachuful-bot migrate-to: a stopped bot's SQLite file copied into an empty PostgreSQL
database, checked table by table, and the bot carrying on from the copy; and a copy between
any two engines of the registry (PostgreSQL back into a file, a file into another)."""

from __future__ import annotations

import itertools
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main as bot_main
from bot.model import Seat, TableOptions
from bot.store.copy import migrate_to
from bot.store.failures import StoreError
from bot.store.reads import PERIODS, SCOPES, SORTS
from bot.store.store import Store
from bot.store.values import Delivered, ResultRow
from tests.engines import ENGINES, new_database
from tests.pg import execute_raw

GUILD, CHANNEL, OTHER = 1_100_000_000_000_000_001, 1_200_000_000_000_000_002, 77
ASHA, BILAL, CHEN = 900_000_000_000_000_001, 900_000_000_000_000_002, 900_000_000_000_000_003


async def a_used_database(path: str | Path) -> tuple[int, int]:
    """A bot's database (an SQLite file unless told) with a finished game (results, ratings,
    periods, posts), a running one (a hand message), channel settings and bot state;
    (finished id, running id)."""
    store = await Store.open(path)
    try:
        finished = await store.create_game(
            guild_id=GUILD,
            channel_id=CHANNEL,
            host_id=ASHA,
            options=TableOptions(),
            max_seats=4,
            seats=[Seat(user_id=ASHA, name="Asha"), Seat(user_id=BILAL, name="Bilal")],
        )
        finished.status, finished.version = "finished", 1
        await store.save_game(
            finished,
            results=[
                ResultRow(seat=0, user_id=ASHA, score=31, won=True, bids_exact=3, bids=4),
                ResultRow(seat=1, user_id=BILAL, score=12, won=False, bids_exact=1, bids=4),
            ],
        )
        await store.mark_delivered(finished.id, "final", Delivered(CHANNEL, 5_000_000_001, "d1"))
        # A second finished game in another channel: a player who never bid (no exact-bid
        # rate: NULL, which the engines sort differently unless told), and a computer seat.
        other = await store.create_game(
            guild_id=GUILD,
            channel_id=OTHER,
            host_id=CHEN,
            options=TableOptions(),
            max_seats=4,
            seats=[
                Seat(user_id=CHEN, name="Chen"),
                Seat(user_id=ASHA, name="Asha"),
                Seat(user_id=None, name="Ada"),
            ],
        )
        other.status, other.version = "finished", 1
        await store.save_game(
            other,
            results=[
                ResultRow(seat=0, user_id=CHEN, score=20, won=True, bids_exact=0, bids=0),
                ResultRow(seat=1, user_id=ASHA, score=20, won=True, bids_exact=0, bids=2),
                ResultRow(seat=2, user_id=None, score=5, won=False, bids_exact=1, bids=2),
            ],
        )
        running = await store.create_game(
            guild_id=GUILD,
            channel_id=CHANNEL,
            host_id=BILAL,
            options=TableOptions(),
            max_seats=3,
            seats=[Seat(user_id=BILAL, name="Bilal"), Seat(user_id=None, name="Ada")],
        )
        running.status, running.version, running.seed = "running", 1, "ab" * 32
        await store.save_game(running)
        await store.save_hand(running.id, BILAL, "token-1", datetime(2024, 5, 1, tzinfo=UTC))
        await store.set_channel_settings(
            guild_id=GUILD, channel_id=CHANNEL, settings={"turn_seconds": 45}, updated_by=ASHA
        )
        await store.set_bot_state("commands_digest", "abc")
    finally:
        await store.close()
    return finished.id, running.id


async def test_a_copy_is_checked_and_the_bot_carries_on_from_it(
    tmp_path: Path, pg_url: str
) -> None:
    path = tmp_path / "k.sqlite3"
    finished_id, running_id = await a_used_database(path)
    copied = {table.name: table.rows for table in await migrate_to(path, pg_url)}
    with sqlite3.connect(path) as raw:
        tables = [
            name
            for (name,) in raw.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        counts = {
            name: raw.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0] for name in tables
        }
    assert copied == counts  # every table, every row
    assert copied["games"] == 3 and copied["results"] == 5 and copied["period_totals"] > 0

    old = await Store.open(path)
    new = await Store.open(pg_url)
    try:
        for game_id in (finished_id, running_id):
            assert await new.load_game(game_id) == await old.load_game(game_id)
        # Every board reads the same on both engines, viewers' ranks included.
        for scope, period, sort, viewer in itertools.product(
            SCOPES, PERIODS, SORTS, (None, ASHA, BILAL, CHEN)
        ):
            for channel in (CHANNEL, OTHER):
                args: dict[str, Any] = {
                    "guild_id": GUILD,
                    "channel_id": channel,
                    "scope": scope,
                    "period": period,
                    "sort": sort,
                    "viewer_id": viewer,
                }
                board = await new.reads.leaderboard(**args)
                assert board == await old.reads.leaderboard(**args), args
        for user in (ASHA, BILAL, CHEN):
            assert await new.reads.player_stats(guild_id=GUILD, user_id=user) == (
                await old.reads.player_stats(guild_id=GUILD, user_id=user)
            )
        assert await new.reads.history(channel_id=CHANNEL) == (
            await old.reads.history(channel_id=CHANNEL)
        )
        assert await new.delivered(finished_id) == await old.delivered(finished_id)
        assert (await new.open_hands(running_id)).keys() == {BILAL}
        assert await new.channel_settings(CHANNEL) == {"turn_seconds": 45}
        assert await new.bot_state("commands_digest") == "abc"
        # The bot carries on: the running game takes its next move, and a new game gets a
        # fresh id (the identity sequence was moved past the copied ids).
        running = await new.load_game(running_id)
        assert running is not None
        running.version += 1
        await new.save_game(running)
        fresh = await new.create_game(
            guild_id=GUILD,
            channel_id=OTHER,
            host_id=ASHA,
            options=TableOptions(),
            max_seats=3,
            seats=[Seat(user_id=ASHA, name="Asha")],
        )
        assert fresh.id == 4  # after the three copied games
    finally:
        await old.close()
        await new.close()


async def test_a_database_that_is_not_empty_is_refused_untouched(
    tmp_path: Path, pg_url: str
) -> None:
    path = tmp_path / "k.sqlite3"
    await a_used_database(path)
    execute_raw(pg_url, "CREATE TABLE notes (line TEXT)")
    with pytest.raises(StoreError, match=r"is not empty \(1 tables: notes\).*wrote nothing"):
        await migrate_to(path, pg_url)
    tables = execute_raw(
        pg_url,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()",
    )
    assert tables == [("notes",)]
    # A second copy into a database already copied to is refused too.
    execute_raw(pg_url, "DROP TABLE notes")
    await migrate_to(path, pg_url)
    with pytest.raises(StoreError, match="is not empty"):
        await migrate_to(path, pg_url)


def test_the_command_line(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    path = tmp_path / "k.sqlite3"
    asyncio.run(a_used_database(path))
    monkeypatch.delenv("KACHUFUL_DB_PATH", raising=False)
    monkeypatch.chdir(tmp_path)
    for argv, status, expected in (
        (["migrate-to", "postgresql://bot:s3cret@host:port/db", "--from", str(path)], 2, "port"),
        (["migrate-to", pg_url, "--from", str(tmp_path / "none.sqlite3")], 2, "no SQLite"),
        (["migrate-to", pg_url, "--from", str(path)], 0, "set KACHUFUL_DATABASE_URL"),
    ):
        monkeypatch.setattr("sys.argv", ["kachuful-bot", *argv])
        with pytest.raises(SystemExit) as ended:
            bot_main()
        out, err = capsys.readouterr()
        assert ended.value.code == status, (argv, out, err)
        assert expected in (err if status else out)
        assert "s3cret" not in out + err
        if status:
            assert err.count("\n") == 1 and err.startswith("kachuful-bot: ")


async def test_a_copy_whose_digest_differs_is_rolled_back(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.store import copy

    path = tmp_path / "k.sqlite3"
    await a_used_database(path)
    real = copy.target_fold

    def one_row_off(conn: object, table: str, columns: list[str]) -> tuple[int, int]:
        count, total = real(conn, table, columns)  # type: ignore[arg-type]
        return (count, total ^ 1) if table == "results" else (count, total)

    monkeypatch.setattr(copy, "target_fold", one_row_off)
    with pytest.raises(StoreError, match=r"table results: .* digests differ; nothing was copied"):
        await migrate_to(path, pg_url)
    assert execute_raw(pg_url, "SELECT COUNT(*) FROM games") == [(0,)]
    assert execute_raw(pg_url, "SELECT COUNT(*) FROM results") == [(0,)]


# Every ordered pair of two of the tests' engines but SQLite to PostgreSQL (the test above),
# and a file into another file.
PAIRS = [
    (source, target)
    for source, target in itertools.product(ENGINES, ENGINES)
    if source != target and (source, target) != ("sqlite", "postgresql")
] + [("sqlite", "sqlite")]


@pytest.mark.parametrize(("source_engine", "target_engine"), PAIRS)
async def test_a_copy_between_any_two_engines(
    source_engine: str, target_engine: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    source = new_database(request, source_engine)
    target: str | Path = tmp_path / "copy" / "k.sqlite3"
    if source_engine != target_engine:
        target = new_database(request, target_engine)
    finished_id, running_id = await a_used_database(source)
    copied = {table.name: table.rows for table in await migrate_to(source, target)}
    assert copied["games"] == 3 and copied["results"] == 5 and copied["ratings"] == 3
    old = await Store.open(source)
    new = await Store.open(target)
    try:
        for game_id in (finished_id, running_id):
            assert await new.load_game(game_id) == await old.load_game(game_id)
        for sort, viewer in itertools.product(SORTS, (None, CHEN)):
            args: dict[str, Any] = {"guild_id": GUILD, "channel_id": CHANNEL, "sort": sort}
            board = await new.reads.leaderboard(**args, viewer_id=viewer)
            assert board == await old.reads.leaderboard(**args, viewer_id=viewer)
        assert await new.reads.player_stats(guild_id=GUILD, user_id=ASHA) == (
            await old.reads.player_stats(guild_id=GUILD, user_id=ASHA)
        )
        assert await new.bot_state("commands_digest") == "abc"
        fresh = await new.create_game(
            guild_id=GUILD,
            channel_id=OTHER + 1,
            host_id=ASHA,
            options=TableOptions(),
            max_seats=3,
            seats=[Seat(user_id=ASHA, name="Asha")],
        )
        assert fresh.id == 4  # after the three copied games
    finally:
        await old.close()
        await new.close()
    with pytest.raises(StoreError, match="is not empty"):
        await migrate_to(source, target)
