"""The bot: opens the store, loads the cog, registers the buttons, restores open tables, and
syncs the slash commands only where asked to."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import render, ui
from bot.settings import Settings
from bot.store import Store, StoreError
from bot.table import Tables
from bot.table.publisher import CHANNEL_POSTS

log = logging.getLogger(__name__)

# cogs.kachuful first: it is the /kachuful group the feature cogs add their commands to.
EXTENSIONS = (
    "cogs.kachuful",
    "cogs.leaderboard",
    "cogs.stats",
    "cogs.history",
    "cogs.settings",
)


class StartupError(Exception):
    """The bot cannot start (e.g. the database cannot be opened); one line for the operator."""


class KachufulTree(app_commands.CommandTree[Any]):
    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """Answer the user privately instead of leaving "The application did not respond"."""
        log.error("command failed", exc_info=error)
        text = render.notice("command_failed")
        if isinstance(error, app_commands.NoPrivateMessage):
            text = render.refusal("guild_only")
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            pass


class KachufulBot(commands.Bot):
    store: Store
    tables: Tables

    def __init__(
        self,
        settings: Settings,
        *,
        new_seed: Callable[[], str] | None = None,
        post_limit: int = CHANNEL_POSTS,
        **options: Any,
    ) -> None:
        # Slash commands and button clicks reach the bot whatever its intents; it reads no
        # message, reaction, member or voice event, so it asks for the guild list only. Each
        # post and edit would otherwise come back as a gateway event to parse and drop.
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            tree_cls=KachufulTree,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
            # The bot never reads discord.py's message cache (clicks carry their message), and
            # a thousand cached posts cost memory and garbage-collection time for nothing.
            **{"max_messages": None, **options},
        )
        self.settings = settings
        self._new_seed = new_seed
        # New messages per channel in 5 s: Discord's limit. (Tests that do not check pacing
        # raise it: a paced post waits on a real-time timer in the simulated Discord.)
        self.post_limit = post_limit
        # Set by the process entry point (not by in-process tests): after start-up, move the
        # long-lived objects (modules, discord.py's state, restored tables) out of the garbage
        # collector's sight, which shortens every full collection while tables are playing.
        self.freeze_gc_after_setup = False
        self.synced: list[str] = []  # where commands were synced, for the log and the tests

    async def setup_hook(self) -> None:
        try:
            self.store = await Store.open(self.settings.db_path, clock=discord.utils.utcnow)
        except (StoreError, OSError) as error:
            raise StartupError(str(error)) from None
        if self._new_seed is not None:
            self.tables = Tables(self, self.store, self.settings, new_seed=self._new_seed)
        else:
            self.tables = Tables(self, self.store, self.settings)
        self.tables.limits.count = self.post_limit
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        ui.register(self)
        await self.tables.restore.run()
        await self.sync_commands()
        if self.freeze_gc_after_setup:
            gc.collect()
            gc.freeze()

    async def sync_commands(self) -> None:
        """Guild sync when KACHUFUL_DEV_GUILD_ID is set (instant, for development); global
        sync only when KACHUFUL_SYNC_GLOBAL=true (it is rate-limited and slow to spread)."""
        guild_id = self.settings.dev_guild_id
        if guild_id is not None:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            commands_synced = await self.tree.sync(guild=guild)
            self.synced.append(f"guild:{guild_id}")
            log.info("synced %d command(s) to guild %s", len(commands_synced), guild_id)
        if self.settings.sync_global:
            commands_synced = await self.tree.sync()
            self.synced.append("global")
            log.info("synced %d global command(s)", len(commands_synced))
        if not self.synced:
            log.info(
                "commands not synced: set KACHUFUL_DEV_GUILD_ID or KACHUFUL_SYNC_GLOBAL=true "
                "when they changed"
            )

    async def on_ready(self) -> None:
        user = self.user
        log.info("ready as %s (%s) in %d server(s)", user, user and user.id, len(self.guilds))

    async def close(self) -> None:
        tables = getattr(self, "tables", None)
        if tables is not None:
            await tables.shutdown()
        store = getattr(self, "store", None)
        try:
            await super().close()
        finally:
            if store is not None:
                await store.close()
