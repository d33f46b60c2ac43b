"""What club play needs from Discord, told to the organiser when they act, privately and in
their language: a scheduled event is created with Create Events (Discord's rule since
2026-02-23) and not tried without it; an event's tables need threads or a channel each; the
champions' role needs Manage Roles and a place below the bot's highest role."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import discord
import pytest
import simcord

from tests.bot.bot_permissions import TABLE_LINK, deny_bot, grant_bot
from tests.bot.locales import speak

from .helpers import club

pytestmark = [
    pytest.mark.both_backends,
    pytest.mark.one_store("Discord's permissions; the store takes no part"),
]


def starts_in_an_hour() -> str:
    return f"<t:{int((discord.utils.utcnow() + timedelta(hours=1)).timestamp())}:F>"


def scheduled_posts(env: simcord.Env) -> list[Any]:
    return [
        r for r in env.http_requests if r.method == "POST" and r.path.endswith("/scheduled-events")
    ]


async def test_create_events_alone_gets_the_scheduled_event(env: simcord.Env) -> None:
    guild, channel, organiser, _ = club(env, 0)
    grant_bot(env, guild, TABLE_LINK | discord.Permissions(create_events=True))
    await env.settle()
    assert not guild.me.guild_permissions.manage_events
    opened = await organiser.slash(
        channel, "kachuful-event open", name="Night cup", starts=starts_in_an_hour()
    )
    assert opened.ephemeral
    assert "is open" in opened.response.content and "⚠️" not in opened.response.content
    scheduled = list(env.backend.guilds[guild.id].scheduled_events.values())
    assert [e.name for e in scheduled] == ["Night cup"]
    (event,) = await env.bot.store.club.events_in(guild.id, ("registering",))
    assert event.scheduled_event_id == scheduled[0].id


async def test_manage_events_alone_tries_nothing_and_the_organiser_is_told_why(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    guild, channel, organiser, _ = club(env, 0)
    speak(monkeypatch, {organiser.id: "fr"})
    grant_bot(env, guild, TABLE_LINK | discord.Permissions(manage_events=True))
    await env.settle()
    opened = await organiser.slash(
        channel, "kachuful-event open", name="Night cup", starts=starts_in_an_hour()
    )
    assert opened.ephemeral
    text = opened.response.content
    assert "est ouvert" in text  # the event is open all the same
    assert "«\u00a0Créer des événements\u00a0»" in text, text
    assert "Create Events" not in text
    assert scheduled_posts(env) == []
    assert env.backend.guilds[guild.id].scheduled_events == {}


async def test_a_scheduled_event_discord_refuses_is_told_too(env: simcord.Env) -> None:
    _guild, channel, organiser, _ = club(env, 0)
    env.inject_error("POST", "/guilds/*/scheduled-events", status=403, code=50013)
    opened = await organiser.slash(
        channel, "kachuful-event open", name="Night cup", starts=starts_in_an_hour()
    )
    assert "is open" in opened.response.content
    assert "Discord refused to create its scheduled event" in opened.response.content
    assert "Create Events" in opened.response.content


async def test_an_event_where_tables_can_have_neither_threads_nor_channels_is_refused(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    guild, channel, organiser, _ = club(env, 0)
    speak(monkeypatch, {organiser.id: "hi"})
    grant_bot(env, guild, TABLE_LINK)
    deny_bot(env, channel, discord.Permissions(create_public_threads=True))
    await env.settle()
    refused = await organiser.slash(channel, "kachuful-event open", name="Cup")
    assert refused.ephemeral
    text = refused.response.content
    # One permission missing: the singular, each name as the Hindi client shows it.
    assert "यह परमिशन" in text and "पब्लिक थ्रेड बनाएँ" in text, text
    assert "“चैनल मैनेज करें”" in text
    assert "Create Public Threads" not in text and "Manage Channels" not in text
    assert await env.bot.store.club.events_in(guild.id, ("registering",)) == []


async def test_an_event_where_the_bot_cannot_post_is_refused_naming_what_to_grant(
    env: simcord.Env,
) -> None:
    guild, channel, organiser, _ = club(env, 0)
    deny_bot(env, channel, discord.Permissions(embed_links=True, attach_files=True))
    await env.settle()
    refused = await organiser.slash(channel, "kachuful-event open", name="Cup")
    assert refused.ephemeral
    assert "these permissions: Embed Links and Attach Files" in refused.response.content
    assert await env.bot.store.club.events_in(guild.id, ("registering",)) == []


async def test_a_champions_role_the_bot_cannot_give_is_told_at_setup(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    guild, channel, organiser, _ = club(env, 0)
    speak(monkeypatch, {organiser.id: "it"})
    news = guild.create_text_channel("news")
    champion = guild.create_role("Champion")
    grant_bot(env, guild, TABLE_LINK)
    await env.settle()
    done = await organiser.slash(
        channel, "kachuful-season setup", period="monthly", channel=news, role=champion
    )
    assert done.ephemeral
    text = done.response.content
    assert f"<#{news.id}>" in text  # the seasons are on all the same
    assert "«Gestisci ruoli»" in text and f"<@&{champion.id}>" in text, text
    # With Manage Roles but the role above the bot's own: the other reason.
    grant_bot(env, guild, TABLE_LINK | discord.Permissions(manage_roles=True))
    above = guild.create_role("Legends")
    env.backend.edit_role(guild.id, above.id, {"position": 5})
    await env.settle()
    done = await organiser.slash(
        channel, "kachuful-season setup", period="monthly", channel=news, role=above
    )
    assert "ruolo più alto" in done.response.content, done.response.content
    # A role below the bot's: nothing to say.
    done = await organiser.slash(
        channel, "kachuful-season setup", period="monthly", channel=news, role=champion
    )
    assert "⚠️" not in done.response.content
