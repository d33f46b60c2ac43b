"""A table's language: the channel's setting, else the server's language, else English; chosen
when the table opens and kept with it to the end, across restarts and setting changes."""

from __future__ import annotations

from collections.abc import Callable

import discord
import pytest
import simcord

from bot.client import KachufulBot

from .helpers import lobby_message
from .locales import speak
from .test_settings_command import manager


def french_server(env: simcord.Env) -> tuple[simcord.ChannelHandle, simcord.MemberActor]:
    guild = env.create_guild("Club de cartes", preferred_locale="fr")
    channel = guild.create_text_channel("cartes")
    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    return channel, guild.add_member(env.create_user("amelie"), roles=[mods])


def language(env: simcord.Env, channel: simcord.ChannelHandle) -> object:
    return env.bot.tables.open.session_in(channel.id).row.options.language


async def test_a_table_speaks_its_servers_language(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    channel, amelie = french_server(env)
    speak(monkeypatch, {amelie.id: "hi"})  # her own language is for her eyes only
    await amelie.slash(channel, "kachuful start")
    assert language(env, channel) == "fr"


async def test_a_server_in_another_language_gets_english(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    guild = env.create_guild("Klub", preferred_locale="pl")
    channel = guild.create_text_channel("karty")
    host = guild.add_member(env.create_user("ola"))
    speak(monkeypatch, {host.id: "fr"})
    await host.slash(channel, "kachuful start")
    assert language(env, channel) == "en"


async def test_the_channel_setting_wins_and_the_table_keeps_its_language(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch, make_bot: Callable[[], KachufulBot]
) -> None:
    channel, amelie = french_server(env)
    speak(monkeypatch, {})
    await amelie.slash(channel, "kachuful-settings", language="it")
    await amelie.slash(channel, "kachuful start")
    assert language(env, channel) == "it"
    # The setting changes while the table is open: the table keeps its language...
    await amelie.slash(channel, "kachuful-settings", language="hi")
    assert language(env, channel) == "it"
    # ... and so does the stored table, read again after a restart.
    await env.restart_bot(make_bot())
    assert language(env, channel) == "it"
    assert lobby_message(channel).embeds


async def test_the_language_setting_offers_each_language_in_its_own_words(
    env: simcord.Env,
) -> None:
    guild = env.create_guild("Club")
    guild.create_text_channel("cards")
    manager(env)
    command = env.backend.find_command("kachuful-settings", None)
    assert command is not None
    option = next(o for o in command["options"] if o["name"] == "language")
    assert {c["name"]: c["value"] for c in option["choices"]} == {
        "English": "en",
        "Français": "fr",
        "Italiano": "it",
        "हिन्दी": "hi",
    }
