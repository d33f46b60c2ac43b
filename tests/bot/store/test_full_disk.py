"""A full disk: SQLite really answers SQLITE_FULL ("database or disk is full") to the bot's
writes. Every click is answered in plain words and changes nothing, "Your hand" still shows
the hand, the log says so once for the whole incident, and play goes on once there is space.

The disk is filled without root: ``PRAGMA max_page_count`` keeps the database file from
growing by a single page (on each of the store's writing connections, and on the filler's),
and the pages the bot writes into are filled to the last byte by filler rows, so every write
that needs room there fails with SQLITE_FULL. (A write that fits in place, such as a row
rewritten at the same size, still succeeds, unlike on a real full disk, where the WAL needs
room for it too: the tests use writes that need room.)
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import discord
import pytest
import simcord

from bot.store.drivers import classify
from bot.store.failures import StoreBusy, StoreError, StoreUnavailable
from bot.store.store import Store
from bot.table import thinking
from bot.table.outcome import UNAVAILABLE_RETRY_SECONDS
from bot.table.publisher import MAX_BACKOFF
from kachuful_core.players import levels

from ..helpers import Table, buttons, enabled_actions, snapshot, start_game, world

UNLIMITED = 1_073_741_823  # SQLite's default max_page_count
FILLER_KEY = 999_999  # filler games (stopped, in no channel of the test) and hand rows


async def _limit_pages(store: Store, pages: int) -> None:
    for connection in (store._db, store._book):  # the writer and the bookkeeping connection
        await connection.exec_driver_sql(f"PRAGMA max_page_count = {pages}")


def _longest(raw: sqlite3.Connection, table: str, where: str, column: str, cap: int) -> int:
    """Grow the filler row's text to the longest (up to ``cap``) that still fits."""
    fits, fails = 0, cap + 1
    while fails - fits > 1:
        length = (fits + fails) // 2
        try:
            raw.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", ("x" * length,))
            fits = length
        except sqlite3.OperationalError as error:
            assert error.sqlite_errorcode == sqlite3.SQLITE_FULL, error
            fails = length
    raw.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", ("x" * fits,))
    return fits


def _fill(raw: sqlite3.Connection, table: str, key: str, insert: str, column: str) -> None:
    """Add filler rows (keys from FILLER_KEY on, after the bot's) to the table's last page
    until it has no byte left. Texts stay short of a page's share for one row (SQLite would
    put the rest on an overflow page of its own, which cannot be had)."""
    added: list[int] = []
    for number in range(FILLER_KEY, FILLER_KEY + 100):
        try:
            raw.execute(insert, (number,))
        except sqlite3.OperationalError as error:
            assert error.sqlite_errorcode == sqlite3.SQLITE_FULL, error
            break
        added.append(number)
        if _longest(raw, table, f"{key} = {number}", column, cap=400) < 400:
            return  # even 400 bytes more did not fit: the page is full
    # Not even an empty row fits: the last one takes the remaining bytes.
    if added:
        _longest(raw, table, f"{key} = {added[-1]}", column, cap=800)


@contextmanager
def _filler(path: Path) -> Iterator[sqlite3.Connection]:
    raw = sqlite3.connect(path, isolation_level=None, timeout=5)
    try:
        yield raw
    finally:
        raw.close()


# How a filler row is added to each table the bot writes into: (key column, INSERT, text).
FILLERS = {
    "games": (
        "id",
        "INSERT INTO games (id, guild_id, channel_id, host_id, status, rules, max_seats,"
        " seats, version, created_at, updated_at, settled)"
        " VALUES (?, 0, 0, 0, 'stopped', '', 3, '[]', 0, '', '', 1)",
        "rules",
    ),
    "hand_messages": (
        "user_id",
        "INSERT INTO hand_messages (game_id, user_id, token, opened_at)"
        f" VALUES ({FILLER_KEY}, ?, '', '')",
        "token",
    ),
    "posts": (
        "message_id",
        "INSERT INTO posts (game_id, key, channel_id, message_id, digest)"
        f" VALUES ({FILLER_KEY}, 'filler' || ?1, 0, ?1, '')",
        "digest",
    ),
}


