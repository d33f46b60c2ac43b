"""The store under pressure: durable commits, a database locked by another process, and a
clean close."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.model import Seat, Table, TableOptions
from bot.store.failures import StoreBusy, StoreError
from bot.store.sqlite_file import BUSY_TIMEOUT_SECONDS
from bot.store.store import Store
from bot.store.values import ResultRow


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(tmp_path / "k.sqlite3")
    try:
        yield opened
    finally:
        await opened.close()


async def _lobby(store: Store, channel: int = 20) -> Table:
    return await store.create_game(
        guild_id=10,
        channel_id=channel,
        host_id=1,
        options=TableOptions(),
        max_seats=3,
        seats=[Seat(user_id=1, name="Asha")],
    )


def _games(path: Path) -> list[tuple[int, str, int]]:
    with sqlite3.connect(path) as raw:
        return raw.execute("SELECT id, status, version FROM games ORDER BY id").fetchall()


async def test_commits_are_durable_wal_with_synchronous_full(store: Store) -> None:
    assert await store.pragma("journal_mode") == "wal"
    assert await store.pragma("synchronous") == 2  # FULL: fsync at every commit
    assert await store.pragma("busy_timeout") == int(BUSY_TIMEOUT_SECONDS * 1000)
    assert BUSY_TIMEOUT_SECONDS <= 2  # well inside Discord's 3 s to answer a click


@pytest.mark.parametrize("lock", ["BEGIN IMMEDIATE", "BEGIN EXCLUSIVE"])
async def test_a_locked_database_fails_fast_writes_nothing_then_recovers(
    store: Store, caplog: pytest.LogCaptureFixture, lock: str
) -> None:
    game = await _lobby(store)
    other = sqlite3.connect(store.path, isolation_level=None)
    try:
        other.execute(lock)
        game.status = "running"
        game.version = 1
        result = ResultRow(seat=0, user_id=1, score=10, won=True, bids_exact=1, bids=1)
        writes = [
            lambda: store.save_game(game),  # a move: one autocommitted UPDATE
            lambda: store.save_game(game, results=[result]),  # BEGIN IMMEDIATE ... COMMIT
            lambda: _lobby(store, channel=21),
        ]
        # Each write waits out the busy timeout: one kind of lock is enough for the others.
        for write in writes if lock == "BEGIN IMMEDIATE" else writes[:1]:
            began = time.monotonic()
            with pytest.raises(StoreBusy):
                await write()
            assert time.monotonic() - began < BUSY_TIMEOUT_SECONDS + 0.5
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert _games(store.path) == [(game.id, "lobby", 0)]  # nothing of any write was committed
    assert not [r for r in caplog.records if r.exc_info]  # and no traceback was logged
    # The lock has gone: the same write now succeeds, and the connection is not stuck in a
    # transaction left over from a failed one.
    await store.save_game(game)
    assert _games(store.path) == [(game.id, "running", 1)]
    assert isinstance(StoreBusy("x"), StoreError)


async def test_reads_go_on_while_another_process_writes(store: Store) -> None:
    game = await _lobby(store)
    other = sqlite3.connect(store.path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        loaded = await store.load_game(game.id)  # WAL: readers are never blocked by a writer
        assert loaded is not None and loaded.id == game.id
    finally:
        other.close()


async def test_opening_a_locked_database_is_one_clean_error(tmp_path: Path) -> None:
    path = tmp_path / "k.sqlite3"
    await (await Store.open(path)).close()
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("PRAGMA journal_mode = DELETE")
        other.execute("BEGIN EXCLUSIVE")
        began = time.monotonic()
        with pytest.raises(StoreError, match="locked"):
            await Store.open(path)
        assert time.monotonic() - began < 2 * BUSY_TIMEOUT_SECONDS + 1
    finally:
        other.close()


async def test_close_checkpoints_the_wal(tmp_path: Path) -> None:
    path = tmp_path / "k.sqlite3"
    store = await Store.open(path)
    # A reader from another connection keeps SQLite from checkpointing on its own at close.
    reader = sqlite3.connect(path)
    try:
        for channel in range(30):
            await _lobby(store, channel=channel)
        wal = Path(f"{path}-wal")
        assert wal.stat().st_size > 0
        await store.close()
        await store.close()  # a second close (bot.close after a signal) is harmless
        assert not wal.exists() or wal.stat().st_size == 0
    finally:
        reader.close()
    with sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True) as raw:
        # Everything is in the database file itself.
        assert raw.execute("SELECT COUNT(*) FROM games").fetchone() == (30,)


async def test_check_writable_for_the_health_check(store: Store, tmp_path: Path) -> None:
    await store.check_writable()
    other = sqlite3.connect(store.path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreBusy):
            await store.check_writable()
    finally:
        other.close()
    await store.check_writable()
