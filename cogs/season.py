"""/kachuful season … and /kachuful champions: a server's seasons, their standings and their
champions (docs/events.md#seasons). Thin: the keeper (bot/club/seasons.py) does the work."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.club.model import SeasonSettings
from bot.club.organiser import Refused
from bot.club.permissions import champions_problem
from bot.command_translator import naming_permissions
from bot.i18n import N_, reader
from bot.render import club as words
from bot.ui.payloads import send_kwargs
from kachuful_core.club import KINDS

from .event import answer
from .group import KachufulFeature, channel_translations

if TYPE_CHECKING:
    from bot.client import KachufulBot

KIND_CHOICES = [
    app_commands.Choice(name=locale_str("Monthly"), value="monthly"),
    app_commands.Choice(name=locale_str("Quarterly"), value="quarterly"),
    app_commands.Choice(name=locale_str("Between two dates"), value="dates"),
]


def _day(text: str | None) -> date | None:
    return None if text is None else date.fromisoformat(text.strip())


class SeasonCog(KachufulFeature):
    season = app_commands.Group(
        name="season", description=locale_str("Seasons: standings, champions, a champion role")
    )

    @season.command(
        name="setup",
        description=naming_permissions(
            N_("Start or change this server's seasons ({manage_guild})")
        ),
    )
    @app_commands.describe(
        period=locale_str("Monthly, quarterly, or between two dates"),
        channel=locale_str("Where each season's champions are announced"),
        role=locale_str("A role the champions hold until the next season (optional)"),
        first=locale_str("Between dates: the first day, YYYY-MM-DD"),
        last=locale_str("Between dates: the last day, YYYY-MM-DD"),
    )
    @app_commands.choices(period=KIND_CHOICES)
    async def setup(
        self,
        interaction: discord.Interaction[Any],
        period: str,
        channel: discord.TextChannel,
        role: discord.Role | None = None,
        first: str | None = None,
        last: str | None = None,
    ) -> None:
        await answer(interaction, self._setup(interaction, period, channel, role, first, last))

    async def _setup(
        self,
        interaction: discord.Interaction[Any],
        period: str,
        channel: discord.TextChannel,
        role: discord.Role | None,
        first: str | None,
        last: str | None,
    ) -> str:
        tr = reader(interaction)
        user = interaction.user
        if not (isinstance(user, discord.Member) and user.guild_permissions.manage_guild):
            raise Refused(words.refusal("not_organiser", tr))
        if period not in KINDS or channel.guild.id != interaction.guild_id:
            raise Refused(words.refusal("bad_choice", tr))
        try:
            first_day, last_day = _day(first), _day(last)
        except ValueError:
            raise Refused("⚠️ " + words.season_notice("bad_dates", tr)) from None
        if period == "dates" and (first_day is None or last_day is None or last_day < first_day):
            raise Refused("⚠️ " + words.season_notice("bad_dates", tr))
        if period != "dates":
            first_day = last_day = None
        keeper = self.bot.seasons
        settings = SeasonSettings(
            guild_id=channel.guild.id,
            kind=period,
            channel_id=channel.id,
            since=keeper.today(),
            first_day=first_day,
            last_day=last_day,
            role_id=None if role is None else role.id,
        )
        await self.bot.store.seasons.set_settings(settings, user.id)
        keeper.start()  # the first seasons of this process: the keeper looks after midnight
        kind = words.kind_words(period, tr, first_day, last_day)
        done = words.season_notice("season_set", tr, kind=kind, channel=channel.mention)
        # Told now, while the organiser is here, rather than found out when a season ends.
        problem = None if role is None else champions_problem(channel.guild.me, role)
        if role is None or problem is None:
            return done
        return f"{done}\n{words.season_notice(problem, tr, role=role.mention)}"

    @season.command(
        name="off",
        description=naming_permissions(N_("Stop this server's seasons ({manage_guild})")),
    )
    async def off(self, interaction: discord.Interaction[Any]) -> None:
        await answer(interaction, self._off(interaction))

    async def _off(self, interaction: discord.Interaction[Any]) -> str:
        tr = reader(interaction)
        user = interaction.user
        if not (isinstance(user, discord.Member) and user.guild_permissions.manage_guild):
            raise Refused(words.refusal("not_organiser", tr))
        await self.bot.store.seasons.clear_settings(interaction.guild_id or 0)
        return words.season_notice("season_off", tr)

    @season.command(name="standings", description=locale_str("The current season's standings"))
    async def standings(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(**await season_board(self.bot, interaction))

    @app_commands.command(name="champions", description=locale_str("The hall of champions"))
    async def champions(self, interaction: discord.Interaction[Any]) -> None:
        tr = await channel_translations(self.bot, interaction)
        crowns = await self.bot.store.seasons.crowns(interaction.guild_id or 0)
        await interaction.response.send_message(**send_kwargs(words.hall_of_champions(crowns, tr)))


async def season_board(bot: KachufulBot, interaction: discord.Interaction[Any]) -> dict[str, Any]:
    """The current season's standings, public like a leaderboard (or a private note when the
    server has no seasons). Also ``/kachuful leaderboard period:season``."""
    settings = await bot.store.seasons.settings(interaction.guild_id or 0)
    keeper = bot.seasons
    season = keeper.current(settings) if settings is not None else None
    if settings is None or season is None:
        text = words.season_notice("no_seasons", reader(interaction))
        return {"content": text, "ephemeral": True}
    tr = await channel_translations(bot, interaction)
    standings = await keeper.standings(settings.guild_id, season)
    last_day = season.end.toordinal() - 1
    spec = words.season_board(season.key, date.fromordinal(last_day), standings, tr)
    return send_kwargs(spec)


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(SeasonCog(bot))
