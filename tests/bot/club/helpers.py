"""Driving an event through SimCord as its organiser and players do."""

from __future__ import annotations

import json
from typing import Any

import discord
import simcord

from tests.bot.helpers import Table


def club(env: simcord.Env, players: int) -> tuple[Any, Any, Any, list[Any]]:
    """A server with an events channel, an organiser (Manage Server) and ``players``."""
    guild = env.create_guild("Kachuful Club")
    channel = guild.create_text_channel("events")
    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    organiser = guild.add_member(env.create_user("Org"), roles=[mods])
    members = [guild.add_member(env.create_user(f"P{i}")) for i in range(1, players + 1)]
    return guild, channel, organiser, members


def event_message(channel: simcord.ChannelHandle) -> discord.Message:
    """The event's one public message (registration, then standings)."""
    found = [
        m
        for m in channel.history()
        if not m.flags.ephemeral and m.embeds and (m.embeds[0].title or "").startswith("🏆")
    ]
    assert len(found) == 1, [m.embeds[0].title for m in found]
    return found[0]


def field(message: discord.Message, name: str) -> str:
    return next(f.value for f in message.embeds[0].fields if (f.name or "").startswith(name))


async def register(channel: simcord.ChannelHandle, members: list[Any]) -> None:
    for member in members:
        result = await member.click(event_message(channel), label="Register")
        assert result.ephemeral and "registered" in result.response.content


def threads_of(channel: simcord.ChannelHandle, round_number: int) -> list[Any]:
    return sorted(
        (t for t in channel.threads if f"round {round_number} " in (t.name or "")),
        key=lambda t: t.name,
    )


async def play_round(env: simcord.Env, channel: Any, members: list[Any], round_number: int) -> None:
    for thread in threads_of(channel, round_number):
        table = Table(env, thread, members)
        if table.session is not None:
            await table.play_to_end()
    await env.bot.club.settled_all()


async def exported(result: simcord.InteractionResult) -> dict[str, Any]:
    message = result.response
    assert message is not None and message.attachments, message and message.content
    data: dict[str, Any] = json.loads(await message.attachments[0].read())
    return data
