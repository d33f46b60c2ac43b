"""/kachuful-permissions: an admin sees in one private answer, for each feature, whether the
bot can do it in a channel and, if not, which permissions to grant (named as the admin's
Discord client names them) or why no permission would help."""

from __future__ import annotations

import discord
import pytest
import simcord

from .bot_permissions import TABLE_LINK, deny_bot, grant_bot
from .helpers import world
from .locales import speak


def admin(env: simcord.Env) -> simcord.MemberActor:
    mods = env.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    return env.guild.add_member(env.create_user("mod"), roles=[mods])


def lines(result: simcord.InteractionResult) -> dict[str, str]:
    """The answer's paragraphs by the feature they start with (its ✅ or ❌ kept)."""
    assert result.ephemeral
    (embed,) = result.response.embeds
    paragraphs = (embed.description or "").split("\n\n")[1:]
    return {p.split("**")[1]: p for p in paragraphs}


async def test_what_works_and_what_is_missing_in_one_private_answer(env: simcord.Env) -> None:
    channel, _ = world(env)
    mod = admin(env)
    grant_bot(env, env.guild, TABLE_LINK)
    await env.settle()
    found = lines(await mod.slash(channel, "kachuful-permissions"))
    assert list(found) == [
        "Tables (`/kachuful start`)",
        "Games played in a thread",
        "Cards drawn as pictures",
        "Events (`/kachuful-event open`)",
        "Discord scheduled events for an event's start",
        "The champions' role of the seasons",
    ]
    marks = [paragraph[0] for paragraph in found.values()]
    assert marks == ["✅", "✅", "✅", "✅", "❌", "❌"]
    assert (
        "this permission: Create Events." in found["Discord scheduled events for an event's start"]
    )
    champions = found["The champions' role of the seasons"]
    assert "this permission: Manage Roles." in champions and "No champions' role" in champions
    # A channel that takes Embed Links from the bot: tables, pictures and events stop.
    deny_bot(env, channel, discord.Permissions(embed_links=True))
    found = lines(await mod.slash(channel, "kachuful-permissions"))
    assert [p[0] for p in found.values()] == ["❌", "✅", "❌", "❌", "❌", "❌"]
    assert "this permission: Embed Links." in found["Tables (`/kachuful start`)"]


async def test_the_names_are_the_admins_clients(
    env: simcord.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    channel, _ = world(env)
    mod = admin(env)
    speak(monkeypatch, {mod.id: "fr"})
    grant_bot(env, env.guild, TABLE_LINK)
    deny_bot(env, channel, discord.Permissions(create_public_threads=True, embed_links=True))
    await env.settle()
    result = await mod.slash(channel, "kachuful-permissions")
    (embed,) = result.response.embeds
    text = embed.description or ""
    assert "Créer des fils publics" in text and "Intégrer des liens" in text
    assert "Créer des événements" in text and "Gérer les rôles" in text
    # Events: threads missing, Manage Channels as the other way.
    assert "«\u00a0Gérer les salons\u00a0»" in text
    assert not any(english in text for english in ("Create", "Manage", "Embed"))


async def test_in_a_thread_and_for_another_channel(env: simcord.Env) -> None:
    channel, (asha,) = world(env, "asha")
    mod = admin(env)
    thread = env.backend.create_thread(channel.id, "talk", asha.id)
    await env.settle()
    (handle,) = [t for t in channel.threads if t.id == thread.id]
    found = lines(await mod.slash(handle, "kachuful-permissions"))
    assert found["Tables (`/kachuful start`)"][0] == "✅"
    assert "cannot open another" in found["Games played in a thread"]
    assert "text channel" in found["Events (`/kachuful-event open`)"]
    # Asked from here about a channel where the bot may not post.
    quiet = env.guild.create_text_channel("quiet")
    deny_bot(env, quiet, discord.Permissions(send_messages=True))
    await env.settle()
    result = await mod.slash(channel, "kachuful-permissions", channel=quiet)
    assert f"<#{quiet.id}>" in (result.response.embeds[0].description or "")
    found = lines(result)
    # Without Send Messages, Discord takes Embed Links and Attach Files away too.
    tables = found["Tables (`/kachuful start`)"]
    assert "these permissions: Send Messages, Embed Links, and Attach Files." in tables


async def test_a_champions_role_above_the_bots_is_named(env: simcord.Env) -> None:
    channel, _ = world(env)
    mod = admin(env)
    legends = env.guild.create_role("Legends")
    env.backend.edit_role(env.guild.id, legends.id, {"position": 5})
    await mod.slash(
        channel, "kachuful-season setup", period="monthly", channel=channel, role=legends
    )
    found = lines(await mod.slash(channel, "kachuful-permissions"))
    champions = found["The champions' role of the seasons"]
    assert champions[0] == "❌" and f"<@&{legends.id}>" in champions
    assert "not below the bot's highest role" in champions


async def test_it_is_hidden_from_members_without_manage_server(env: simcord.Env) -> None:
    channel, (asha,) = world(env, "asha")
    mod = admin(env)
    command = env.backend.find_command("kachuful-permissions", None)
    assert command is not None
    assert (
        int(command["default_member_permissions"]) == discord.Permissions(manage_guild=True).value
    )
    assert "kachuful-permissions" in mod.available_commands(channel)
    assert "kachuful-permissions" not in asha.available_commands(channel)
