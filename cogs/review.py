"""/kachuful review [game], and the Review, Previous, Next and Replay buttons: a finished
game's review and replay, privately (bot/review/pages.py)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot import render
from bot.i18n import reader
from bot.review.pages import show_replay, show_review
from bot.ui.custom_ids import NUMBER, custom_id, number
from bot.ui.items import add_feature_items, remove_feature_items

from .group import KachufulFeature

if TYPE_CHECKING:
    from bot.client import KachufulBot


class ReviewButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:rv:(?P<game>{NUMBER}):(?P<page>{NUMBER})",
):
    """Review (on the final standings), and Previous / Next through a review's pages."""

    def __init__(self, game: int, page: int) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id(("review", game, page))))
        self.game, self.page = game, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ReviewButton:
        return cls(number(match["game"]), number(match["page"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = interaction.client
        await show_review(bot.store, bot.reviewer, interaction, self.game, self.page)


class ReplayButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:rp:(?P<game>{NUMBER}):(?P<step>{NUMBER})",
):
    """Replay, and Previous / Next through a replay's steps."""

    def __init__(self, game: int, step: int) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id(("replay", game, step))))
        self.game, self.step = game, step

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ReplayButton:
        return cls(number(match["game"]), number(match["step"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await show_replay(interaction.client.store, interaction, self.game, self.step)


class ReviewCog(KachufulFeature):
    async def cog_load(self) -> None:
        await super().cog_load()
        add_feature_items(self.bot, ReviewButton, ReplayButton)

    async def cog_unload(self) -> None:
        remove_feature_items(self.bot, ReviewButton, ReplayButton)
        await super().cog_unload()

    @app_commands.command(
        name="review",
        description=locale_str("A finished game's review and replay (default: the last here)"),
    )
    @app_commands.describe(game=locale_str("The game's number (see /kachuful history)"))
    async def review(self, interaction: discord.Interaction[Any], game: int | None = None) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            await interaction.response.send_message(
                render.refusal("guild_only", reader(interaction)), ephemeral=True
            )
            return
        await show_review(self.bot.store, self.bot.reviewer, interaction, game, 0)


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(ReviewCog(bot))
