"""How several cogs add subcommands to the one ``/kachuful`` group.

``cogs.kachuful.KachufulCog`` is a ``GroupCog``: discord.py makes it the ``/kachuful`` group
(its ``app_command``). A feature cog (leaderboard, stats, history, ...) subclasses
:class:`KachufulFeature` and declares its commands with ``@app_commands.command`` as any cog
does. When the cog is added, :meth:`KachufulFeature.cog_load` (which discord.py calls before
it registers a cog's commands) attaches each of them to the group with the public
``Group.add_command`` and records the group as the cog's own ``__cog_app_commands_group__``;
discord.py then treats the cog like a group cog and does not add its commands at the top
level a second time. ``cog_unload`` takes them off the group again, so an extension can be
reloaded. The commands stay bound to their own cog (``self`` is the feature cog), inherit the
group's ``guild_only``, and sync as subcommands: ``/kachuful leaderboard``, ``/kachuful stats``.

/kachuful holds a table's commands and a player's own results. A feature whose options or
audience are its own (organisers' events, seasons, the score pad) is a top-level command in a
``commands.Cog`` instead (cogs/event.py): Discord counts at most 8,000 characters for a
command with all it holds, and tests/bot/test_commands.py keeps each within 85 % of that.

The kachuful extension must be loaded first (``bot.extensions.walk`` puts a module holding a
``GroupCog`` before the others); otherwise there is no group to attach to and loading the
feature fails loudly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import LANGUAGE_NAMES, Translations, language_of, translation
from bot.store.failures import StoreError

if TYPE_CHECKING:
    from bot.client import KachufulBot

GROUP_NAME = "kachuful"


async def channel_translations(
    bot: KachufulBot, interaction: discord.Interaction[Any]
) -> Translations:
    """A public answer's language (a leaderboard, the history, statistics): the channel's
    language setting, else the server's language, else English, as a table's would be."""
    language = None
    if interaction.channel_id is not None:
        try:
            language = (await bot.store.channel_settings(interaction.channel_id)).get("language")
        except StoreError:
            language = None
    if language not in LANGUAGE_NAMES:
        language = language_of(interaction.guild_locale)
    return translation(language)


def kachuful_group(bot: commands.Bot) -> app_commands.Group:
    group = bot.tree.get_command(GROUP_NAME)
    if not isinstance(group, app_commands.Group):
        raise RuntimeError("the /kachuful group is not loaded: load cogs.kachuful first")
    return group


class KachufulFeature(commands.Cog):
    """A cog whose slash commands are subcommands of ``/kachuful``."""

    def __init__(self, bot: KachufulBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        group = kachuful_group(self.bot)
        for command in self._own_commands():
            group.add_command(command)
        # discord.py adds a cog's commands at the top level unless the cog has a group.
        self.__cog_app_commands_group__ = group

    async def cog_unload(self) -> None:
        group = self.__cog_app_commands_group__
        if group is not None:
            for command in self._own_commands():
                name: str = command.name
                if group.get_command(name) is command:
                    group.remove_command(name)

    def _own_commands(self) -> list[Any]:
        # The cog's bound copies of its commands (get_app_commands() lists only those without
        # a parent, so not these once they are attached).
        return list(self.__cog_app_commands__)
