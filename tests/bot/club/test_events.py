"""Club play through the real bot: an event opened, players registered, rounds seated in
threads and played, the standings kept in one message, refusals answered privately."""

from __future__ import annotations

import discord
import pytest
import simcord

from tests.bot.helpers import Table, buttons

pytestmark = pytest.mark.both_backends


def club(env: simcord.Env, players: int):
    guild = env.create_guild("Kachuful Club")
    channel = guild.create_text_channel("events")
    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    organiser = guild.add_member(env.create_user("Org"), roles=[mods])
    members = [guild.add_member(env.create_user(f"P{i}")) for i in range(1, players + 1)]
    return guild, channel, organiser, members


def event_message(channel: simcord.ChannelHandle) -> discord.Message:
    found = [
        m for m in channel.history() if not m.flags.ephemeral and m.embeds and "🏆" in (m.embeds[0].title or "")
    ]
    assert len(found) == 1, [m.embeds[0].title for m in found]
    return found[0]


def field(message: discord.Message, name: str) -> str:
    return next(f.value for f in message.embeds[0].fields if f.name.startswith(name))


async def register_all(channel, members):
    for member in members:
        result = await member.click(event_message(channel), label="Register")
        assert result.ephemeral and "registered" in result.response.content


async def play_round(env, channel, members, round_number):
    """Every table of the round played to its end by its human players."""
    bot = env.bot
    threads = [t for t in channel.threads if f"round {round_number} " in (t.name or "")]
    assert threads, [t.name for t in channel.threads]
    for thread in threads:
        table = Table(env, thread, members)
        if table.session is not None:
            await table.play_to_end()
    await bot.club.settled(bot.club_events[-1] if hasattr(bot, "club_events") else 1)
    return threads


async def test_an_event_of_two_rounds_runs_in_threads_and_keeps_its_standings(env: simcord.Env):
    guild, channel, organiser, members = club(env, 5)
    opened = await organiser.slash(
        channel, "kachuful event open", name="Friday cup", rounds=2, players=3, max_hand=1,
        level="heuristic",
    )
    assert opened.ephemeral and "Friday cup" in opened.response.content
    message = event_message(channel)
    assert [b.label for b in buttons(message)] == ["Register", "Withdraw", "Remind me by DM"]
    await register_all(channel, members)
    # A player withdraws and comes back; a second registration is refused.
    again = await members[0].click(event_message(channel), label="Register")
    assert "already" in again.response.content
    assert "5 players registered" in [f.name for f in event_message(channel).embeds[0].fields]
    started = await organiser.slash(channel, "kachuful event start")
    assert "has started" in started.response.content
    await env.bot.club.settled(1)
    # 5 players at tables of 3: two tables, one computer player at one of them.
    threads = [t for t in channel.threads if "round 1" in (t.name or "")]
    assert sorted(t.name for t in threads) == [
        "Friday cup · round 1 · table 1",
        "Friday cup · round 1 · table 2",
    ]
    twice = await organiser.slash(channel, "kachuful event start")
    assert "started already" in twice.response.content
    for thread in threads:
        head = next(m for m in thread.history() if m.embeds)
        assert head.embeds[0].title.startswith("🏆 Friday cup · round 1")
        table = Table(env, thread, members)
        await table.play_to_end()
    await env.bot.club.settled(1)
    threads = [t for t in channel.threads if "round 2" in (t.name or "")]
    assert len(threads) == 2
    standings = field(event_message(channel), "Standings")
    assert standings.count("1 table") == 5, standings
    for thread in threads:
        await Table(env, thread, members).play_to_end()
    await env.bot.club.settled(1)
    final = event_message(channel)
    assert "Final standings" in final.embeds[0].description
    assert "Winner" in final.embeds[0].description
    assert field(final, "Standings").count("2 tables") == 5
    # Every table of both rounds is linked from the final standings.
    links = " ".join(f.value for f in final.embeds[0].fields if f.name.startswith("Round"))
    assert all(f"<#{t.id}>" in links for t in channel.threads)
    assert len(channel.threads) == 4
