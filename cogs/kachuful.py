"""The /kachuful command group. Thin: each command hands over to the table code (bot.table).

This cog is the group; feature cogs (cogs/leaderboard.py, cogs/stats.py, cogs/history.py) add
their subcommands to it, as cogs/group.py explains. /kachuful-settings is a command of its own
(cogs/settings.py). Every option's choices and descriptions come from the registry
(bot/registry.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot import registry, render
from bot.command_translator import choice_str
from bot.i18n import language_of, reader
from bot.options import check_start
from bot.store import StoreError
from bot.ui.payloads import send_kwargs

if TYPE_CHECKING:
    from bot.client import KachufulBot
    from bot.table import Tables

Choice = app_commands.Choice


def slash_choices(name: str) -> list[Choice[Any]]:
    """An option's choices as the slash command shows them, from the registry (translated by
    bot.command_translator)."""
    option = registry.option(name)
    return [Choice(name=choice_str(name, c), value=c.value) for c in option.choices]


def described(*names: str) -> dict[str, locale_str]:
    """The slash command's description of each option, from the registry."""
    return {name: locale_str(registry.option(name).describe) for name in names}


@app_commands.guild_only()
class KachufulCog(
    commands.GroupCog, group_name="kachuful", group_description=locale_str("Play Kachuful")
):
    def __init__(self, bot: KachufulBot) -> None:
        self.bot = bot
        super().__init__()

    @property
    def tables(self) -> Tables:
        return self.bot.tables

    @app_commands.command(
        name="start", description=locale_str("Open a Kachuful table in this channel")
    )
    @app_commands.describe(**described(*registry.START_OPTIONS))
    @app_commands.choices(
        **{
            name: slash_choices(name)
            for name in registry.START_OPTIONS
            if registry.option(name).choices
        }
    )
    async def start(
        self,
        interaction: discord.Interaction[Any],
        players: int | None = None,
        length: str | None = None,
        max_hand: int | None = None,
        schedule: str | None = None,
        trump: str | None = None,
        hook: bool | None = None,
        scoring: str | None = None,
        blind_bids: bool | None = None,
        forehead: bool | None = None,
        mode: str | None = None,
    ) -> None:
        typed = {
            "players": players,
            "length": length,
            "max_hand": max_hand,
            "schedule": schedule,
            "trump": trump,
            "hook": hook,
            "scoring": scoring,
            "blind_bids": blind_bids,
            "forehead": forehead,
            "mode": mode,
        }
        defaults = await self._channel_defaults(interaction)
        if length is not None or max_hand is not None:
            # One choice, two ways to say it: what the member typed replaces the channel's.
            defaults.pop("length", None)
            defaults.pop("max_hand", None)
        # What the member typed wins over the channel's settings, which win over the defaults.
        chosen = {**defaults, **{k: v for k, v in typed.items() if v is not None}}
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

    @app_commands.command(name="score", description=locale_str("The scores so far"))
    async def score(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.read.score(interaction)

    @app_commands.command(name="rules", description=locale_str("The rules in force at this table"))
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.read.rules(interaction)

    @app_commands.command(
        name="stop", description=locale_str("End the game without a result (host or Manage Server)")
    )
    async def stop(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.play.stop(interaction)

    @app_commands.command(name="help", description=locale_str("How to play"))
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            ephemeral=True, **send_kwargs(render.help_message(reader(interaction)))
        )

    async def _channel_defaults(self, interaction: discord.Interaction[Any]) -> dict[str, Any]:
        """This channel's /kachuful-settings, as /kachuful start options."""
        if interaction.channel_id is None:
            return {}
        try:
            stored = await self.bot.store.channel_settings(interaction.channel_id)
        except StoreError:
            return {}
        defaults = {k: v for k, v in stored.items() if k in START_OPTIONS}
        if "presentation" in stored:
            defaults["mode"] = stored["presentation"]
        for key in ("turn_seconds", "computers", "computer_levels", "language"):
            if key in stored:
                defaults[key] = stored[key]
        return defaults


# The /kachuful-settings that are /kachuful start options (the others stay with the table).
START_OPTIONS = tuple(name for name in registry.START_OPTIONS if name != "mode")


def table_settings(defaults: dict[str, Any]) -> dict[str, Any]:
    """The channel settings a table keeps with its options (a running game never reads the
    channel's settings again)."""
    kept: dict[str, Any] = {k: defaults[k] for k in ("turn_seconds", "computers") if k in defaults}
    if "computer_levels" in defaults:
        kept["computer_levels"] = tuple(defaults["computer_levels"])
    return kept


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(KachufulCog(bot))
