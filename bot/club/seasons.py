"""Seasons and champions (docs/events.md#seasons): a server's season standings on request, and,
once a season has ended, its champions crowned, announced in the server's chosen channel and
given the server's champion role (taken from the previous champions).

Every step is idempotent, so a crash anywhere repeats nothing: the crown is one insert keyed
by the server and the season; the announcement is posted with a nonce and its id stored; the
role is given and taken by set operations, then marked done. The keeper looks at every
server's seasons at start and then a minute after each midnight (UTC).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta

import discord

from bot.i18n import Translations
from bot.render import club as words
from bot.shards import Shards
from bot.store.failures import StoreError
from bot.store.protocol import GameStore
from bot.ui.payloads import send_kwargs
from kachuful_core.club import Season, last_ended, season_of, season_standings

from .conductor import event_nonce
from .model import Crown, SeasonPlayer, SeasonSettings
from .permissions import champions_problem

log = logging.getLogger(__name__)

# Seasons end at midnight UTC: the keeper looks a minute after each midnight (and at start).
AFTER_MIDNIGHT = timedelta(minutes=1)


class SeasonKeeper:
    def __init__(
        self,
        client: discord.Client,
        store: GameStore,
        shards: Shards,
        *,
        clock: Callable[[], datetime] = discord.utils.utcnow,
    ) -> None:
        self.client = client
        self.store = store
        self.shards = shards
        self.clock = clock
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Keep the seasons, if any server has some (``/kachuful-season setup`` starts the
        keeper again); a bot with none holds no timer."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._keep(), name="kachuful-seasons"
            )

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _keep(self) -> None:
        while True:
            try:
                if not await self.check():
                    return
            except (StoreError, discord.HTTPException) as error:
                log.warning("seasons: not brought up to date (%s)", type(error).__name__)
            except Exception:
                log.exception("seasons: a check failed")
            await asyncio.sleep(self.until_next_check())

    def until_next_check(self) -> float:
        now = self.clock()
        tomorrow = datetime.combine(now.date() + timedelta(days=1), time(), tzinfo=UTC)
        return max(1.0, (tomorrow + AFTER_MIDNIGHT - now).total_seconds())

    def today(self) -> date:
        return self.clock().date()

    # ---- standings

    def current(self, settings: SeasonSettings) -> Season | None:
        return season_of(settings.kind, self.today(), settings.first_day, settings.last_day)

    async def standings(self, guild_id: int, season: Season) -> list[SeasonPlayer]:
        games, names = await self.store.seasons.games(guild_id, season.first, season.end)
        return [
            SeasonPlayer(s.player, names.get(s.player, "?"), s.rank, s.points, s.wins, s.games)
            for s in season_standings(games)
        ]

    # ---- crowning

    async def check(self) -> bool:
        """Crown and announce what is due; False when no server of this process has seasons."""
        every = await self.store.seasons.all_settings(self.shards)
        for settings in every:
            await self.check_server(settings)
        return bool(every)

    async def check_server(self, settings: SeasonSettings) -> None:
        ended = last_ended(settings.kind, self.today(), settings.first_day, settings.last_day)
        if ended is not None and ended.end > settings.since:
            standings = await self.standings(settings.guild_id, ended)
            crown = Crown(
                settings.guild_id,
                ended.key,
                ended.first,
                ended.end,
                tuple(standings),
                settings.channel_id,
                settings.role_id,
            )
            await self.store.seasons.crown(crown)  # False: crowned before, nothing written
        for crown in await self.store.seasons.crowns(settings.guild_id):
            if crown.message_id is None or not crown.roles_done:
                await self.announce(crown, settings)

    async def announce(self, crown: Crown, settings: SeasonSettings) -> None:
        tr = await self._language(settings.guild_id)
        if crown.message_id is None:
            channel = self.client.get_partial_messageable(crown.channel_id, guild_id=crown.guild_id)
            spec = words.champions_message(crown, tr)
            nonce = event_nonce(crown.guild_id, f"season:{crown.season}")
            message = await channel.send(**send_kwargs(spec), nonce=nonce)
            await self.store.seasons.crowned(crown, message_id=message.id)
        if not crown.roles_done:
            await self._roles(crown)
            await self.store.seasons.crowned(crown, roles_done=True)

    async def _roles(self, crown: Crown) -> None:
        """The champions get the role; whoever else holds it (the previous champions) loses
        it. A role the bot may not manage is left alone (the announcement says the names)."""
        guild = self.client.get_guild(crown.guild_id)
        if crown.role_id is None or guild is None:
            return
        role = guild.get_role(crown.role_id)
        if role is None or champions_problem(guild.me, role) is not None:
            return  # the organiser was told when they chose the role (cogs/season.py)
        champions = {p.user_id for p in crown.champions}
        crowns = await self.store.seasons.crowns(crown.guild_id)
        earlier = {p.user_id for c in crowns if c.season != crown.season for p in c.champions}
        try:
            for user_id in earlier - champions:
                member = await self._member(guild, user_id)
                if member is not None and role in member.roles:
                    await member.remove_roles(role)
            for user_id in champions:
                member = await self._member(guild, user_id)
                if member is not None and role not in member.roles:
                    await member.add_roles(role)
        except discord.Forbidden:
            log.warning("season %s: the champions' role could not be managed", crown.season)

    async def _member(self, guild: discord.Guild, user_id: int) -> discord.Member | None:
        member = guild.get_member(user_id)
        if member is not None:
            return member
        try:
            return await guild.fetch_member(user_id)
        except discord.NotFound:
            return None  # left the server

    async def _language(self, guild_id: int) -> Translations:
        from bot.i18n import language_of, translation

        guild = self.client.get_guild(guild_id)
        return translation(language_of(guild.preferred_locale if guild else None))
