"""The /kachuful command group. Thin: each command hands over to the table code (bot.table).

This cog is the group; feature cogs (cogs/leaderboard.py, cogs/stats.py, cogs/history.py,
cogs/settings.py) add their subcommands to it, as cogs/group.py explains."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import render
from bot.options import check_start
from bot.render.cards import text_suits
from bot.store import StoreError
from bot.ui import send_kwargs

if TYPE_CHECKING:
    from bot.client import KachufulBot
    from bot.table import Tables

Choice = app_commands.Choice

MAX_HAND_CHOICES: list[Choice[int]] = [
    Choice(name="Classic: 10 cards (8 for 6 players, 7 for 7)", value=0)
] + [
    Choice(name=f"{n} card{'s' if n != 1 else ''} (if 52 ÷ players allows)", value=n)
    for n in range(1, 18)
]
SCHEDULE_CHOICES: list[Choice[str]] = [
    Choice(name="Down and up: H…1…H (default)", value="down-up"),
    Choice(name="Down only: H…1", value="down"),
    Choice(name="Double: H…1…H…1…H", value="double"),
]
TRUMP_CHOICES: list[Choice[str]] = [
    Choice(name=text_suits("Cycle ♠ ♦ ♣ ♥ (default)"), value="cycle"),
    Choice(name=text_suits("Cycle ♠ ♦ ♣ ♥ then no-trump"), value="cycle-notrump"),
    Choice(name="Turned card after the deal", value="turned"),
]
SCORING_CHOICES: list[Choice[str]] = [
    Choice(name="Exact: 10 + bid, miss 0 (default)", value="exact"),
    Choice(name="Penalty: 10 + bid, miss −difference", value="penalty"),
    Choice(name="Per trick: tricks, +10 if exact", value="per-trick"),
    Choice(name="Judgement: exact +10, miss −10", value="judgement"),
]
MODE_CHOICES: list[Choice[str]] = [
    Choice(name="A message per trick (default)", value="trick"),
    Choice(name="Compact: one message per deal", value="compact"),
    Choice(name="In a thread opened from the lobby", value="thread"),
]
PLAYER_CHOICES: list[Choice[int]] = [Choice(name=f"{n} seats", value=n) for n in range(3, 8)]


@app_commands.guild_only()
class KachufulCog(commands.GroupCog, group_name="kachuful", group_description="Play Kachuful"):
    def __init__(self, bot: KachufulBot) -> None:
        self.bot = bot
        super().__init__()

    @property
    def tables(self) -> Tables:
        return self.bot.tables

    @app_commands.command(name="start", description="Open a Kachuful table in this channel")
    @app_commands.describe(
        players="Most seats at the table (3–7; default 7)",
        max_hand="Largest hand (default: 52 ÷ players, e.g. 13 for four)",
        schedule="Order of hand sizes",
        trump="How trump is chosen",
        hook="Hook rule: the dealer may not make the bids add up to the tricks (default on)",
        scoring="Scoring",
        blind_bids="Allow bidding before looking (exact blind bids score double; default off)",
        forehead="One-card deal: see everyone's card but your own (default off)",
        mode="How the game is shown: a message per trick, compact, or in a thread",
    )
    @app_commands.choices(players=PLAYER_CHOICES, max_hand=MAX_HAND_CHOICES)
    @app_commands.choices(schedule=SCHEDULE_CHOICES, trump=TRUMP_CHOICES, scoring=SCORING_CHOICES)
    @app_commands.choices(mode=MODE_CHOICES)
    async def start(
        self,
        interaction: discord.Interaction[Any],
        players: int | None = None,
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
        # What the member typed wins over the channel's settings, which win over the defaults.
        chosen = {**defaults, **{k: v for k, v in typed.items() if v is not None}}
        checked = check_start(**{k: v for k, v in chosen.items() if k in (*START_OPTIONS, "mode")})
        if isinstance(checked, str):
            await interaction.response.send_message(checked, ephemeral=True)
            return
        options = {**checked.options, **table_settings(defaults)}
        await self.tables.lobby.open(interaction, options, checked.players)

    @app_commands.command(name="join", description="Take a seat at the table in this channel")
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.lobby.command(interaction, "join")

    @app_commands.command(
        name="leave", description="Leave the table (in a running game a computer takes over)"
    )
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.lobby.command(interaction, "leave")

    @app_commands.command(name="hand", description="Show your hand (only you see it)")
    async def hand(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.play.show_hand(interaction, None, edit=False)

    @app_commands.command(name="score", description="The scores so far")
    async def score(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.read.score(interaction)

    @app_commands.command(name="rules", description="The rules in force at this table")
    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.read.rules(interaction)

    @app_commands.command(
        name="stop", description="End the game without a result (host or Manage Server)"
    )
    async def stop(self, interaction: discord.Interaction[Any]) -> None:
        await self.tables.play.stop(interaction)

    @app_commands.command(name="help", description="How to play")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(
            ephemeral=True, **send_kwargs(render.help_message())
        )

    async def _channel_defaults(self, interaction: discord.Interaction[Any]) -> dict[str, Any]:
        """This channel's /kachuful settings, as /kachuful start options."""
        if interaction.channel_id is None:
            return {}
        try:
            stored = await self.bot.store.channel_settings(interaction.channel_id)
        except StoreError:
            return {}
        defaults = {k: v for k, v in stored.items() if k in START_OPTIONS}
        if "presentation" in stored:
            defaults["mode"] = stored["presentation"]
        for key in ("turn_seconds", "computers", "computer_levels"):
            if key in stored:
                defaults[key] = stored[key]
        return defaults


START_OPTIONS = (
    "players",
    "max_hand",
    "schedule",
    "trump",
    "hook",
    "scoring",
    "blind_bids",
    "forehead",
)


def table_settings(defaults: dict[str, Any]) -> dict[str, Any]:
    """The channel settings a table keeps with its options (a running game never reads the
    channel's settings again)."""
    return {
        k: defaults[k] for k in ("turn_seconds", "computers", "computer_levels") if k in defaults
    }


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(KachufulCog(bot))
