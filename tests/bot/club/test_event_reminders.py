"""Reminders of an event: one before a scheduled start (a mention in a new message, or a
direct message for who asked for one), and one for a player holding an event's table up."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import discord
import pytest
import simcord

from bot.client import KachufulBot
from tests.bot.helpers import Table

from .helpers import club, register, threads_of

pytestmark = pytest.mark.both_backends


async def test_one_reminder_before_a_scheduled_start_in_the_channel_or_by_dm(
    env: simcord.Env, make_bot: Callable[[], KachufulBot]
):
    guild, channel, organiser, members = club(env, 3)
    starts = discord.utils.utcnow() + timedelta(hours=1)
    stamp = int(starts.timestamp())
    opened = await organiser.slash(
        channel, "kachuful-event open", name="Night cup", starts=f"<t:{stamp}:F>"
    )
    assert "is open" in opened.response.content
    scheduled = list(env.backend.guilds[guild.id].scheduled_events.values())
    assert [e.name for e in scheduled] == ["Night cup"]
    await register(channel, members)
    by_dm = await members[2].click(
        next(m for m in channel.history() if m.components), label="Remind me by DM"
    )
    assert "direct message" in by_dm.response.content
    before = len(channel.history())
    await env.advance_time(30 * 60)
    assert len(channel.history()) == before  # not yet: 15 minutes before the start
    await env.advance_time(16 * 60)
    await env.bot.club.settled_all()
    reminders = [m for m in channel.history()[before:] if "Night cup" in (m.content or "")]
    assert len(reminders) == 1
    assert f"<t:{stamp}:R>" in reminders[0].content
    mentioned = {u.id for u in reminders[0].mentions}
    assert mentioned == {members[0].id, members[1].id}
    dms = [m for m in members[2].user.dm_channel.history() if "Night cup" in (m.content or "")]
    assert len(dms) == 1
    # One reminder only, whatever happens next (a restart included).
    await env.restart_bot(make_bot())
    await env.bot.club.settled_all()
    await env.advance_time(60 * 60)
    assert len([m for m in channel.history() if "Night cup" in (m.content or "")]) == 1


async def test_a_player_holding_up_an_event_table_is_pinged_again_at_half_their_clock(
    env: simcord.Env,
):
    _guild, channel, organiser, members = club(env, 2)
    await organiser.slash(
        channel, "kachuful-event open", name="Cup", players=3, max_hand=2, level="heuristic"
    )
    await register(channel, members)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    (thread,) = threads_of(channel, 1)
    table = Table(env, thread, members)
    waiting = table.member_at(table.game.turn)
    assert waiting is not None

    def pings() -> list[discord.Message]:
        return [m for m in thread.history() if (m.content or "").startswith("🔔")]

    (first,) = pings()
    assert "your turn" in first.content
    await env.advance_time(44)  # the clock is 90 s in the tests
    assert [m.id for m in pings()] == [first.id]
    await env.advance_time(2)
    (late,) = pings()
    assert late.id != first.id and "waiting for you" in late.content
    assert [u.id for u in late.mentions] == [waiting.id]
