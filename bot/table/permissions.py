"""The channel permissions a table needs, and which of them the bot lacks: asked at
``/kachuful start`` (from the interaction), when Discord refuses a table's post (from the
cached channel) and by ``/kachuful-permissions``, so all name the same permissions. The
README's table link is ``TABLE_LINK`` (tests/bot/test_invite_links.py)."""

from __future__ import annotations

from typing import Any

import discord

# What the bot needs to post and edit a table's messages in a channel. The final standings
# carry the score chart as a file: without Attach Files they could never be posted, and a game
# would end with no result in the channel.
TABLE = ("view_channel", "send_messages", "embed_links", "attach_files")
# In a thread, Send Messages in Threads is what lets the bot post.
TABLE_IN_THREAD = ("view_channel", "send_messages_in_threads", "embed_links", "attach_files")
# mode:thread: a public thread opened from the lobby, and posts in it.
THREADS = ("create_public_threads", "send_messages_in_threads")
# Card pictures are files attached to the table's embeds.
PICTURES = ("embed_links", "attach_files")
# What a casual table needs wherever it is played: the README's table link.
TABLE_LINK = tuple(dict.fromkeys((*TABLE, *TABLE_IN_THREAD, *THREADS, *PICTURES)))


def needed(thread: bool) -> tuple[str, ...]:
    """What the bot needs to post and edit a table's messages in a channel (or a thread)."""
    return TABLE_IN_THREAD if thread else TABLE


def lacking(have: discord.Permissions, thread: bool) -> list[str]:
    return missing_of(have, needed(thread))


def missing_of(have: discord.Permissions, names: tuple[str, ...]) -> list[str]:
    """The permissions of ``names`` that ``have`` does not grant, in the same order."""
    return [name for name in names if not getattr(have, name)]


def lacking_in(client: discord.Client, channel_id: int) -> list[str]:
    """What the bot lacks in a channel it has cached (none known: an empty list)."""
    channel: Any = client.get_channel(channel_id)
    guild = getattr(channel, "guild", None)
    if channel is None or guild is None or guild.me is None:
        return []
    return lacking(channel.permissions_for(guild.me), isinstance(channel, discord.Thread))
