"""Who may read a server's club pages: its members, after a Discord login, or anyone when the
server made its pages public (``/kachuful-club pages:public``; members only by default).

Membership is asked of Discord by the bot itself (``guild.fetch_member``: the bot asks for
no member list, so it has none cached), never taken from the browser, and remembered for a
minute either way, so that a reader going from page to page costs Discord one request.
The setting is one value per server in the store's ``bot_state``, beside the server's
event role (bot/club/organiser.py keeps that one there too).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import Enum

import discord

from bot.store.protocol import GameStore

SETTING_KEY = "club_pages:{guild}"
PUBLIC = "public"
MEMBERS = "members"
VISIBILITIES = (MEMBERS, PUBLIC)
MEMBER_SECONDS = 60.0


class Verdict(Enum):
    READ = "read"  # show the page
    LOG_IN = "login"  # members only, and the reader has not logged in
    REFUSED = "refused"  # logged in, not a member of the server


async def visibility(store: GameStore, guild_id: int) -> str:
    """``public`` or ``members`` (the default)."""
    value = await store.bot_state(SETTING_KEY.format(guild=guild_id))
    return PUBLIC if value == PUBLIC else MEMBERS


async def set_visibility(store: GameStore, guild_id: int, value: str) -> None:
    if value not in VISIBILITIES:
        raise ValueError(value)
    await store.set_bot_state(SETTING_KEY.format(guild=guild_id), value)


class Access:
    def __init__(self, store: GameStore, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.clock = clock
        self._members: dict[tuple[int, int], tuple[bool, float]] = {}
        self.asked = 0  # requests made to Discord (for tests)

    async def verdict(self, guild: discord.Guild, user_id: int | None) -> Verdict:
        if await visibility(self.store, guild.id) == PUBLIC:
            return Verdict.READ
        if user_id is None:
            return Verdict.LOG_IN
        return Verdict.READ if await self.is_member(guild, user_id) else Verdict.REFUSED

    async def is_member(self, guild: discord.Guild, user_id: int) -> bool:
        key = (guild.id, user_id)
        now = self.clock()
        known = self._members.get(key)
        if known is not None and known[1] > now:
            return known[0]
        self.asked += 1
        try:
            await guild.fetch_member(user_id)
            member = True
        except discord.NotFound:
            member = False
        if len(self._members) > 10_000:
            self._members = {k: v for k, v in self._members.items() if v[1] > now}
        self._members[key] = (member, now + MEMBER_SECONDS)
        return member
