"""An event survives the bot dying at any step (docs/events.md#crashes): after the restart
nothing is lost or doubled, no thread or table opened twice, no round seated twice, the
standings counted once.

The bot "dies" at a step by having that step cancel the conductor's pass (as a killed process
would stop there), then SimCord restarts it on the same database."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
import simcord

from bot.client import KachufulBot
from bot.store.club import Club
from tests.bot.helpers import Table

from .helpers import club, event_message, field, play_round, register, threads_of

pytestmark = pytest.mark.both_backends


def dies_once(original: Callable[..., Any], *, after: bool, when: Callable[..., bool]) -> Any:
    """``original``, but the first call that ``when`` picks kills the pass: before the call
    does anything, or ``after`` it wrote."""
    state = {"died": False}

    async def patched(*args: Any, **kwargs: Any) -> Any:
        if state["died"] or not when(*args, **kwargs):
            return await original(*args, **kwargs)
        state["died"] = True
        if after:
            await original(*args, **kwargs)
        raise asyncio.CancelledError

    return patched


async def games_in(env: simcord.Env, thread_id: int) -> int:
    rows = await env.bot.store.games_with_status("lobby", "running", "finished", "stopped")
    return len([row for row in rows if row.channel_id == thread_id])


async def started_event(env, players: int, **options):
    _guild, channel, organiser, members = club(env, players)
    options = {
        "name": "Cup",
        "rounds": 2,
        "players": 3,
        "max_hand": 1,
        "level": "heuristic",
        **options,
    }
    await organiser.slash(channel, "kachuful-event open", **options)
    await register(channel, members)
    return channel, organiser, members


async def finish(env, make_bot, channel, members):
    """Restart, then play the event out: two rounds of two tables, each counted once."""
    await env.restart_bot(make_bot())
    await env.bot.club.settled_all()
    for number in (1, 2):
        threads = threads_of(channel, number)
        assert len(threads) == 2, [t.name for t in channel.threads]
        for thread in threads:
            assert await games_in(env, thread.id) == 1
        await play_round(env, channel, members, number)
    final = event_message(channel)
    assert "Final standings" in final.embeds[0].description
    assert field(final, "Standings").count("2 tables") == len(members)
    assert len(channel.threads) == 4


@pytest.mark.parametrize(
    ("step", "after"),
    [
        ("thread_id", False),  # the thread exists, its id is not stored
        ("game_id", False),  # the game exists, its id is not stored
        ("game_id", True),  # both stored, the game not started
    ],
)
async def test_a_crash_while_a_table_opens(
    env: simcord.Env,
    make_bot: Callable[[], KachufulBot],
    monkeypatch: pytest.MonkeyPatch,
    step: str,
    after: bool,
):
    channel, organiser, members = await started_event(env, 5)
    patched = dies_once(Club.set_table, after=after, when=lambda self, table, **ids: step in ids)
    monkeypatch.setattr(Club, "set_table", patched)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    monkeypatch.undo()
    await finish(env, make_bot, channel, members)


@pytest.mark.parametrize("after", [False, True])
async def test_a_crash_while_the_next_round_is_seated(
    env: simcord.Env,
    make_bot: Callable[[], KachufulBot],
    monkeypatch: pytest.MonkeyPatch,
    after: bool,
):
    channel, organiser, members = await started_event(env, 5)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    patched = dies_once(Club.seat_round, after=after, when=lambda *a, **k: True)
    monkeypatch.setattr(Club, "seat_round", patched)
    await play_round(env, channel, members, 1)
    monkeypatch.undo()
    assert len(threads_of(channel, 2)) == 0
    await env.restart_bot(make_bot())
    await env.bot.club.settled_all()
    assert len(threads_of(channel, 2)) == 2
    for thread in threads_of(channel, 2):
        assert await games_in(env, thread.id) == 1
        await Table(env, thread, members).play_to_end()
    await env.bot.club.settled_all()
    final = event_message(channel)
    assert field(final, "Standings").count("2 tables") == 5


async def test_restarts_during_registration_and_mid_round_lose_and_double_nothing(
    env: simcord.Env, make_bot: Callable[[], KachufulBot]
):
    channel, organiser, members = await started_event(env, 4)
    await env.restart_bot(make_bot())
    assert "4 players registered" in [f.name for f in event_message(channel).embeds[0].fields]
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    (first, second) = threads_of(channel, 1)
    table = Table(env, first, members)
    await table.act(table.member_at(table.game.turn))  # one bid in, then the bot dies
    await env.restart_bot(make_bot())
    await env.bot.club.settled_all()
    for thread in (first, second):
        await Table(env, thread, members).play_to_end()
    await env.bot.club.settled_all()
    await env.restart_bot(make_bot())
    await env.bot.club.settled_all()
    assert len(threads_of(channel, 2)) == 2
    standings = field(event_message(channel), "Standings")
    assert standings.count("1 table") == 4, standings


async def test_a_crash_right_after_the_last_table_still_shows_the_final_standings(
    env: simcord.Env, make_bot: Callable[[], KachufulBot], monkeypatch: pytest.MonkeyPatch
):
    """The event is stored as finished, and the bot dies before its message says so: the
    next start shows the final standings (an ended event is looked at again until its
    message shows its end)."""
    from bot.club.conductor import Conductor

    channel, organiser, members = await started_event(env, 3, rounds=1)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    patched = dies_once(Conductor.show, after=False, when=lambda self, e: e.status == "finished")
    monkeypatch.setattr(Conductor, "show", patched)
    await play_round(env, channel, members, 1)
    monkeypatch.undo()
    assert "Round 1 of 1 is being played" in event_message(channel).embeds[0].description
    await env.restart_bot(make_bot())
    await env.bot.club.settled_all()
    assert "Final standings" in event_message(channel).embeds[0].description
    (event,) = await env.bot.store.club.events_in(channel.guild.id, ("finished",))
    assert event.settled
    # Settled: the next start leaves it alone.
    assert await env.bot.store.club.open_events() == []
