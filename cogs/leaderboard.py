"""/kachuful leaderboard: a channel's or the server's players, 10 a page, with Previous/Next.

Read only: it reads the aggregates on the store's read-only connection and never takes a
table's lock or the writer's. The page buttons are DynamicItems whose custom_id carries the
whole query (scope, period, sort, page), so they keep working after a restart, and each
click reads the board afresh.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot import render
from bot.i18n import Translations, reader
from bot.places import place_of
from bot.render import results_commands
from bot.render import scorepad as scorepad_words
from bot.result_pages import PERIOD_LABELS, SCOPE_LABELS, SORT_LABELS
from bot.store.reads import PERIODS, SCOPES, SORTS
from bot.ui.items import add_feature_items, remove_feature_items
from bot.ui.payloads import page_buttons

from .group import KachufulFeature, channel_translations
from .season import season_board

if TYPE_CHECKING:
    from bot.client import KachufulBot

Choice = app_commands.Choice


def _choices(labels: Mapping[Any, str]) -> list[Choice[str]]:
    return [Choice(name=locale_str(label), value=value) for value, label in labels.items()]


SCOPE_CHOICES = _choices(SCOPE_LABELS)
# The server's current season (cogs/season.py) is one more period, on a board of its own.
SEASON = "season"
PERIOD_CHOICES = [
    *_choices(PERIOD_LABELS),
    Choice(name=locale_str("This server's current season"), value=SEASON),
]
SORT_CHOICES = _choices(SORT_LABELS)


CARDS_CHOICES = [
    Choice(name=locale_str("Online games"), value="online"),
    Choice(name=locale_str(scorepad_words.REAL_DECK), value="real"),
]


def page_custom_id(
    direction: str, scope: str, period: str, sort: str, page: int, cards: str = "online"
) -> str:
    """The custom_id of a page button (ASCII, at most 40 characters; ":r" for the boards of
    games played with a real deck)."""
    suffix = ":r" if cards == "real" else ""
    return f"kf:lb:{direction}:{scope}:{period}:{sort}:{page}{suffix}"


def bad_option(scope: str, period: str, sort: str, tr: Translations) -> str | None:
    """The refusal for an option value outside the choices (choices can be bypassed)."""
    for name, value, allowed in (
        ("scope", scope, SCOPES),
        ("period", period, tuple(PERIODS)),
        ("sort", sort, SORTS),
    ):
        if value not in allowed:
            return render.refusal("bad_option", tr, name=name, choices=", ".join(allowed))
    return None


async def board_message(
    bot: KachufulBot,
    interaction: discord.Interaction[Any],
    scope: str,
    period: str,
    sort: str,
    page: int,
    cards: str = "online",
) -> dict[str, Any]:
    place = place_of(interaction)
    assert interaction.guild_id is not None and place is not None
    kept = await bot.scorepads.board(interaction.guild_id)
    # Score pads kept apart count under the server's id negated (bot/scorepad/model.py).
    guild_id = -interaction.guild_id if cards == "real" else interaction.guild_id
    # In the thread a table's lobby opened, the board its games count on: the lobby's channel.
    channel_id = place.id
    if scope == "channel":
        channel_id = await bot.store.reads.board_channel(place.id, place.parent_id)
    board = await bot.store.reads.leaderboard(
        guild_id=guild_id,
        channel_id=channel_id,
        scope=scope,  # type: ignore[arg-type]  # checked by bad_option
        period=period,  # type: ignore[arg-type]
        sort=sort,  # type: ignore[arg-type]
        page=page,
        viewer_id=interaction.user.id,
    )
    tr = await channel_translations(bot, interaction)
    spec = results_commands.leaderboard(board, tr, viewer_name=interaction.user.display_name)
    note = scorepad_words.board_note(cards, kept, tr)
    if note is not None and spec.embeds:
        spec.embeds[0].add_field(name="\u200b", value=note, inline=False)
    view = page_buttons(
        board.page,
        board.pages,
        lambda direction, target: page_custom_id(direction, scope, period, sort, target, cards),
        tr,
    )
    message: dict[str, Any] = {
        "embeds": list(spec.embeds),
        "allowed_mentions": spec.allowed_mentions,
    }
    if view is not None:
        message["view"] = view
    return message


class LeaderboardPageButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"kf:lb:(?P<dir>[pn]):(?P<scope>\w{1,10}):(?P<period>\w{1,10}):(?P<sort>\w{1,10}):(?P<page>\d{1,9})(?P<real>:r)?",
):
    """Previous / Next under a leaderboard: redraws the message with that page."""

    def __init__(
        self, direction: str, scope: str, period: str, sort: str, page: int, cards: str = "online"
    ) -> None:
        super().__init__(
            discord.ui.Button(custom_id=page_custom_id(direction, scope, period, sort, page, cards))
        )
        self.scope, self.period, self.sort, self.page = scope, period, sort, page
        self.cards = cards

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LeaderboardPageButton:
        cards = "real" if match["real"] else "online"
        return cls(
            match["dir"], match["scope"], match["period"], match["sort"], int(match["page"]), cards
        )

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        problem = bad_option(self.scope, self.period, self.sort, reader(interaction))
        if interaction.guild_id is None:
            problem = render.refusal("guild_only", reader(interaction))
        if problem is not None:
            await interaction.response.send_message(problem, ephemeral=True)
            return
        try:
            message = await board_message(
                interaction.client,
                interaction,
                self.scope,
                self.period,
                self.sort,
                self.page,
                self.cards,
            )
            # view=None takes the buttons off if the board has shrunk to one page.
            await interaction.response.edit_message(**{"view": None, **message})
        except Exception:
            with contextlib.suppress(discord.HTTPException):
                if not interaction.response.is_done():
                    await interaction.response.send_message(
                        render.refusal("board_unreadable", reader(interaction)), ephemeral=True
                    )
            raise


class LeaderboardCog(KachufulFeature):
    async def cog_load(self) -> None:
        await super().cog_load()
        add_feature_items(self.bot, LeaderboardPageButton)

    async def cog_unload(self) -> None:
        remove_feature_items(self.bot, LeaderboardPageButton)
        await super().cog_unload()

    @app_commands.command(name="leaderboard", description=locale_str("The best players"))
    @app_commands.describe(
        scope=locale_str("This channel (default) or the whole server"),
        period=locale_str("All time (default), the last 30 or 7 days, or the current season"),
        sort=locale_str("Rating (default), wins, average score or exact-bid rate"),
        cards=locale_str("Online games (default), or games played with a real deck"),
    )
    @app_commands.choices(
        scope=SCOPE_CHOICES, period=PERIOD_CHOICES, sort=SORT_CHOICES, cards=CARDS_CHOICES
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        scope: str = "channel",
        period: str = "all",
        sort: str = "rating",
        cards: str = "online",
    ) -> None:
        if period == SEASON and interaction.guild_id is not None:
            await interaction.response.send_message(**await season_board(self.bot, interaction))
            return
        problem = bad_option(scope, period, sort, reader(interaction))
        if interaction.guild_id is None or interaction.channel_id is None:
            problem = render.refusal("guild_only", reader(interaction))
        if problem is not None:
            await interaction.response.send_message(problem, ephemeral=True)
            return
        if cards not in ("online", "real"):
            cards = "online"
        message = await board_message(self.bot, interaction, scope, period, sort, 0, cards)
        await interaction.response.send_message(**message)


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(LeaderboardCog(bot))
