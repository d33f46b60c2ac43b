"""/kachuful-permissions: what the bot can and cannot do in a channel, for each feature (tables,
threads, pictures, events, scheduled events, the champions' role), and which permissions it
lacks for each, in one private answer (bot/capabilities.py).

A command of its own, not a subcommand of /kachuful: like /kachuful-settings it is for the
server's managers, and Discord hides a command from members without its default member
permissions (Manage Server here) only for top-level commands; it also spares /kachuful's
subcommand slots (Discord allows 25). It changes nothing, so a server that opens it to other
members (Server Settings → Integrations) may: it is not checked a second time here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.capabilities import Place, capabilities
from bot.i18n import reader
from bot.render import refusal
from bot.render.permissions import capabilities_message
from bot.ui.payloads import send_kwargs

if TYPE_CHECKING:
    from bot.client import KachufulBot

COMMAND_NAME = "kachuful-permissions"


class PermissionsCog(commands.Cog):
    def __init__(self, bot: KachufulBot) -> None:
        self.bot = bot

    @app_commands.command(
        name=COMMAND_NAME,
        description=locale_str("What the bot can do in a channel, and the permissions it lacks"),
    )
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.describe(channel=locale_str("The channel to look at (default: this one)"))
    async def permissions(
        self,
        interaction: discord.Interaction[Any],
        channel: discord.TextChannel | discord.Thread | None = None,
    ) -> None:
        tr = reader(interaction)
        guild = interaction.guild
        here = interaction.channel
        if guild is None or guild.me is None or here is None:
            await interaction.response.send_message(refusal("guild_only", tr), ephemeral=True)
            return
        target: Any = here if channel is None else channel
        # In the channel it was typed in, Discord says what the bot may do there; elsewhere the
        # cached roles and overwrites do.
        have = (
            interaction.app_permissions
            if target.id == here.id
            else target.permissions_for(guild.me)
        )
        place = Place(
            have=have,
            server=guild.me.guild_permissions,
            in_thread=isinstance(target, discord.Thread),
            text_channel=isinstance(target, discord.TextChannel),
            pictures_on=await self._pictures_on(target.id),
            me=guild.me,
            champions_role=await self._champions_role(guild),
        )
        spec = capabilities_message(target.mention, capabilities(place), tr)
        await interaction.response.send_message(ephemeral=True, **send_kwargs(spec))

    async def _pictures_on(self, channel_id: int) -> bool:
        settings = await self.bot.store.channel_settings(channel_id)
        return settings.get("pictures", True) is not False

    async def _champions_role(self, guild: discord.Guild) -> discord.Role | None:
        seasons = await self.bot.store.seasons.settings(guild.id)
        if seasons is None or seasons.role_id is None:
            return None
        return guild.get_role(seasons.role_id)


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(PermissionsCog(bot))
