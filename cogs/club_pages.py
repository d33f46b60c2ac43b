"""/kachuful-club: this server's club pages on the web (docs/web.md#club-pages), and who may
read them: its members after a Discord login (the default), or anyone with the link.

A command of its own, not a subcommand of /kachuful: like /kachuful-settings it is for the
server's managers (Discord hides a top-level command from members without its default
member permissions, Manage Server here), and it spares /kachuful's size. Without an option it
only answers with the pages' address and who may read them; a change is checked again here
(a server may open the command to other members). The setting is kept whether or not the
bot's web server is on, and the answer says when it is off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot.i18n import reader
from bot.render import refusal
from bot.render.club_pages import club_pages_answer, not_manager
from bot.web.club.access import MEMBERS, PUBLIC, set_visibility, visibility
from bot.web.club.links import club_base, club_url

if TYPE_CHECKING:
    from bot.client import KachufulBot

COMMAND_NAME = "kachuful-club"

PAGES_CHOICES = [
    app_commands.Choice(
        name=locale_str("Members of this server, after a Discord login"), value=MEMBERS
    ),
    app_commands.Choice(name=locale_str("Anyone with the link"), value=PUBLIC),
]


class ClubPagesCog(commands.Cog):
    def __init__(self, bot: KachufulBot) -> None:
        self.bot = bot

    @app_commands.command(
        name=COMMAND_NAME,
        description=locale_str("This server's club pages on the web, and who may read them"),
    )
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.describe(pages=locale_str("Who may read the club pages (default: members)"))
    @app_commands.choices(pages=PAGES_CHOICES)
    async def club(self, interaction: discord.Interaction[Any], pages: str | None = None) -> None:
        tr = reader(interaction)
        guild_id = interaction.guild_id
        if guild_id is None:
            await interaction.response.send_message(refusal("guild_only", tr), ephemeral=True)
            return
        if pages is not None:
            if not interaction.permissions.manage_guild:
                await interaction.response.send_message(not_manager(tr), ephemeral=True)
                return
            if pages not in (MEMBERS, PUBLIC):
                pages = MEMBERS
            await set_visibility(self.bot.store, guild_id, pages)
        base = club_base(self.bot.settings)
        text = club_pages_answer(
            await visibility(self.bot.store, guild_id),
            None if base is None else club_url(base, guild_id),
            tr,
            changed=pages is not None,
        )
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(ClubPagesCog(bot))
