"""/kachuful-settings: this channel's defaults for its next game (Manage Server only).

A command of its own, not a subcommand of /kachuful: Discord's default member permissions
(which hide a command from members without them) apply to top-level commands only, and this
one is hidden from members without Manage Server. The permission is also checked here, from
the member's permissions in this channel (``interaction.permissions``), since a server can
override the default. Settings are stored by Store.set_channel_settings and read by
/kachuful start through Store.channel_settings: they apply to the next game, never to a
running one. Every option, its choices and its words come from the registry (bot.registry).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot import channel_settings, registry, render
from bot.i18n import reader
from bot.render import results_commands
from bot.ui.payloads import send_kwargs

from .slash_options import registry_options

if TYPE_CHECKING:
    from bot.client import KachufulBot

COMMAND_NAME = "kachuful-settings"


class SettingsCog(commands.Cog):
    def __init__(self, bot: KachufulBot) -> None:
        self.bot = bot

    @app_commands.command(
        name=COMMAND_NAME, description=locale_str("This channel's defaults for new Kachuful games")
    )
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.describe(reset=locale_str("Forget every setting of this channel"))
    @registry_options(registry.SETTINGS_OPTIONS)
    async def settings(
        self, interaction: discord.Interaction[Any], reset: bool = False, **changes: Any
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            await interaction.response.send_message(
                render.refusal("guild_only", reader(interaction)), ephemeral=True
            )
            return
        if not interaction.permissions.manage_guild:
            await interaction.response.send_message(
                render.refusal("not_manager", reader(interaction)), ephemeral=True
            )
            return
        store = self.bot.store
        current = {} if reset else await store.channel_settings(interaction.channel_id)
        try:
            merged = channel_settings.merge(current, changes, reader(interaction))
        except channel_settings.BadSetting as error:
            await interaction.response.send_message(
                render.refusal("bad_setting", reader(interaction), problem=str(error)),
                ephemeral=True,
            )
            return
        changed = reset or any(value is not None for value in changes.values())
        if changed:
            await store.set_channel_settings(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                settings=merged,
                updated_by=interaction.user.id,
            )
        spec = results_commands.settings_summary(merged, reader(interaction), changed=changed)
        await interaction.response.send_message(ephemeral=True, **send_kwargs(spec))


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(SettingsCog(bot))
