"""The /kachuful command group. Thin: each command hands over to the table code (bot.table).

This cog is the group; feature cogs (cogs/leaderboard.py, cogs/stats.py, cogs/history.py) add
their subcommands to it, as cogs/group.py explains. /kachuful-settings, /kachuful-event,
/kachuful-season and /kachuful-scorepad are commands of their own (cogs/settings.py,
cogs/event.py, cogs/season.py, cogs/scorepad.py): Discord counts at most 8,000 characters for
a command with all it holds. Every option, with its choices and descriptions, comes from the
registry (bot/registry.py, through cogs/slash_options.py)."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot import registry, render
from bot.command_translator import naming_permissions
from bot.i18n import N_, language_of, reader
from bot.model import TableOptions
from bot.options import check_start
from bot.store.failures import StoreError
from bot.ui.payloads import send_kwargs
from bot.web.links import table_link

from .slash_options import registry_options

if TYPE_CHECKING:
    from bot.client import KachufulBot
    from bot.table.tables import Tables


@app_commands.guild_only()
class KachufulCog(
    commands.GroupCog, group_name="kachuful", group_description=locale_str("Play Kachuful")
):
    def __init__(self, bot: KachufulBot) -> None:
        self.bot = bot
        super().__init__()
        web = table_link(getattr(bot, "settings", None), 0) is not None
        if not web and self.app_command is not None:
            # /kachuful table is offered only when the web table is on.
            self.app_command.remove_command("table")

    @property
    def tables(self) -> Tables:
        return self.bot.tables

    @app_commands.command(
        name="start", description=locale_str("Open a Kachuful table in this channel")
    )
    @registry_options(registry.START_OPTIONS)
    async def start(self, interaction: discord.Interaction[Any], **typed: Any) -> None:
        typed = {name: value for name, value in typed.items() if value is not None}
        defaults = await channel_defaults(self.bot, interaction)
        # What the member typed wins over the channel's settings (a length typed replaces the
        # channel's largest hand too), which win over the defaults.
        chosen = {**registry.without_replaced(defaults, typed), **typed}
        checked = check_start(
            reader(interaction), **{k: v for k, v in chosen.items() if k in registry.START_OPTIONS}
        )
        if isinstance(checked, str):
            await interaction.response.send_message(checked, ephemeral=True)
            return
        # The table's language for its public messages, kept with its options until the end.
        language = defaults.get("language") or language_of(interaction.guild_locale)
        options = replace(checked.options, **table_settings(defaults), language=language)
        await self.tables.lobby.open(interaction, options, checked.players)

    @app_commands.command(
        name="join", description=locale_str("Take a seat at the table in this channel")
    )
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.lobby.command(interaction, "join")

    @app_commands.command(
        name="leave",
        description=locale_str("Leave the table (in a running game a computer takes over)"),
    )
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.lobby.command(interaction, "leave")

    @app_commands.command(name="hand", description=locale_str("Show your hand (only you see it)"))
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.play.show_hand(interaction, None, edit=False)

    @app_commands.command(
        name="table", description=locale_str("Open this channel's table in your browser")
    )
    async def table(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.read.web_table(interaction)

    @app_commands.command(name="score", description=locale_str("The scores so far"))
    async def score(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.read.score(interaction)

    @app_commands.command(name="rules", description=locale_str("The rules in force at this table"))
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.read.rules(interaction)

    @app_commands.command(
        name="stop",
        description=naming_permissions(
            N_("End the game without a result (host or {manage_guild})")
        ),
    )
    async def stop(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.play.stop(interaction)

    @app_commands.command(name="help", description=locale_str("How to play"))
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            ephemeral=True,
            **send_kwargs(
                render.help_message(
                    reader(interaction), web=table_link(self.bot.settings, 0) is not None
                )
            ),
        )


# The channel settings a table keeps with its options besides /kachuful start's (a running
# game never reads the channel's settings again): the table's other option fields.
_KEPT = tuple(f.name for f in fields(TableOptions) if f.name in registry.OPTIONS)


async def channel_defaults(
    bot: KachufulBot, interaction: discord.Interaction[Any]
) -> dict[str, Any]:
    """This channel's /kachuful-settings, by the registry's option names (for /kachuful start
    and /kachuful-event open)."""
    if interaction.channel_id is None:
        return {}
    try:
        stored = await bot.store.channel_settings(interaction.channel_id)
    except StoreError:
        return {}
    return {
        registry.SETTING_ALIASES.get(setting, setting): value
        for setting, value in stored.items()
        if setting in registry.SETTINGS_OPTIONS
    }


def table_settings(defaults: dict[str, Any]) -> dict[str, Any]:
    """The channel settings a table keeps with its options (lists as tuples)."""
    return {
        name: tuple(value) if isinstance(value, list) else value
        for name, value in defaults.items()
        if name in _KEPT and name not in registry.START_OPTIONS and name != "language"
    }


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(KachufulCog(bot))
