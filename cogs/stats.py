"""/kachuful stats [member]: a player's figures in this server (read only, on the store's
read-only connection; never a table's lock)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot import render
from bot.i18n import reader
from bot.render import results_commands
from bot.ui.payloads import send_kwargs

from .group import KachufulFeature

if TYPE_CHECKING:
    from bot.client import KachufulBot


class StatsCog(KachufulFeature):
    @app_commands.command(
        name="stats", description=locale_str("A player's statistics in this server")
    )
    @app_commands.describe(member=locale_str("Whose statistics (default: yours)"))
    async def stats(
        self, interaction: discord.Interaction[Any], member: discord.Member | None = None
    ) -> None:
        if interaction.guild_id is None:
            await interaction.response.send_message(
                render.refusal("guild_only", reader(interaction)), ephemeral=True
            )
            return
        user = member or interaction.user
        found = await self.bot.store.reads.player_stats(
            guild_id=interaction.guild_id, user_id=user.id
        )
        if found is None:
            name = discord.utils.escape_markdown(user.display_name)
            await interaction.response.send_message(
                render.refusal("no_stats", reader(interaction), name=name), ephemeral=True
            )
            return
        # Only the asker sees it, in their own language: a player checking figures does not
        # post into the channel the game is read in.
        spec = results_commands.player_stats(found, reader(interaction), name=user.display_name)
        await interaction.response.send_message(ephemeral=True, **send_kwargs(spec))


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(StatsCog(bot))
