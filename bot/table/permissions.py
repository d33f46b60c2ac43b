"""The channel permissions a table needs, and which of them the bot lacks: asked at
``/kachuful start`` (from the interaction) and when Discord refuses a table's post (from the
cached channel), so both name the same permissions."""

from __future__ import annotations

from typing import Any

import discord


def needed(thread: bool) -> list[str]:
    """What the bot needs to post and edit a table's messages in a channel (or a thread)."""
    names = ["view_channel", "send_messages_in_threads" if thread else "send_messages"]
    # The final standings carry the score chart as a file: without Attach Files they could
    # never be posted, and a game would end with no result in the channel.
    return [*names, "embed_links", "attach_files"]


def lacking(have: discord.Permissions, thread: bool) -> list[str]:
    return [name for name in needed(thread) if not getattr(have, name)]


def lacking_in(client: discord.Client, channel_id: int) -> list[str]:
    """What the bot lacks in a channel it has cached (none known: an empty list)."""
    channel: Any = client.get_channel(channel_id)
    guild = getattr(channel, "guild", None)
    if channel is None or guild is None or guild.me is None:
        return []
    return lacking(channel.permissions_for(guild.me), isinstance(channel, discord.Thread))
