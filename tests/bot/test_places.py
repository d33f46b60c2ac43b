"""A table's commands work where its players are (bot/places.py): in the thread a table plays
in, in an event table's thread, and in the channel that keeps a thread table's lobby. Each
command is typed in each place, and the test reads what the player reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import simcord

from bot.client import KachufulBot
from bot.config import Settings
from tests.bot.club.helpers import club, register, threads_of
from tests.bot.helpers import Table, start_game, world
from tests.bot.review.helpers import texts
from tests.pg import execute_raw

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends


async def said(member: Any, place: Any, command: str, **options: Any) -> str:
    """What the member reads of the bot's private answer to a command typed in ``place``."""
    result = await member.slash(place, command, **options)
    assert result.ephemeral and result.response is not None, command
    return texts(result.response) + "".join(f.content or "" for f in result.followups)


async def check_running(place: Any, seated: Any, outsider: Any) -> None:
    """The commands about the table in play, typed in ``place``, find it."""
    assert "scores so far (deal 1 of 2 in play)" in await said(seated, place, "kachuful score")
    assert "Your hand — deal 1 of 2" in await said(seated, place, "kachuful hand")
    assert "Rules in force at this table" in await said(seated, place, "kachuful rules")
    assert "already started" in await said(outsider, place, "kachuful join")
    assert "not seated at this table" in await said(outsider, place, "kachuful leave")
    assert "Only the host" in await said(seated, place, "kachuful stop")


async def check_finished(env: simcord.Env, place: Any, player: Any, game_id: int) -> None:
    """The commands about the last finished game, typed in ``place``, find it."""
    review = await player.slash(place, "kachuful review")
    assert f"Review of game #{game_id}" in texts(review.response)
    replay = await player.click(review.response, label="Replay")
    assert "Step 1 of" in texts(replay.response)
    exported = await player.slash(place, "kachuful export")
    assert [a.filename for a in exported.response.attachments] == [
        f"kachuful-game-{game_id}.json",
        f"kachuful-game-{game_id}-seeds.json",
    ]
    history = await player.slash(place, "kachuful history")
    assert f"**Game {game_id}**" in texts(history.response)
    practice = await said(player, place, "kachuful practice", game=game_id, level="random")
    assert "Practice · deal 1" in practice
    board = await player.slash(place, "kachuful leaderboard")
    assert player.name in texts(board.response)


async def test_a_thread_tables_commands_work_in_its_thread_and_in_its_channel(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    asha, bilal, _chen = members
    outsider = env.guild.add_member(env.create_user("dev"))
    table = await start_game(env, channel, members, max_hand=2, schedule="down", mode="thread")
    [thread] = channel.threads
    game_id = table.session.row.id
    for place in (thread, channel):
        await check_running(place, bilal, outsider)
    # A second table cannot open in the thread while its game is on.
    busy = await said(outsider, thread, "kachuful start")
    assert "already running" in busy and not threads_of(channel, 2)
    assert env.bot.tables.open.session_in(thread.id).row.id == game_id
    await Table(env, thread, members).play_to_end()
    await env.advance_time(60)
    for place in (thread, channel):
        await check_finished(env, place, bilal, game_id)
    # Nothing is open any more, here or there.
    for place in (thread, channel):
        assert "no Kachuful game" in await said(asha, place, "kachuful score")


async def test_stop_in_a_thread_tables_thread_stops_it(env: simcord.Env) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    table = await start_game(env, channel, members, max_hand=2, mode="thread")
    [thread] = channel.threads
    assert "You stopped the game" in await said(members[0], thread, "kachuful stop")
    assert table.session is None
    await env.advance_time(60)
    ended = [m for m in thread.history() if "stopped by" in (m.content or "")]
    assert len(ended) == 1


async def test_a_damaged_thread_table_is_closed_from_its_thread(
    env: simcord.Env, make_bot: Callable[[], KachufulBot], settings: Settings
) -> None:
    """A thread table whose stored record cannot be read after a restart: its thread's
    commands say so, and its host closes it there."""
    channel, members = world(env, "asha", "bilal", "chen")
    asha, bilal, _chen = members
    table = await start_game(env, channel, members, max_hand=2, mode="thread")
    [thread] = channel.threads
    execute_raw(
        settings.database,
        "UPDATE games SET record = '{not json' WHERE id = :id",
        {"id": table.session.row.id},
    )
    await env.restart_bot(make_bot())
    assert "could not be restored" in await said(bilal, thread, "kachuful hand")
    assert "could not be restored" in await said(bilal, thread, "kachuful start")
    assert "Only the host" in await said(bilal, thread, "kachuful stop")
    stopped = await asha.slash(thread, "kachuful stop")
    assert not stopped.ephemeral and "was closed by" in (stopped.response.content or "")
    assert "no Kachuful game" in await said(bilal, thread, "kachuful hand")


async def test_play_again_in_the_thread_opens_the_next_lobby_in_the_channel(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    asha, bilal, chen = members
    table = await start_game(env, channel, members, max_hand=1, mode="thread")
    [thread] = channel.threads
    old = table.session.row.id
    await Table(env, thread, members).play_to_end()
    await env.advance_time(60)
    final = Table(env, thread, members).last_public_with("Play again")
    clicked = await bilal.click(final, label="Play again")
    assert clicked.ephemeral and f"<#{channel.id}>" in (clicked.response.content or "")
    await env.advance_time(6)
    lobby = [m for m in channel.history() if "Rematch" in (m.content or "")]
    assert len(lobby) == 1 and lobby[0].embeds[0].title == "Kachuful — a table is open"
    assert bilal.mention in lobby[0].content and chen.mention in lobby[0].content
    session = env.bot.tables.open.session_in(channel.id)
    assert session.row.id != old and session.row.options.mode == "thread"
    assert session.row.host_id == asha.id and session.row.message_id == lobby[0].id
    await chen.click(lobby[0], label="Join")
    assert [s.user_id for s in session.row.seats] == [asha.id, chen.id]


async def test_an_event_tables_commands_work_in_its_thread(env: simcord.Env) -> None:
    _guild, channel, organiser, members = club(env, 3)
    outsider = env.guild.add_member(env.create_user("dev"))
    await organiser.slash(
        channel,
        "kachuful-event open",
        name="Cup",
        rounds=1,
        players=3,
        max_hand=2,
        schedule="down",
        level="heuristic",
    )
    await register(channel, members)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    [thread] = threads_of(channel, 1)
    table = Table(env, thread, members)
    game_id = table.session.row.id
    await check_running(thread, members[0], outsider)
    # The event itself is found from its tables' threads too.
    standings = await members[0].slash(thread, "kachuful-event standings")
    assert standings.ephemeral and standings.response.embeds[0].title == "🏆 Cup"
    # The event's channel holds no table of its own: its tables are found in their threads.
    assert "no Kachuful game" in await said(members[0], channel, "kachuful score")
    await table.play_to_end()
    await env.bot.club.settled_all()
    await check_finished(env, thread, members[0], game_id)
    assert "No game has finished here yet" in await said(members[0], channel, "kachuful review")
