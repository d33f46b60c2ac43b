"""A click while another process holds the database locked: answered in time, nothing changed,
and the same click works once the lock is gone."""

from __future__ import annotations

import sqlite3
import time

import pytest
import simcord

from bot.store.sqlite_file import BUSY_TIMEOUT_SECONDS

from ..helpers import snapshot, start_game, world


async def test_a_click_on_a_locked_database_is_told_the_table_is_busy(
    env: simcord.Env, caplog: pytest.LogCaptureFixture
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=3, schedule="down")
    member = table.member_at(table.game.turn)
    assert member is not None
    await table.open_hand(member)
    before = snapshot(table)
    other = sqlite3.connect(env.bot.settings.db_path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # e.g. a backup tool, or a second bot on the file
        began = time.monotonic()
        refused = await table.act(member)
        took = time.monotonic() - began
    finally:
        other.close()
    assert took < 3  # inside Discord's deadline for answering
    assert took >= BUSY_TIMEOUT_SECONDS * 0.9  # it did wait for the lock first
    assert refused.ephemeral and refused.response is not None
    assert "busy" in refused.response.content and "nothing was changed" in refused.response.content
    assert snapshot(table) == before
    assert not [r for r in caplog.records if r.exc_info]  # no traceback for a busy database
    played = await table.act(member)
    assert played.acknowledged
    assert snapshot(table) != before
