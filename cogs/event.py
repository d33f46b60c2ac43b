"""/kachuful-event …: club play over many tables (docs/events.md). Thin: each subcommand and
the players' buttons hand over to ``bot.club.organiser``; every answer is private.

A command of its own, not a subcommand of /kachuful: Discord counts at most 8,000 characters
for a command with all it holds, and ``open`` carries every table option. It sets no default
member permissions (which would hide it from members without Manage Server): organisers are
also the server's event role and an event's opener, and ``standings`` is for anyone; each
subcommand checks who may use it (bot/club/organiser.py). A server may still restrict the
whole command to some roles in its Integrations settings, apart from /kachuful."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str
from discord.ext import commands

from bot import registry, render
from bot.club.organiser import Organiser, Refused, check_plan
from bot.command_translator import naming_permissions
from bot.i18n import N_, language_of, reader
from bot.options import check_start
from bot.store.failures import StoreError
from bot.table.not_saved import not_saved
from bot.ui.custom_ids import NUMBER, number
from bot.ui.items import add_feature_items, remove_feature_items
from kachuful_core.players import LEVELS

from .kachuful import channel_defaults, table_settings
from .slash_options import registry_options

if TYPE_CHECKING:
    from collections.abc import Awaitable

    from bot.client import KachufulBot

COMMAND_NAME = "kachuful-event"
FORMAT_CHOICES = [
    app_commands.Choice(
        name=locale_str("Rotation: meet new opponents each round"), value="rotation"
    ),
    app_commands.Choice(
        name=locale_str("Duplicate: every table plays the same deals"), value="duplicate"
    ),
]
LEVEL_CHOICES = [
    app_commands.Choice(name=locale_str(registry.LEVEL_NAMES[level]), value=level)
    for level in LEVELS
]
STRONGEST = list(LEVELS)[-1]
EVENT_NUMBER = locale_str("The event's number (default: the newest open event here)")


def organiser(interaction: discord.Interaction[Any]) -> Organiser:
    return interaction.client.organiser  # type: ignore[no-any-return]


async def answer(interaction: discord.Interaction[Any], work: Awaitable[Any]) -> None:
    """Run a command or click and answer it privately: its words, a refusal, or why the
    database could not take it (nothing changed then)."""
    tr = reader(interaction)
    try:
        result = await work
    except Refused as refused:
        result = str(refused)
    except StoreError as error:
        result = not_saved(error, tr) or render.notice("busy_db", tr)
    kwargs = result if isinstance(result, dict) else {"content": result}
    if interaction.response.is_done():
        await interaction.followup.send(ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(ephemeral=True, **kwargs)


class EventButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"kf:e:(?P<act>register|withdraw|remind):(?P<event>{NUMBER})",
):
    """Register · Withdraw · Remind me by DM, on an event's message."""

    def __init__(self, act: str, event: int) -> None:
        super().__init__(discord.ui.Button(custom_id=f"kf:e:{act}:{event}"))
        self.act, self.event = act, event

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> EventButton:
        return cls(match["act"], number(match["event"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await answer(interaction, organiser(interaction).entry(interaction, self.event, self.act))


class EventCog(commands.Cog):
    # Servers only, as /kachuful is.
    event = app_commands.guild_only(
        app_commands.Group(
            name=COMMAND_NAME,
            description=locale_str("Events over many tables: rounds, duplicate, standings"),
        )
    )

    def __init__(self, bot: KachufulBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        add_feature_items(self.bot, EventButton)

    async def cog_unload(self) -> None:
        remove_feature_items(self.bot, EventButton)

    @event.command(
        name="open", description=locale_str("Open an event in this channel (organisers)")
    )
    @app_commands.describe(
        name=locale_str("The event's name"),
        format=locale_str("Rotation (default) or duplicate"),
        rounds=locale_str("How many rounds (default 3)"),
        level=locale_str("The computer players who fill seats (default: the strongest)"),
        starts=locale_str("Start time: YYYY-MM-DD HH:MM in UTC, or a Discord timestamp"),
    )
    @app_commands.choices(format=FORMAT_CHOICES, level=LEVEL_CHOICES)
    @registry_options(registry.EVENT_OPTIONS)
    async def open(
        self,
        interaction: discord.Interaction[Any],
        name: str,
        format: str = "rotation",
        rounds: app_commands.Range[int, 1, 20] = 3,
        level: str = STRONGEST,
        starts: str | None = None,
        **typed: Any,
    ) -> None:
        await answer(
            interaction, self._open(interaction, name, format, rounds, level, starts, typed)
        )

    async def _open(
        self,
        interaction: discord.Interaction[Any],
        name: str,
        format: str,
        rounds: int,
        level: str,
        starts: str | None,
        typed: dict[str, Any],
    ) -> str:
        tr = reader(interaction)
        typed = {k: v for k, v in typed.items() if v is not None}
        chosen = {**registry.without_replaced(registry.EVENT_DEFAULTS, typed), **typed}
        checked = check_start(tr, **chosen)
        if isinstance(checked, str):
            raise Refused(checked)
        defaults = await channel_defaults(self.bot, interaction)
        language = defaults.get("language") or language_of(interaction.guild_locale)
        options = replace(
            checked.options, **table_settings(defaults), language=language, mode="trick"
        )
        plan = check_plan(
            tr,
            name=name,
            format=format,
            rounds=rounds,
            level=level,
            table_size=checked.players,
            options=options,
            starts=starts,
            now=discord.utils.utcnow(),
        )
        return await organiser(interaction).open(interaction, plan)

    @event.command(name="start", description=locale_str("Seat the first round (organisers)"))
    @app_commands.describe(event=EVENT_NUMBER)
    async def start(self, interaction: discord.Interaction[Any], event: int | None = None) -> None:
        await answer(interaction, organiser(interaction).start(interaction, event))

    @event.command(
        name="standings", description=locale_str("An event's standings (only you see them)")
    )
    @app_commands.describe(event=EVENT_NUMBER)
    async def standings(
        self, interaction: discord.Interaction[Any], event: int | None = None
    ) -> None:
        await answer(interaction, organiser(interaction).standings(interaction, event))

    @event.command(
        name="pause", description=locale_str("Seat no new round until resumed (organisers)")
    )
    @app_commands.describe(event=EVENT_NUMBER)
    async def pause(self, interaction: discord.Interaction[Any], event: int | None = None) -> None:
        await answer(interaction, organiser(interaction).pause(interaction, event))

    @event.command(name="resume", description=locale_str("Go on with a paused event (organisers)"))
    @app_commands.describe(event=EVENT_NUMBER)
    async def resume(self, interaction: discord.Interaction[Any], event: int | None = None) -> None:
        await answer(interaction, organiser(interaction).resume(interaction, event))

    @event.command(
        name="drop",
        description=locale_str("Take a player out; a computer takes their seat (organisers)"),
    )
    @app_commands.describe(player=locale_str("The player to take out"), event=EVENT_NUMBER)
    async def drop(
        self,
        interaction: discord.Interaction[Any],
        player: discord.User,
        event: int | None = None,
    ) -> None:
        await answer(interaction, organiser(interaction).drop(interaction, event, player))

    @event.command(name="close", description=locale_str("End the event now (organisers)"))
    @app_commands.describe(event=EVENT_NUMBER)
    async def close(self, interaction: discord.Interaction[Any], event: int | None = None) -> None:
        await answer(interaction, organiser(interaction).close(interaction, event))

    @event.command(
        name="role",
        description=naming_permissions(
            N_("The role whose members may organise events ({manage_guild})")
        ),
    )
    @app_commands.describe(role=naming_permissions(N_("Leave empty: {manage_guild} only")))
    async def role(
        self, interaction: discord.Interaction[Any], role: discord.Role | None = None
    ) -> None:
        await answer(interaction, organiser(interaction).set_role(interaction, role))


async def setup(bot: KachufulBot) -> None:
    await bot.add_cog(EventCog(bot))