async def fill_disk(store: Store, *tables: str) -> None:
    """From now on the database cannot grow, and the pages of ``tables`` (default: the games
    and the hand messages) are full: each move and each new hand message fails with
    SQLITE_FULL. (One page each: a test's database is small.)"""
    with _filler(store.path) as raw:
        (pages,) = raw.execute("PRAGMA page_count").fetchone()
        raw.execute(f"PRAGMA max_page_count = {pages}")
        for table in tables or ("games", "hand_messages"):
            key, insert, column = FILLERS[table]
            _fill(raw, table, key, insert, column)
        assert raw.execute("PRAGMA page_count").fetchone() == (pages,)
    await _limit_pages(store, pages)


async def free_space(store: Store) -> None:
    await _limit_pages(store, UNLIMITED)


def public_view(table: Table) -> list[tuple[Any, ...]]:
    """The public table as anyone in the channel sees it."""
    return [
        (
            message.id,
            message.content,
            [embed.to_dict() for embed in message.embeds],
            [(b.label, b.disabled, b.custom_id) for b in buttons(message)],
        )
        for message in table.public()
    ]


def incident_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_full_disk_is_told_plainly_changes_nothing_and_is_logged_once(
    env: simcord.Env, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, schedule="down")
    actor = table.member_at(table.game.turn)
    assert actor is not None
    watcher = next(m for m in members if m is not actor)  # has not opened a hand yet
    hand = await table.open_hand(actor)
    move = enabled_actions(hand)[0].custom_id
    store = env.bot.store
    await fill_disk(store)
    before, public = snapshot(table), public_view(table)
    stored = await store.load_game(table.session.row.id)
    caplog.clear()

    clicks = 0
    for _ in range(3):
        refused = await actor.click(hand, custom_id=move)
        clicks += 1
        assert refused.ephemeral and refused.response is not None
        text = refused.response.content
        assert "cannot save" in text and "nothing was changed" in text
        assert "went wrong" not in text
        assert refused.followups == []  # one answer, no second message

        shown = await watcher.click(table.last_public_with("Your hand"), label="Your hand")
        clicks += 1
        assert shown.ephemeral and shown.response is not None
        assert shown.response.embeds  # the hand itself
        assert shown.followups == []  # and no "Something went wrong" after it
    assert clicks == 6

    assert snapshot(table) == before  # the game in memory
    assert await store.load_game(table.session.row.id) == stored  # and on disk
    assert public_view(table) == public  # nothing posted or edited in the channel
    records = incident_records(caplog)
    assert len(records) == 1, [r.getMessage() for r in records]
    assert "disk is full" in records[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info]  # no traceback at all
    assert store.failures.failed_writes >= clicks  # every failed write was counted

    failed = store.failures.failed_writes
    await free_space(store)
    caplog.clear()
    played = await actor.click(hand, custom_id=move)  # the same button, untouched
    assert played.acknowledged and "cannot save" not in (played.response.content or "")
    assert snapshot(table) != before
    assert public_view(table) != public  # the move reached the channel
    assert [r.getMessage() for r in incident_records(caplog)] == [
        f"storage writable again after {failed} failed writes"
    ]


