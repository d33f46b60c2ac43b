"""What an organiser may do to an event, and every refusal: answered privately, nothing
changed."""

from __future__ import annotations

import pytest
import simcord

from tests.bot.helpers import Table, craft_click

from .helpers import club, event_message, field, play_round, register, threads_of

pytestmark = pytest.mark.both_backends


async def open_event(organiser, channel, **options):
    options = {
        "name": "Cup",
        "rounds": 2,
        "players": 3,
        "max_hand": 1,
        "level": "heuristic",
        **options,
    }
    result = await organiser.slash(channel, "kachuful-event open", **options)
    assert "is open" in result.response.content, result.response.content
    return result


async def stored_events(env):
    return await env.bot.store.club.events_in(
        env.bot.guilds[0].id, ("registering", "running", "paused", "finished", "closed")
    )


async def test_refusals_are_private_and_change_nothing(env: simcord.Env):
    _guild, channel, organiser, members = club(env, 3)
    refused = await members[0].slash(channel, "kachuful-event open", name="Mine")
    assert refused.ephemeral and "Only the organiser" in refused.response.content
    for bad in (
        {"name": "  "},
        {"name": "x" * 61},
        {"name": "Cup", "starts": "tomorrow"},
        {"name": "Cup", "starts": "2001-01-01 10:00"},
    ):
        refused = await organiser.slash(channel, "kachuful-event open", **bad)
        assert refused.ephemeral and refused.response.content.startswith("⚠️"), bad
    assert await stored_events(env) == []
    await open_event(organiser, channel)
    withdraw = await members[0].click(event_message(channel), label="Withdraw")
    assert "not registered" in withdraw.response.content
    await register(channel, members[:1])
    too_few = await organiser.slash(channel, "kachuful-event start")
    assert "at least 2 registered players (registered so far: 1)" in too_few.response.content
    not_theirs = await members[0].slash(channel, "kachuful-event start")
    assert "Only the organiser" in not_theirs.response.content
    forged = await craft_click(env, members[1], event_message(channel), "kf:e:register:999")
    assert "no longer works" in forged.response.content
    (event,) = await stored_events(env)
    assert event.status == "registering" and event.round == 0
    await register(channel, members[1:])
    withdrawn = await members[2].click(event_message(channel), label="Withdraw")
    assert "withdrawn" in withdrawn.response.content
    assert "2 players registered" in [f.name for f in event_message(channel).embeds[0].fields]
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    # Registration is closed: the message has no buttons left, and the store refuses a
    # registration that raced the start.
    assert event_message(channel).components == []
    assert not await env.bot.store.club.set_entrant(
        event.id, members[2].id, "P3", "registered", only_while="registering"
    )
    # The withdrawn player sits at no table.
    seated = {
        s.user_id for t in threads_of(channel, 1) for s in Table(env, t, members).session.row.seats
    }
    assert members[2].id not in seated and {members[0].id, members[1].id} <= seated
    paused_twice = await organiser.slash(channel, "kachuful-event resume")
    assert "not paused" in paused_twice.response.content


async def test_pause_holds_the_next_round_and_resume_seats_it(env: simcord.Env):
    _guild, channel, organiser, members = club(env, 3)
    await open_event(organiser, channel)
    await register(channel, members)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    paused = await organiser.slash(channel, "kachuful-event pause")
    assert "is paused" in paused.response.content
    await play_round(env, channel, members, 1)
    assert threads_of(channel, 2) == []
    assert (
        "Paused by the organiser after round 1 of 2" in event_message(channel).embeds[0].description
    )
    resumed = await organiser.slash(channel, "kachuful-event resume")
    assert "goes on" in resumed.response.content
    await env.bot.club.settled_all()
    assert len(threads_of(channel, 2)) == 1


async def test_a_dropped_player_is_replaced_by_a_computer_and_seated_no_more(env: simcord.Env):
    _guild, channel, organiser, members = club(env, 3)
    await open_event(organiser, channel)
    await register(channel, members)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    (thread,) = threads_of(channel, 1)
    dropped = await organiser.slash(channel, "kachuful-event drop", player=members[0])
    assert "is out of **Cup**" in dropped.response.content
    row = Table(env, thread, members).session.row
    assert members[0].id not in [s.user_id for s in row.seats]
    assert members[0].id in [s.left_user_id for s in row.seats]
    again = await organiser.slash(channel, "kachuful-event drop", player=members[0])
    assert "not registered" in again.response.content
    await play_round(env, channel, members, 1)
    (second,) = threads_of(channel, 2)
    assert members[0].id not in [s.user_id for s in Table(env, second, members).session.row.seats]


async def test_close_stops_the_tables_and_posts_the_final_standings(env: simcord.Env):
    _guild, channel, organiser, members = club(env, 3)
    await open_event(organiser, channel)
    await register(channel, members)
    await organiser.slash(channel, "kachuful-event start")
    await env.bot.club.settled_all()
    (thread,) = threads_of(channel, 1)
    closed = await organiser.slash(channel, "kachuful-event close")
    assert "is closed" in closed.response.content
    await env.bot.club.settled_all()
    assert env.bot.tables.open.session_in(thread.id) is None
    final = event_message(channel)
    assert "Closed by the organiser after round 1 of 2" in final.embeds[0].description
    assert "No table has finished yet." in field(final, "Standings")
    over = await organiser.slash(channel, "kachuful-event close")
    assert "is over" in over.response.content


async def test_a_role_named_by_the_server_may_organise(env: simcord.Env):
    guild, channel, organiser, members = club(env, 2)
    hosts = guild.create_role("Hosts")
    host = guild.add_member(env.create_user("Host"), roles=[hosts])
    refused = await host.slash(channel, "kachuful-event open", name="Cup")
    assert "Only the organiser" in refused.response.content
    not_manager = await members[0].slash(channel, "kachuful-event role", role=hosts)
    assert "Only the organiser" in not_manager.response.content
    named = await organiser.slash(channel, "kachuful-event role", role=hosts)
    assert "may now organise" in named.response.content
    await open_event(host, channel)
    cleared = await organiser.slash(channel, "kachuful-event role")
    assert "Manage Server" in cleared.response.content
    refused = await host.slash(channel, "kachuful-event open", name="Cup 2")
    assert "Only the organiser" in refused.response.content
    # The event's own organiser still runs it.
    await register(channel, members)
    started = await host.slash(channel, "kachuful-event start")
    assert "has started" in started.response.content


async def test_standings_on_request_are_private_in_the_readers_language(env: simcord.Env):
    _guild, channel, organiser, members = club(env, 2)
    await open_event(organiser, channel)
    shown = await members[0].slash(channel, "kachuful-event standings")
    assert shown.ephemeral and shown.response.embeds[0].title == "🏆 Cup"
    missing = await members[0].slash(channel, "kachuful-event standings", event=42)
    assert "no such event" in missing.response.content
    # An event of another server is not found either.
    other = env.create_guild("Other")
    elsewhere = other.create_text_channel("x")
    stranger = other.add_member(env.create_user("S"))
    foreign = await stranger.slash(elsewhere, "kachuful-event standings", event=1)
    assert "no such event" in foreign.response.content
