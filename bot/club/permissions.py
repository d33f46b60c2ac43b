"""What club play needs beyond a table's permissions (bot/table/permissions.py), checked when
the organiser acts (an event opened, a season set up with a champions' role) and by
``/kachuful-permissions``. The README's club link is the table link plus these
(tests/bot/test_invite_links.py)."""

from __future__ import annotations

import discord

from bot.table.permissions import TABLE_LINK, THREADS, missing_of

# An event's tables play in threads of its channel; where the bot may not open threads there
# but may manage channels, each table gets a text channel of its own beside it.
TABLE_CHANNELS = ("manage_channels",)
# A Discord scheduled event for an event's start time. Since 2026-02-23 creating one takes
# Create Events (1 << 44); Manage Events only edits and deletes the events of others, which
# the bot never does.
SCHEDULED_EVENTS = ("create_events",)
# The champions' role moved from last season's champions to this season's.
CHAMPIONS = ("manage_roles",)
# The README's club link: the table link, and what club play adds to it.
CLUB_LINK = (*TABLE_LINK, *TABLE_CHANNELS, *SCHEDULED_EVENTS, *CHAMPIONS)


def tables_in_channels(have: discord.Permissions) -> bool:
    """Whether an event's tables get a channel each: the bot may not open threads in the
    event's channel but may make channels."""
    return bool(missing_of(have, THREADS)) and not missing_of(have, TABLE_CHANNELS)


def event_threads_lacking(have: discord.Permissions) -> list[str]:
    """The thread permissions an event's tables lack in a channel; none when Manage Channels
    lets each table have a channel instead."""
    return [] if tables_in_channels(have) else missing_of(have, THREADS)


def scheduled_lacking(server: discord.Permissions) -> list[str]:
    """What the bot lacks, server-wide, to create a scheduled event."""
    return missing_of(server, SCHEDULED_EVENTS)


def champions_lacking(server: discord.Permissions) -> list[str]:
    """What the bot lacks, server-wide, to give and take the champions' role."""
    return missing_of(server, CHAMPIONS)


def champions_problem(me: discord.Member, role: discord.Role) -> str | None:
    """Why the bot could not give the champions ``role``, or None: it lacks Manage Roles; a
    role managed by Discord or an app (a bot's own role, the boosters', @everyone) is given by
    nobody; and a bot gives only the roles below its own highest role."""
    if champions_lacking(me.guild_permissions):
        return "role_no_permission"
    if role.managed or role.is_default():
        return "role_managed"
    if role >= me.top_role:
        return "role_out_of_reach"
    return None
