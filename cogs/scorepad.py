"""/kachuful scorepad (a score pad for a game played with a real deck), /kachuful
scorepad-boards (where a server's pads count) and the pad message's buttons
(bot/scorepad/keeper.py)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot import registry, render
from bot.command_translator import naming_permissions
from bot.i18n import N_, language_of, reader
from bot.options import check_start
from bot.render import scorepad as words
from bot.scorepad.model import Board
from bot.ui.custom_ids import NUMBER, custom_id, number
from bot.ui.items import add_feature_items, remove_feature_items

from .group import KachufulFeature
from .kachuful import channel_defaults
from .slash_options import registry_options

if TYPE_CHECKING:
    from bot.client import KachufulBot

ACTS = {"j": "join", "l": "leave", "s": "start", "x": "stop", "b": "bid", "t": "tricks"}
KINDS = {"join": "padjoin", "leave": "padleave", "start": "padstart", "stop": "padstop"}
KINDS |= {"bid": "padbid", "tricks": "padtricks"}


class PadButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:s(?P<act>[jlsxbt]):(?P<id>{NUMBER}):(?P<ver>{NUMBER})(?::(?P<value>{NUMBER}))?",
):
    """Join · Leave · Start · Stop · a bid · a trick count, on a score pad's message."""

    def __init__(self, act: str, pad: int, version: int, value: int | None) -> None:
        action: tuple[str | int, ...] = (KINDS[act], pad, version)
        if value is not None:
            action = (*action, value)
        super().__init__(discord.ui.Button(custom_id=custom_id(action)))
        self.act, self.pad, self.version, self.value = act, pad, version, value

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> PadButton:
        value = None if match["value"] is None else number(match["value"])
        return cls(ACTS[match["act"]], number(match["id"]), number(match["ver"]), value)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if self.act in ("bid", "tricks") and self.value is None:
            await interaction.response.send_message(
                render.refusal("dead_button", reader(interaction)), ephemeral=True
            )
            return
        await interaction.client.scorepads.click(
            interaction, self.pad, self.version, self.act, self.value or 0
        )


Choice = app_commands.Choice
BOARDS = [
    Choice(name=locale_str("With online games"), value="together"),
    Choice(name=locale_str("Apart (boards of their own)"), value="apart"),
]


class ScorePadCog(KachufulFeature):
    async def cog_load(self) -> None:
        await super().cog_load()
        add_feature_items(self.bot, PadButton)

    async def cog_unload(self) -> None:
        remove_feature_items(self.bot, PadButton)
        await super().cog_unload()

    @app_commands.command(
        name="scorepad", description=locale_str("Keep the score of a game played with real cards")
    )
    @registry_options(registry.SCOREPAD_OPTIONS)
    async def scorepad(self, interaction: discord.Interaction[Any], **typed: Any) -> None:
        tr = reader(interaction)
        if interaction.guild_id is None or interaction.channel_id is None:
            await interaction.response.send_message(
                render.refusal("guild_only", tr), ephemeral=True
            )
            return
        checked = check_start(tr, **{k: v for k, v in typed.items() if v is not None})
        if isinstance(checked, str):
            await interaction.response.send_message(checked, ephemeral=True)
            return
        # The pad's public message speaks the channel's language, as a table's would.
        defaults = await channel_defaults(self.bot, interaction)
        language = defaults.get("language") or language_of(interaction.guild_locale)
        options = replace(checked.options, language=language)
        await self.bot.scorepads.open(interaction, options)

    @app_commands.command(
        name="scorepad-boards",
        description=naming_permissions(N_("Where this server's score pads count ({manage_guild})")),
    )
    @app_commands.describe(boards=locale_str("With online games, or on boards of their own"))
    @app_commands.choices(boards=BOARDS)
    async def scorepad_boards(self, interaction: discord.Interaction[Any], boards: str) -> None:
        tr = reader(interaction)
        if interaction.guild_id is None:
            await interaction.response.send_message(
                render.refusal("guild_only", tr), ephemeral=True
            )
            return
        permissions = interaction.permissions
        if not permissions.manage_guild:
            await interaction.response.send_message(
                words.refusal("not_manager", tr), ephemeral=True
            )
            return
        board: Board = "together" if boards == "together" else "apart"
        await self.bot.scorepads.set_board(interaction.guild_id, board)
        await interaction.response.send_message(words.notice(board, tr), ephemeral=True)


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(ScorePadCog(bot))
