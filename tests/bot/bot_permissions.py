"""The bot's own permissions in a SimCord server, set as an admin would: its role (made when it
joined) granted exactly some permissions, or a channel's overwrite taking some away."""

from __future__ import annotations

from typing import Any

import discord
import simcord
from simcord.backend.models import Overwrite
from simcord.enums import OverwriteType

# What a casual table needs (the README's table link), written out here rather than taken from
# bot/table/permissions.py, so that a test of those lists is not a test of themselves.
TABLE_LINK = discord.Permissions(
    view_channel=True,
    send_messages=True,
    embed_links=True,
    attach_files=True,
    create_public_threads=True,
    send_messages_in_threads=True,
)


def grant_bot(env: simcord.Env, guild: Any, permissions: discord.Permissions) -> None:
    """The bot's own role has exactly ``permissions`` (@everyone may grant more)."""
    roles = env.backend.guilds[guild.id].roles.values()
    role = next(r for r in roles if r.managed and r.name == env.backend.bot_user.name)
    env.backend.edit_role(guild.id, role.id, {"permissions": permissions.value})


def deny_bot(env: simcord.Env, channel: Any, permissions: discord.Permissions) -> None:
    """A channel overwrite that takes ``permissions`` from the bot there, whatever its roles
    and @everyone grant."""
    env.backend.set_overwrite(
        channel.id,
        Overwrite(
            target_id=env.bot.user.id,
            type=OverwriteType.MEMBER,
            allow=0,
            deny=permissions.value,
        ),
    )
