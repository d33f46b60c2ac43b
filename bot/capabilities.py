"""What the bot can do in a channel, feature by feature, and why not: the answer of
``/kachuful-permissions`` (cogs/permissions.py), from the same lists of permissions as the
checks made when a member acts (bot/table/permissions.py, bot/club/permissions.py)."""

from __future__ import annotations

from dataclasses import dataclass

import discord

from bot.club import permissions as club
from bot.render.permissions import Capability
from bot.table import permissions as table


@dataclass(frozen=True)
class Place:
    """A channel as the bot finds it: its permissions there and in the server, and what this
    server chose (pictures in this channel, a champions' role)."""

    have: discord.Permissions  # the bot's, in the channel
    server: discord.Permissions  # the bot's, server-wide (scheduled events, roles)
    in_thread: bool
    text_channel: bool  # events open in a text channel only
    pictures_on: bool
    me: discord.Member
    champions_role: discord.Role | None


def capabilities(place: Place) -> list[Capability]:
    have = place.have
    tables = tuple(table.lacking(have, place.in_thread))
    return [
        Capability("tables", missing=tables),
        _threads(place),
        Capability(
            "pictures",
            missing=tuple(table.missing_of(have, table.PICTURES)),
            reason=None if place.pictures_on else "pictures_off",
        ),
        _events(place, tables),
        Capability("scheduled_events", missing=tuple(club.scheduled_lacking(place.server))),
        _champions(place),
    ]


def _threads(place: Place) -> Capability:
    if place.in_thread:
        return Capability("threads", reason="in_thread")
    return Capability("threads", missing=tuple(table.missing_of(place.have, table.THREADS)))


def _events(place: Place, tables: tuple[str, ...]) -> Capability:
    if not place.text_channel:
        return Capability("events", reason="not_text")
    lacking = tuple(club.event_threads_lacking(place.have))
    return Capability("events", missing=tables, threads_or_channel=lacking)


def _champions(place: Place) -> Capability:
    role = place.champions_role
    missing = tuple(club.champions_lacking(place.server))
    if role is None:
        return Capability("champions", missing=missing, note="no_role")
    problem = club.champions_problem(place.me, role)
    reason = None if problem in (None, "role_no_permission") else problem
    return Capability("champions", missing=missing, reason=reason, role=role.mention)
