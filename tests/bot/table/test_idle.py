"""Abandoned tables: a game paused because everyone is away closes itself after
KACHUFUL_IDLE_HOURS (default 24), like /kachuful stop; "I'm back" before then keeps it, and a
restart neither resets nor forgets the wait."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import discord
import pytest
import simcord

from bot.client import KachufulBot
from bot.config import Settings
from tests.pg import execute_raw

from ..helpers import Table, buttons, start_game, world

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends

HOUR = 3600
IDLE = 24 * HOUR  # the default of KACHUFUL_IDLE_HOURS
CLOSED = "away for too long, so the game was closed"


async def _abandoned_table(env: simcord.Env) -> tuple[Table, simcord.MemberActor]:
    """One person and two computers; the person lets the clock run out until the game pauses."""
    channel, members = world(env, "asha")
    table = await start_game(env, channel, members, computers=2, max_hand=4, schedule="down")
    await _run_out_the_clock(env, table, members[0])
    return table, members[0]


async def _run_out_the_clock(env: simcord.Env, table: Table, member: simcord.MemberActor) -> None:
    seat = table.session.row.seat_of(member.id)
    while not table.session.row.seats[seat].away:
        assert table.game.turn == seat  # computers act at once; the clock runs for the person
        await env.advance_time(90)
    assert table.session.row.status == "running"


def _paused_notice(table: Table) -> discord.Message:
    """The latest public message with an "I'm back" button that says the game is paused."""
    return next(
        m
        for m in reversed(table.public())
        if "Nobody is playing" in (m.content or "")
        and any(b.label.startswith("I'm back") for b in buttons(m))
    )


def _labels(table: Table) -> set[str]:
    return {b.label.split(" (")[0] for m in table.public() for b in buttons(m)}


def _closed_notices(table: Table) -> list[str]:
    return [m.content or "" for m in table.public() if CLOSED in (m.content or "")]


async def _assert_closed_like_stop(env: simcord.Env, table: Table, game_id: int) -> None:
    assert table.session is None  # forgotten: no session, no channel entry
    [text] = _closed_notices(table)
    assert "does not count for the leaderboard" in text and "/kachuful start" in text
    assert table.public()[-1].content == text  # the last word at the table
    stored = await env.bot.store.load_game(game_id)
    assert stored is not None and stored.status == "stopped"
    assert await env.bot.store.results_for_game(game_id) == []
    asha = next(iter(table.members.values()))
    board = await asha.slash(table.channel, "kachuful leaderboard")
    assert "No finished games" in (board.response.embeds[0].description or "")
    # Nothing is left to click at the closed table, and asking for a hand says so.
    assert not {"I'm back", "Your hand"} & _labels(table)
    late = await asha.slash(table.channel, "kachuful hand")
    assert late.response.ephemeral and "no Kachuful game in this channel" in late.response.content
    # The channel is free for a new game.
    again = await asha.slash(table.channel, "kachuful start")
    assert not again.response.ephemeral
    assert env.bot.tables.open.session_in(table.channel.id).row.id != game_id


async def test_a_paused_table_is_closed_after_the_idle_time(env: simcord.Env) -> None:
    table, _ = await _abandoned_table(env)
    game_id = table.session.row.id
    notice = _paused_notice(table)
    assert "closes after 24 hours" in (notice.content or "")
    moves, posts = table.game.move_count, len(table.public())

    await env.advance_time(IDLE - 60)
    assert table.session is not None and table.session.row.status == "running"
    assert table.game.move_count == moves and len(table.public()) == posts  # quiet while paused

    await env.advance_time(61)
    await _assert_closed_like_stop(env, table, game_id)


async def test_im_back_before_the_idle_time_keeps_the_table(env: simcord.Env) -> None:
    table, asha = await _abandoned_table(env)
    game_id = table.session.row.id
    await env.advance_time(IDLE - HOUR)
    back = await asha.click(_paused_notice(table), label="I'm back (asha)")
    assert back.response.ephemeral
    seat = table.session.row.seat_of(asha.id)
    assert not table.session.row.seats[seat].away
    # The table sees it: the newest message no longer says she is away, nor that it is paused.
    live = table.last_public_with("Your hand")
    assert "is away" not in (live.content or "") and "Nobody is playing" not in (live.content or "")
    assert "I'm back" not in _labels(table)

    # She dozes off again: paused anew, and the wait starts again from there. The first
    # pause's deadline (an hour after "I'm back") passes without closing anything.
    await _run_out_the_clock(env, table, asha)
    await env.advance_time(IDLE - 60)
    assert table.session is not None and table.session.row.status == "running"
    assert _closed_notices(table) == []
    await env.advance_time(61)
    await _assert_closed_like_stop(env, table, game_id)


async def test_the_idle_time_survives_a_restart(
    env: simcord.Env, make_bot: Callable[[], KachufulBot]
) -> None:
    table, _ = await _abandoned_table(env)
    game_id = table.session.row.id
    await env.advance_time(20 * HOUR)

    posts = [(m.id, m.content) for m in table.public()]
    await env.restart_bot(make_bot())
    # Nothing is posted again: the newest message still says that the game is paused.
    assert [(m.id, m.content) for m in table.public()] == posts
    assert _paused_notice(table).id == posts[-1][0]
    # Counted from the stored pause, not from the restart: 4 more hours, not 24.
    await env.advance_time(4 * HOUR - 60)
    assert table.session is not None and table.session.row.status == "running"
    await env.advance_time(61)
    await _assert_closed_like_stop(env, table, game_id)


async def test_a_table_whose_idle_time_ran_out_while_the_bot_was_down_closes_at_start(
    env: simcord.Env, make_bot: Callable[[], KachufulBot], settings: Settings
) -> None:
    table, _ = await _abandoned_table(env)
    game_id = table.session.row.id
    posts = len(table.public())
    # The bot was down for a day: the stored change that paused the table is 25 hours old.
    stored = await env.bot.store.load_game(game_id)
    assert stored is not None
    long_ago = (stored.updated_at - timedelta(hours=25)).isoformat()
    execute_raw(
        settings.database,
        "UPDATE games SET updated_at = :at WHERE id = :id",
        {"at": long_ago, "id": game_id},
    )

    await env.restart_bot(make_bot())
    # Closed at once, without posting the table again first.
    assert [m.content for m in table.public()[posts:]] == _closed_notices(table)
    await _assert_closed_like_stop(env, table, game_id)


async def test_the_idle_time_is_a_setting(settings: Settings) -> None:
    short = settings.model_copy(
        update={"idle_hours": 1.5, "db_path": settings.db_path.with_name("short.sqlite3")}
    )
    bot = KachufulBot(short, hand_delay=0.0)  # a watcher's pause would move the clock
    try:
        async with simcord.run(bot) as env:
            table, _ = await _abandoned_table(env)
            assert "closes after 1.5 hours" in (_paused_notice(table).content or "")
            await env.advance_time(90 * 60 - 60)
            assert table.session is not None
            await env.advance_time(61)
            assert table.session is None
            assert CLOSED in (table.public()[-1].content or "")
    finally:
        await bot.store.close()
