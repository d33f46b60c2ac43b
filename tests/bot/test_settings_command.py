"""/kachuful-settings speaks the players' words, keeps the environment's turn-clock range, and is
hidden from members without Manage Server (and refuses them in code all the same)."""

from __future__ import annotations

from typing import Any

import discord
import pytest
import simcord

from bot.config import SettingsError, load_settings
from bot.registry import TURN_SECONDS

from .helpers import world
from .test_config import GOOD_TOKEN
from .test_slash_options import forged_slash

ENGINE_LEVELS = ("random", "heuristic", "search")


def manager(env: simcord.Env) -> simcord.MemberActor:
    managers = env.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    return env.guild.add_member(env.create_user("mod"), roles=[managers])


def settings_command(env: simcord.Env) -> dict[str, Any]:
    command = env.backend.find_command("kachuful-settings", None)
    assert command is not None, "no /kachuful-settings synced"
    return command


def declared(env: simcord.Env, name: str) -> dict[str, Any]:
    return next(o for o in settings_command(env)["options"] if o["name"] == name)


async def test_the_synced_command_needs_manage_server_by_default(env: simcord.Env) -> None:
    world(env, "asha")
    command = settings_command(env)
    wanted = discord.Permissions(manage_guild=True).value
    assert int(command["default_member_permissions"]) == wanted
    assert command.get("contexts") in (None, [0])  # servers only
    # /kachuful itself stays open to every member.
    assert env.backend.find_command("kachuful", None)["default_member_permissions"] is None  # type: ignore[index]


async def test_members_without_manage_server_do_not_see_it_and_are_refused_in_code(
    env: simcord.Env,
) -> None:
    channel, (asha,) = world(env, "asha")
    mod = manager(env)
    assert "kachuful-settings" not in asha.available_commands(channel)
    assert "kachuful-settings" in mod.available_commands(channel)
    assert "kachuful start" in asha.available_commands(channel)
    with pytest.raises(simcord.SetupError):
        await asha.slash(channel, "kachuful-settings", scoring="penalty")
    # A server may override the default and let her see it: the bot's own check remains.
    command = settings_command(env)
    env.guild.set_command_permissions(int(command["id"]), {asha: True})
    assert "kachuful-settings" in asha.available_commands(channel)
    forged = await asha.slash(channel, "kachuful-settings", scoring="penalty")
    assert forged.ephemeral and forged.response is not None
    assert "Manage Server" in forged.response.content
    assert await env.bot.store.channel_settings(channel.id) == {}


async def test_computer_levels_are_offered_in_players_words(env: simcord.Env) -> None:
    channel, _ = world(env, "asha")
    choices = declared(env, "computer_levels")["choices"]
    names = [c["name"] for c in choices]
    assert "Every level (default)" in names and "Beginner + Expert" in names
    assert "Expert" in names and len(names) == 7  # every non-empty set of the three levels
    for name in names:
        assert not any(level in name.lower() for level in ENGINE_LEVELS), name
    mod = manager(env)
    saved = await mod.slash(
        channel,
        "kachuful-settings",
        computer_levels=next(c["value"] for c in choices if c["name"] == "Casual + Expert"),
    )
    assert "Computer levels** (`computer_levels`): Casual, Expert" in (
        saved.response.embeds[0].description or ""
    )
    assert await env.bot.store.channel_settings(channel.id) == {
        "computer_levels": ["heuristic", "search"]
    }


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("Beginner, expert", ["random", "search"]),  # the players' words, any case
        ("search,random", ["random", "search"]),  # the engine's names, as older settings
    ],
)
async def test_levels_typed_by_a_modified_client_are_read_both_ways(
    env: simcord.Env, typed: str, kept: list[str]
) -> None:
    channel, _ = world(env, "asha")
    mod = manager(env)
    saved = await forged_slash(env, mod, channel, "kachuful-settings", computer_levels=typed)
    assert saved.ephemeral and saved.response is not None and saved.response.embeds
    assert await env.bot.store.channel_settings(channel.id) == {"computer_levels": kept}


@pytest.mark.parametrize("typed", ["genius", "", "Expert, genius"])
async def test_an_unknown_level_is_refused_in_players_words(env: simcord.Env, typed: str) -> None:
    channel, _ = world(env, "asha")
    mod = manager(env)
    refused = await forged_slash(env, mod, channel, "kachuful-settings", computer_levels=typed)
    assert refused.ephemeral and refused.response is not None
    assert "Beginner, Casual, Expert" in refused.response.content
    assert await env.bot.store.channel_settings(channel.id) == {}


async def test_the_turn_clock_range_is_the_environments(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    channel, _ = world(env, "asha")
    low, high = TURN_SECONDS
    option = declared(env, "turn_seconds")
    assert (option["min_value"], option["max_value"]) == (low, high)
    assert f"({low}–{high})" in option["description"]
    mod = manager(env)
    # In the command: the bounds are allowed, one past them is refused, even forged.
    for seconds in (low, high):
        saved = await mod.slash(channel, "kachuful-settings", turn_seconds=seconds)
        assert saved.response.embeds, seconds
        assert (await env.bot.store.channel_settings(channel.id))["turn_seconds"] == seconds
    for seconds in (low - 1, high + 1):
        refused = await forged_slash(env, mod, channel, "kachuful-settings", turn_seconds=seconds)
        assert refused.ephemeral and refused.response is not None
        assert f"from {low} to {high}" in refused.response.content
        assert (await env.bot.store.channel_settings(channel.id))["turn_seconds"] == high
    # In the environment: the same bounds.
    monkeypatch.setenv("DISCORD_TOKEN", GOOD_TOKEN)
    for seconds in (low, high):
        monkeypatch.setenv("KACHUFUL_TURN_SECONDS", str(seconds))
        assert load_settings(env_file=None).turn_seconds == seconds
    for seconds in (low - 1, high + 1):
        monkeypatch.setenv("KACHUFUL_TURN_SECONDS", str(seconds))
        with pytest.raises(SettingsError, match="KACHUFUL_TURN_SECONDS"):
            load_settings(env_file=None)


async def test_every_choice_of_the_command_is_accepted_by_its_check(env: simcord.Env) -> None:
    channel, _ = world(env, "asha")
    mod = manager(env)
    for option in settings_command(env)["options"]:
        for choice in option.get("choices") or []:
            given = {option["name"]: choice["value"]}
            saved = await mod.slash(channel, "kachuful-settings", **given)
            assert saved.response.embeds, (option["name"], choice)
