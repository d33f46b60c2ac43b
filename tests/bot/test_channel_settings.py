"""/kachuful-settings through SimCord: the Manage Server check made in code holds when a server
has overridden the command's permissions, and settings changed while a game runs leave that
game's options as they were (the next game gets them)."""

from __future__ import annotations

import discord
import pytest
import simcord

from .helpers import start_game, world

# Whole games: on SQLite and on PostgreSQL (tests/pg.py).
pytestmark = pytest.mark.both_backends


def manager(env: simcord.Env) -> simcord.MemberActor:
    managers = env.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    return env.guild.add_member(env.create_user("mod"), roles=[managers])


async def test_a_member_the_servers_override_lets_see_the_command_is_refused_in_code(
    env: simcord.Env,
) -> None:
    channel, [outsider] = world(env, "outsider")
    guild = env.guild
    players = guild.create_role("Players")  # no Manage Server
    asha = guild.add_member(env.create_user("asha"), roles=[players])
    mod = manager(env)
    saved = await mod.slash(channel, "kachuful-settings", scoring="penalty", turn_seconds=45)
    assert saved.response.ephemeral
    before = await env.bot.store.channel_settings(channel.id)
    assert before == {"scoring": "penalty", "turn_seconds": 45}
    # The server overrides the command's permissions: denied to everyone, allowed to Players.
    command = env.backend.find_command("kachuful-settings", None)
    assert command is not None
    guild.set_command_permissions(int(command["id"]), {guild.default_role: False, players: True})
    assert "kachuful-settings" not in outsider.available_commands(channel)
    with pytest.raises(simcord.SetupError):
        await outsider.slash(channel, "kachuful-settings", scoring="exact")
    # Asha sees the command (Discord lets her run it) but has no Manage Server: the bot's own
    # check refuses her, and nothing changes.
    assert "kachuful-settings" in asha.available_commands(channel)
    bits = env.backend.compute_permissions(guild.id, asha.id, channel.id)
    assert not discord.Permissions(bits).manage_guild
    for options in (
        {"scoring": "exact", "turn_seconds": 300, "computers": False},
        {"reset": True},
        {},
    ):
        refused = await asha.slash(channel, "kachuful-settings", **options)
        assert refused.response.ephemeral and "Manage Server" in refused.response.content
        assert not refused.response.embeds  # not even the current settings are shown
        assert await env.bot.store.channel_settings(channel.id) == before


async def test_settings_changed_during_a_game_leave_its_options_and_apply_to_the_next(
    env: simcord.Env,
) -> None:
    channel, members = world(env, "asha", "bilal", "chen")
    mod = manager(env)
    await mod.slash(
        channel,
        "kachuful-settings",
        scoring="penalty",
        turn_seconds=45,
        max_hand=2,
        schedule="down",
        hook=False,
    )
    table = await start_game(env, channel, members, players=3)
    row = table.session.row
    options = row.options
    assert (options.rules["scoring"], options.turn_seconds, options.rules["max_hand"]) == (
        "penalty",
        45,
        2,
    )
    engine_rules = table.game.rules
    changed = await mod.slash(
        channel,
        "kachuful-settings",
        scoring="exact",
        turn_seconds=300,
        max_hand=3,
        schedule="down-up",
        hook=True,
    )
    assert changed.response.ephemeral
    # The running game: its options, its engine's rules and its turn clock are as they were,
    # in memory and in the database, before and after moves made since.
    await table.act(table.member_at(table.game.turn))  # type: ignore[arg-type]
    assert table.session.row.options == options and table.game.rules == engine_rules
    assert env.bot.tables.timing.turn_seconds(table.session.row) == 45
    stored = await env.bot.store.load_game(row.id)
    assert stored is not None and stored.options == options
    await table.play_to_end()
    finished = await env.bot.store.load_game(row.id)
    assert finished is not None and finished.status == "finished" and finished.options == options
    assert len(finished.record["deals"]) == 2  # type: ignore[index]  # 2 then 1 card: "down"
    # The next game in the channel gets the new settings.
    opened = await members[0].slash(channel, "kachuful start")
    assert not opened.ephemeral
    following = env.bot.tables.open.session_in(channel.id)
    assert following is not None and following.row.id != row.id
    new = following.row.options
    rules = new.rules
    assert (
        rules["scoring"],
        new.turn_seconds,
        rules["max_hand"],
        rules["schedule"],
        rules["hook"],
    ) == (
        "exact",
        300,
        3,
        "down-up",
        True,
    )
    assert env.bot.tables.timing.turn_seconds(following.row) == 300
