"""Club play through the real bot: an event opened, players registered, rounds seated in
threads and played, the standings kept in one message."""

from __future__ import annotations

import discord
import pytest
import simcord

from kachuful_core import load_game
from tests.bot.helpers import Table, buttons

from .helpers import club, event_message, exported, field, play_round, register, threads_of

pytestmark = pytest.mark.both_backends


async def test_an_event_of_two_rounds_runs_in_threads_and_keeps_its_standings(env: simcord.Env):
    _guild, channel, organiser, members = club(env, 5)
    opened = await organiser.slash(
        channel,
        "kachuful-event open",
        name="Friday cup",
        rounds=2,
        players=3,
        max_hand=1,
        level="heuristic",
    )
    assert opened.ephemeral and "Friday cup" in opened.response.content
    message = event_message(channel)
    assert [b.label for b in buttons(message)] == ["Register", "Withdraw", "Remind me by DM"]
    await register(channel, members)
    again = await members[0].click(event_message(channel), label="Register")
    assert "already" in again.response.content
    assert "5 players registered" in [f.name for f in event_message(channel).embeds[0].fields]
    started = await organiser.slash(channel, "kachuful-event start")
    assert "has started" in started.response.content
    await env.bot.club.settled_all()
    # 5 players at tables of 3: two tables, one computer player at one of them.
    threads = threads_of(channel, 1)
    assert [t.name for t in threads] == [
        "Friday cup · round 1 · table 1",
        "Friday cup · round 1 · table 2",
    ]
    assert buttons(event_message(channel)) == []  # registration is over
    twice = await organiser.slash(channel, "kachuful-event start")
    assert "started already" in twice.response.content
    for thread in threads:
        head = next(m for m in thread.history() if m.embeds)
        assert head.embeds[0].title.startswith("🏆 Friday cup · round 1")
        seated = Table(env, thread, members).session.row.seats
        # Each human at the table is mentioned once, in the thread's first message.
        assert head.content.split() == [f"<@{s.user_id}>" for s in seated if s.user_id]
    await play_round(env, channel, members, 1)
    assert len(threads_of(channel, 2)) == 2
    standings = field(event_message(channel), "Standings")
    assert standings.count("1 table") == 5, standings
    assert "Round 2 of 2 is being played" in event_message(channel).embeds[0].description
    await play_round(env, channel, members, 2)
    final = event_message(channel)
    assert "Final standings" in final.embeds[0].description
    assert "Winner" in final.embeds[0].description
    assert field(final, "Standings").count("2 tables") == 5
    links = " ".join(f.value for f in final.embeds[0].fields if f.name.startswith("Round"))
    assert all(f"<#{t.id}>" in links for t in channel.threads)
    assert len(channel.threads) == 4


async def test_duplicate_tables_of_a_round_deal_the_same_cards_seat_for_seat(env: simcord.Env):
    _guild, channel, organiser, members = club(env, 6)
    await organiser.slash(
        channel,
        "kachuful-event open",
        name="Dup",
        format="duplicate",
        rounds=1,
        players=3,
        max_hand=2,
        level="heuristic",
    )
    await register(channel, members)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    tables = [Table(env, thread, members) for thread in threads_of(channel, 1)]
    assert len(tables) == 2
    first, second = (t.session.row for t in tables)
    assert first.seed == second.seed
    await play_round(env, channel, members, 1)
    export = await exported(await organiser.slash(channel, "kachuful export", event=1))
    a, b = export["tables"]
    assert a["deal_seeds"]["deals"] == b["deal_seeds"]["deals"]
    games = [load_game(entry["record"]) for entry in (a, b)]
    hands = [[deal["hands"] for deal in entry["record"]["deals"]] for entry in (a, b)]
    assert hands[0] == hands[1]  # seat k holds the same cards at both tables, every deal
    # Matchpoints, from the rules of docs/events.md: each deal, a seat beats (1), ties (½)
    # or loses to the same seat at the other table.
    expected = {}
    for mine, other, entry in ((games[0], games[1], a), (games[1], games[0], b)):
        for seat, who in enumerate(entry["seats"]):
            points = 0.0
            for deal, theirs in zip(mine.deal_scores, other.deal_scores, strict=True):
                points += (
                    1.0 if deal[seat] > theirs[seat] else 0.5 if deal[seat] == theirs[seat] else 0
                )
            expected[who["name"]] = points
    standings = field(event_message(channel), "Standings")
    for name, points in expected.items():
        unit = "pt" if points == 1 else "pts"
        assert f"**{name}** — {points:g} {unit}" in standings, (name, points, standings)


@pytest.mark.one_store
async def test_twenty_eight_players_play_rounds_of_seven_tables(env: simcord.Env):
    """28 players at full speed: seven tables a round, every player at one table a round, and
    the points of every table counted once. (The seating of all eight rounds, every pair
    meeting at most twice, is the engine's: tests/engine/test_club.py.)"""
    _guild, channel, organiser, members = club(env, 28)
    await organiser.slash(
        channel, "kachuful-event open", name="Big", rounds=2, players=4, max_hand=1
    )
    await register(channel, members)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    seatings = []
    for number in range(1, 3):
        threads = threads_of(channel, number)
        assert len(threads) == 7
        seated = [[s.user_id for s in Table(env, t, members).session.row.seats] for t in threads]
        assert sorted(u for table in seated for u in table) == sorted(m.id for m in members)
        seatings.append(seated)
        await play_round(env, channel, members, number)
    from kachuful_core.club import meetings

    assert max(meetings(seatings).values()) <= 2
    final = event_message(channel)
    assert "Final standings" in final.embeds[0].description
    records = await env.bot.club.standings(await env.bot.store.club.load_event(1))
    assert [s.tables for s in records] == [2] * 28
    # Each table shares out 6 points (one per pair of its 4 players).
    assert sum(s.points for s in records) == 6 * 14


async def test_where_threads_are_not_allowed_each_table_gets_a_channel(env: simcord.Env):
    """The bot may not open threads in the event's channel but may manage channels: each
    table plays in a text channel of its own, beside the event's channel."""
    guild = env.create_guild("Kachuful Club")
    no_threads = discord.PermissionOverwrite(create_public_threads=False)
    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    channel = guild.create_text_channel("events", overwrites={env.bot.user: no_threads})
    organiser = guild.add_member(env.create_user("Org"), roles=[mods])
    members = [guild.add_member(env.create_user(f"P{i}")) for i in range(1, 4)]
    await organiser.slash(
        channel, "kachuful-event open", name="Cup", rounds=1, players=3, max_hand=1
    )
    await register(channel, members)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    assert channel.threads == []
    table_channel = guild.channels["cup-round-1-table-1"]
    await Table(env, table_channel, members).play_to_end()
    await env.bot.club.settled_all()
    final = event_message(channel)
    assert "Final standings" in final.embeds[0].description
    assert f"<#{table_channel.id}>" in field(final, "Round 1")
