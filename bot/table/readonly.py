"""Read-only commands about the table in this channel: /kachuful score and /kachuful rules.
They never take a table's lock."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import discord

from bot import render
from bot.render.specs import MessageSpec
from bot.ui import send_kwargs

if TYPE_CHECKING:
    from .tables import Tables


class ReadOnly:
    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def score(self, interaction: discord.Interaction[Any]) -> None:
        session = self.tables.session_in(interaction.channel_id)
        if session is None:
            missing = self.tables.missing(channel_id=interaction.channel_id)
            await self.tables.refuse(interaction, missing)
            return
        if session.game is None:
            await self.tables.refuse(interaction, "not_running")
            return
        spec = render.scoreboard(session.row, session.game)
        await interaction.response.send_message(ephemeral=True, **send_kwargs(spec))

    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        session = self.tables.session_in(interaction.channel_id)
        if session is not None and session.game is not None:
            spec = render.game_rules(session.game)
        elif session is not None:
            spec = render.lobby_rules(session.row.rules)
        else:
            spec = render.general_rules()
        await interaction.response.send_message(ephemeral=True, **send_kwargs(spec))

    async def leaderboard(self, interaction: discord.Interaction[Any], scope: str) -> None:
        if interaction.guild_id is None:
            await self.tables.refuse(interaction, "guild_only")
            return
        channel_id = interaction.channel_id if scope == "channel" else None
        board = await self.tables.store.leaderboard(
            guild_id=interaction.guild_id, channel_id=channel_id
        )
        spec = render.leaderboard(board, scope=scope)
        await interaction.response.send_message(**send_kwargs(spec))

    async def export(self, interaction: discord.Interaction[Any]) -> None:
        """The record of the channel's last finished game (it shows every hand as dealt)."""
        if interaction.channel_id is None:
            await self.tables.refuse(interaction, "guild_only")
            return
        row = await self.tables.store.latest_game_in_channel(interaction.channel_id)
        if row is None or row.record is None:
            await self.tables.refuse(interaction, "no_finished_game")
            return
        data = json.dumps(row.record, indent=2, ensure_ascii=False).encode()
        spec = MessageSpec(
            content=render.notice("export", game=row.id),
            attachment=(f"kachuful-game-{row.id}.json", data),
        )
        await interaction.response.send_message(ephemeral=True, **send_kwargs(spec))
