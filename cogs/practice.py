"""/kachuful practice [game] [deal] [level], Practise this deal (on a replay), and a practice
deal's own buttons: bids, cards, Hint, Play it again, New deal (bot/review/practice.py)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot import render
from bot.i18n import reader
from bot.review.practice import DEFAULT_LEVEL
from bot.ui.custom_ids import NUMBER, custom_id, number
from bot.ui.items import add_feature_items, remove_feature_items
from kachuful_core.players import LEVELS

from .group import KachufulFeature

if TYPE_CHECKING:
    from bot.client import KachufulBot


def _practice(interaction: discord.Interaction[Any]) -> Any:
    return interaction.client.practice


class PractiseButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:pf:(?P<game>{NUMBER}):(?P<deal>{NUMBER})",
):
    """Practise this deal, on a replay: the deal again, from the reader's seat."""

    def __init__(self, game: int, deal: int) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id(("practise", game, deal))))
        self.game, self.deal = game, deal

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PractiseButton:
        return cls(number(match["game"]), number(match["deal"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _practice(interaction).start(interaction, self.game, self.deal, DEFAULT_LEVEL)


class PracticeMoveButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:p(?P<kind>[bc]):(?P<id>{NUMBER}):(?P<ver>{NUMBER}):(?P<value>{NUMBER})",
):
    """A bid or a card of a practice deal."""

    def __init__(self, kind: str, practice: int, version: int, value: int) -> None:
        action = ("pbid" if kind == "b" else "pcard", practice, version, value)
        super().__init__(discord.ui.Button(custom_id=custom_id(action)))
        self.kind, self.practice, self.version, self.value = kind, practice, version, value

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PracticeMoveButton:
        return cls(match["kind"], number(match["id"]), number(match["ver"]), number(match["value"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        kind = "bid" if self.kind == "b" else "card"
        await _practice(interaction).move(
            interaction, self.practice, self.version, kind, self.value
        )


class PracticeHintButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:ph:(?P<id>{NUMBER}):(?P<ver>{NUMBER})",
):
    def __init__(self, practice: int, version: int) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id(("phint", practice, version))))
        self.practice, self.version = practice, version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PracticeHintButton:
        return cls(number(match["id"]), number(match["ver"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _practice(interaction).hint(interaction, self.practice, self.version)


class PracticeAgainButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:pa:(?P<id>{NUMBER}):(?P<fresh>[01])",
):
    """Play it again (0: the same cards) or New deal (1), once a practice deal is over."""

    def __init__(self, practice: int, fresh: int) -> None:
        super().__init__(discord.ui.Button(custom_id=custom_id(("pagain", practice, fresh))))
        self.practice, self.fresh = practice, fresh

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PracticeAgainButton:
        return cls(number(match["id"]), int(match["fresh"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _practice(interaction).again(interaction, self.practice, bool(self.fresh))


ITEMS = (PractiseButton, PracticeMoveButton, PracticeHintButton, PracticeAgainButton)
LEVEL_CHOICES = [
    app_commands.Choice(name=locale_str("Beginner"), value="random"),
    app_commands.Choice(name=locale_str("Casual"), value="heuristic"),
    app_commands.Choice(name=locale_str("Expert"), value="search"),
]


class PracticeCog(KachufulFeature):
    async def cog_load(self) -> None:
        await super().cog_load()
        add_feature_items(self.bot, *ITEMS)

    async def cog_unload(self) -> None:
        remove_feature_items(self.bot, *ITEMS)
        await super().cog_unload()

    @app_commands.command(
        name="practice",
        description=locale_str("Play a deal alone against the computer, unrated, with hints"),
    )
    @app_commands.describe(
        game=locale_str("A finished game's number (default: a fresh deal)"),
        deal=locale_str("The deal of that game (default: its first)"),
        level=locale_str("The computer players' level (default: Expert)"),
    )
    @app_commands.choices(level=LEVEL_CHOICES)
    async def practice(
        self,
        interaction: discord.Interaction[Any],
        game: int | None = None,
        deal: int | None = None,
        level: str = DEFAULT_LEVEL,
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            await interaction.response.send_message(
                render.refusal("guild_only", reader(interaction)), ephemeral=True
            )
            return
        if level not in LEVELS:
            level = DEFAULT_LEVEL
        await self.bot.practice.start(interaction, game, deal, level)


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(PracticeCog(bot))
