"""/kachuful settings: this channel's defaults for its next game (Manage Server only).

The permission is checked here, from the member's permissions in this channel
(``interaction.permissions``), not only by Discord's default permissions, which a server can
override. Settings are stored by Store.set_channel_settings and read by /kachuful start
through Store.channel_settings: they apply to the next game, never to a running one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot import channel_settings
from bot.render import stats as words
from bot.ui import send_kwargs

from .group import KachufulFeature
from .kachuful import (
    MAX_HAND_CHOICES,
    MODE_CHOICES,
    PLAYER_CHOICES,
    SCHEDULE_CHOICES,
    SCORING_CHOICES,
    TRUMP_CHOICES,
)

if TYPE_CHECKING:
    from bot.client import KachufulBot

Choice = app_commands.Choice


class SettingsCog(KachufulFeature):
    @app_commands.command(
        name="settings", description="This channel's defaults for new games (Manage Server)"
    )
    @app_commands.describe(
        presentation="How a game is shown",
        turn_seconds="Turn clock in seconds (15-600)",
        computers="Whether computer players may join",
        computer_levels="Computer levels allowed, comma-separated: random, heuristic, search",
        players="Most seats",
        max_hand="Largest hand",
        schedule="Order of hand sizes",
        trump="How trump is chosen",
        scoring="Scoring",
        hook="Hook rule",
        blind_bids="Allow blind bids",
        forehead="Forehead one-card deal",
        reset="Forget every setting of this channel",
    )
    @app_commands.choices(players=PLAYER_CHOICES, max_hand=MAX_HAND_CHOICES)
    @app_commands.choices(
        presentation=MODE_CHOICES,
        schedule=SCHEDULE_CHOICES,
        trump=TRUMP_CHOICES,
        scoring=SCORING_CHOICES,
    )
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        presentation: str | None = None,
        turn_seconds: int | None = None,
        computers: bool | None = None,
        computer_levels: str | None = None,
        players: int | None = None,
        max_hand: int | None = None,
        schedule: str | None = None,
        trump: str | None = None,
        scoring: str | None = None,
        hook: bool | None = None,
        blind_bids: bool | None = None,
        forehead: bool | None = None,
        reset: bool = False,
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            await interaction.response.send_message(words.refusal("guild_only"), ephemeral=True)
            return
        if not interaction.permissions.manage_guild:
            await interaction.response.send_message(words.refusal("not_manager"), ephemeral=True)
            return
        changes = {
            "presentation": presentation,
            "turn_seconds": turn_seconds,
            "computers": computers,
            "computer_levels": computer_levels,
            "players": players,
            "max_hand": max_hand,
            "schedule": schedule,
            "trump": trump,
            "scoring": scoring,
            "hook": hook,
            "blind_bids": blind_bids,
            "forehead": forehead,
        }
        store = self.bot.store
        current = {} if reset else await store.channel_settings(interaction.channel_id)
        try:
            merged = channel_settings.merge(current, changes)
        except channel_settings.BadSetting as error:
            await interaction.response.send_message(
                words.refusal("bad_setting", problem=str(error)), ephemeral=True
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
        spec = words.settings_summary(merged, changed=changed)
        await interaction.response.send_message(ephemeral=True, **send_kwargs(spec))


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(SettingsCog(bot))