async def test_the_turn_clock_waits_out_a_full_disk_quietly_then_goes_on(
    env: simcord.Env, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player's click fails on the full disk, then their clock runs out: the computer's
    move for them is tried again every UNAVAILABLE_RETRY_SECONDS (thought out once, not at
    every try), silently, and made once there is space. Their old button is then out of date:
    the failed click is not said to have counted."""
    caplog.set_level(logging.INFO)
    # The takeover level thinks in process here: the heuristic stands in for the search's
    # seconds of thinking (the decision's count is what this test looks at).
    monkeypatch.setattr(
        thinking, "decide", lambda level, seed, view: levels.decide("heuristic", seed, view)
    )
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, schedule="down")
    seat = table.game.turn
    actor = table.member_at(seat)
    assert actor is not None
    hand = await table.open_hand(actor)
    move = enabled_actions(hand)[0].custom_id
    await table.open_hand(actor)  # a newer hand message: the first one keeps its buttons
    store, thinker = env.bot.store, env.bot.tables.thinker
    await fill_disk(store)
    before, public = snapshot(table), public_view(table)
    caplog.clear()
    refused = await actor.click(hand, custom_id=move)
    assert "cannot save" in refused.response.content
    await env.advance_time(90)  # the turn clock runs out: its move cannot be saved either
    await env.advance_time(120)  # two more minutes of a full disk
    assert snapshot(table) == before and public_view(table) == public
    # Tried again every UNAVAILABLE_RETRY_SECONDS, not in a loop, and logged once.
    assert 2 <= store.failures.failed_writes <= 3 + 120 / UNAVAILABLE_RETRY_SECONDS
    assert sum(thinker.levels.values()) == 1
    records = incident_records(caplog)
    assert len(records) == 1 and "disk is full" in records[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info]

    failed = store.failures.failed_writes
    await free_space(store)
    caplog.clear()
    await env.advance_time(UNAVAILABLE_RETRY_SECONDS)
    assert table.game.move_count == before[4] + 1  # the clock's move is made
    assert table.session.row.seats[seat].timeouts == 1
    assert public_view(table) != public
    assert [r.getMessage() for r in incident_records(caplog)] == [
        f"storage writable again after {failed} failed writes"
    ]
    late = await actor.click(table.message(hand.id, actor), custom_id=move)
    text = late.response.content + str([e.to_dict() for e in late.response.embeds])
    assert "out of date" in text and "counted" not in text


async def test_the_publisher_waits_out_a_full_disk_quietly_and_posts_nothing_twice(
    env: simcord.Env, caplog: pytest.LogCaptureFixture
) -> None:
    """A move committed just before the disk filled up: its messages are posted, but what was
    posted cannot be stored. The publisher keeps it in memory (never posting it again), tries
    again with growing pauses without a line per try, and stores it when there is space."""
    caplog.set_level(logging.INFO)
    channel, members = world(env, "asha", "bilal", "chen")
    # A long turn clock: the test waits minutes without anyone's time running out.
    managers = env.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = env.guild.add_member(env.create_user("mod"), roles=[managers])
    await mod.slash(channel, "kachuful-settings", turn_seconds=600)
    table = await start_game(env, channel, members, max_hand=3, schedule="down")
    for _ in range(2):  # the first two bids; the third starts the first trick: a new post
        member = table.member_at(table.game.turn)
        assert member is not None
        await table.act(member)
    actor = table.member_at(table.game.turn)
    assert actor is not None
    await table.open_hand(actor)
    store = env.bot.store
    game_id = table.session.row.id
    publisher = table.session.publisher
    await fill_disk(store, "posts")  # only the page of what was delivered is full
    caplog.clear()
    played = await table.act(actor)
    assert played.acknowledged
    posted = public_view(table)
    assert publisher.unstored  # posted, not stored
    assert set(await store.delivered(game_id)) != set(publisher.delivered)
    await env.advance_time(120)
    assert public_view(table) == posted  # nothing posted again or edited meanwhile
    records = incident_records(caplog)
    assert len(records) == 1 and "disk is full" in records[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info]

    failed = store.failures.failed_writes
    await free_space(store)
    caplog.clear()
    await env.advance_time(MAX_BACKOFF)
    assert not publisher.unstored
    assert await store.delivered(game_id) == publisher.delivered
    assert public_view(table) == posted
    assert [r.getMessage() for r in incident_records(caplog)] == [
        f"storage writable again after {failed} failed writes"
    ]


async def test_a_read_only_database_is_told_and_logged_the_same_way(
    env: simcord.Env, caplog: pytest.LogCaptureFixture
) -> None:
    """SQLite's own SQLITE_READONLY (``PRAGMA query_only`` on the store's connections, as
    after a file system remounted read-only): the same plain answer, one line, recovery."""
    caplog.set_level(logging.INFO)
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, schedule="down")
    actor = table.member_at(table.game.turn)
    assert actor is not None
    hand = await table.open_hand(actor)
    move = enabled_actions(hand)[0].custom_id
    store = env.bot.store
    before = snapshot(table)
    caplog.clear()
    await _pragma(store, "query_only = ON")
    for _ in range(3):
        refused = await actor.click(hand, custom_id=move)
        assert refused.response is not None and "cannot save" in refused.response.content
    # Commands that write: a new table elsewhere, a channel's settings.
    elsewhere = env.guild.create_text_channel("more-cards")
    opened = await actor.slash(elsewhere, "kachuful start")
    assert opened.ephemeral and "cannot save" in opened.response.content
    assert env.bot.tables.open.session_in(elsewhere.id) is None
    managers = env.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    mod = env.guild.add_member(env.create_user("mod"), roles=[managers])
    settings = await mod.slash(elsewhere, "kachuful-settings", turn_seconds=45)
    assert settings.ephemeral and "cannot save" in settings.response.content
    assert await store.channel_settings(elsewhere.id) == {}
    # Answered by the command tree's error handler, the one place for commands (SimCord
    # records what reaches it as the bot's errors: this one is expected).
    assert [type(getattr(e, "original", e)) for e in env.errors] == [StoreUnavailable]
    assert snapshot(table) == before
    records = incident_records(caplog)
    assert len(records) == 1 and "read-only" in records[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info]
    await _pragma(store, "query_only = OFF")
    played = await actor.click(hand, custom_id=move)
    assert played.acknowledged and snapshot(table) != before
    assert "storage writable again after 5 failed writes" in caplog.text


async def _pragma(store: Store, setting: str) -> None:
    for connection in (store._db, store._book):
        await connection.exec_driver_sql(f"PRAGMA {setting}")


def _sqlite_error(kind: type[sqlite3.Error], code: int | None) -> sqlite3.Error:
    error = kind("words of SQLite")
    if code is not None:
        error.sqlite_errorcode = code
    return error


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (_sqlite_error(sqlite3.OperationalError, sqlite3.SQLITE_BUSY), StoreBusy),
        (_sqlite_error(sqlite3.OperationalError, sqlite3.SQLITE_LOCKED), StoreBusy),
        (_sqlite_error(sqlite3.OperationalError, sqlite3.SQLITE_FULL), StoreUnavailable),
        (_sqlite_error(sqlite3.OperationalError, sqlite3.SQLITE_IOERR), StoreUnavailable),
        (_sqlite_error(sqlite3.OperationalError, sqlite3.SQLITE_IOERR_WRITE), StoreUnavailable),
        (_sqlite_error(sqlite3.OperationalError, sqlite3.SQLITE_IOERR_FSYNC), StoreUnavailable),
        (_sqlite_error(sqlite3.OperationalError, sqlite3.SQLITE_READONLY), StoreUnavailable),
        (_sqlite_error(sqlite3.OperationalError, sqlite3.SQLITE_CANTOPEN), StoreUnavailable),
        # A damaged file, a broken constraint, an error with no code: not expected, so they
        # keep their tracebacks.
        (_sqlite_error(sqlite3.DatabaseError, sqlite3.SQLITE_CORRUPT), None),
        (_sqlite_error(sqlite3.IntegrityError, sqlite3.SQLITE_CONSTRAINT), None),
        (_sqlite_error(sqlite3.OperationalError, None), None),
        (ValueError("not SQLite"), None),
    ],
)
def test_storage_failures_are_classified_by_sqlite_result_code(
    error: BaseException, expected: type[StoreError] | None
) -> None:
    found = classify(error)
    assert (type(found) if found is not None else None) is expected


async def test_a_storage_failure_escaping_a_click_is_told_once_without_a_traceback(
    env: simcord.Env, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The buttons' safety net (bot.ui.items._guarded), for a store write that some click
    path does not handle itself: plain words if the click has no answer yet, nothing more if
    it has one."""
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, schedule="down")
    play = env.bot.tables.play

    async def fails_first(*args: object, **kwargs: object) -> None:
        raise StoreUnavailable("the disk is full (database or disk is full)")

    monkeypatch.setattr(play, "show_hand", fails_first)
    told = await members[0].click(table.last_public_with("Your hand"), label="Your hand")
    assert told.ephemeral and "cannot save" in told.response.content
    assert told.followups == []

    async def answers_then_fails(
        interaction: discord.Interaction[Any], *args: object, **kwargs: object
    ) -> None:
        await interaction.response.send_message("the hand", ephemeral=True)
        raise StoreUnavailable("the disk is full (database or disk is full)")

    monkeypatch.setattr(play, "show_hand", answers_then_fails)
    shown = await members[1].click(table.last_public_with("Your hand"), label="Your hand")
    assert shown.response.content == "the hand" and shown.followups == []
    assert not [r for r in caplog.records if r.exc_info]
