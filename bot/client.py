"""The bot: opens the store, loads the cog, registers the buttons, restores open tables, and
syncs the slash commands when they changed."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import command_sync, extensions, render
from bot.club.conductor import Conductor
from bot.club.organiser import Organiser
from bot.club.seasons import SeasonKeeper
from bot.command_translator import CommandTranslator
from bot.config import Settings
from bot.health import HEARTBEAT_SECONDS
from bot.i18n import reader
from bot.identify import IDENTIFY_SPACING_SECONDS, IdentifyGate
from bot.review.practice import Practice
from bot.review.reviewer import Reviewer
from bot.scorepad.keeper import ScorePadKeeper
from bot.shards import Shards
from bot.store.failures import StoreError, is_expected
from bot.store.protocol import GameStore
from bot.store.store import Store
from bot.table.hands import HAND_WATCH_SECONDS
from bot.table.not_saved import not_saved
from bot.table.publisher import CHANNEL_POSTS
from bot.table.tables import Tables
from bot.ui import items as ui_items

if TYPE_CHECKING:
    from bot.web.server import WebServer

log = logging.getLogger(__name__)


class StartupError(Exception):
    """The bot cannot start (e.g. the database cannot be opened); one line for the operator."""


class KachufulTree(app_commands.CommandTree[Any]):
    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """Answer the user privately instead of leaving "The application did not respond".
        A storage failure (the disk is full...) is told in plain words, without a traceback:
        the store logs each incident once."""
        original = getattr(error, "original", error)
        tr = reader(interaction)
        stored = not_saved(original, tr)
        if stored is not None:
            text = stored
            if not is_expected(original):
                log.warning("command failed: %s: %s", type(original).__name__, original)
        else:
            log.error("command failed", exc_info=error)
            text = render.notice("command_failed", tr)
        if isinstance(error, app_commands.NoPrivateMessage):
            text = render.refusal("guild_only", tr)
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            pass


class KachufulBot(commands.Bot):
    store: GameStore
    tables: Tables
    reviewer: Reviewer
    practice: Practice
    scorepads: ScorePadKeeper
    web: WebServer | None

    def __init__(
        self,
        settings: Settings,
        *,
        new_seed: Callable[[], str] | None = None,
        store: GameStore | None = None,
        post_limit: int = CHANNEL_POSTS,
        hand_delay: float = HAND_WATCH_SECONDS,
        **options: Any,
    ) -> None:
        # Slash commands and button clicks reach the bot whatever its intents; it reads no
        # message, reaction, member or voice event, so it asks for the guild list only. Each
        # post and edit would otherwise come back as a gateway event to parse and drop.
        # This bot has no voice: discord.py's warnings that the voice libraries are missing
        # would only alarm whoever reads the log.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
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
        # The process entry point opens (and checks) the database before logging in, so that
        # a bad file is refused without touching Discord; tests let setup_hook open it.
        if store is not None:
            self.store = store
        self._shutdown: asyncio.Task[None] | None = None
        # New messages per channel in 5 s: Discord's limit. (Tests that do not check pacing
        # raise it: a paced post waits on a real-time timer in the simulated Discord.)
        self.post_limit = post_limit
        # A watching player's hand message is redrawn at most this often (tests that do not
        # check it redraw at once: the pause is a real-time timer in the simulated Discord).
        self.hand_delay = hand_delay
        # Set by the process entry point (not by in-process tests): after start-up, move the
        # long-lived objects (modules, discord.py's state, restored tables) out of the garbage
        # collector's sight, which shortens every full collection while tables are playing.
        self.freeze_gc_after_setup = False
        self.synced: list[str] = []  # where commands were synced, for the log and the tests
        # Set by the process entry point: the file the container's health check reads.
        self.heartbeat_file: Path | None = None
        self._heartbeat_task: asyncio.Task[None] | None = None
        self._beat_failing = False

    async def setup_hook(self) -> None:
        if getattr(self, "store", None) is None:
            try:
                self.store = await Store.open(self.settings.database, clock=discord.utils.utcnow)
            except (StoreError, OSError) as error:
                raise StartupError(str(error)) from None
        log.debug("database %s ready", self.store.describe())
        self.tables = Tables(
            self,
            self.store,
            self.settings,
            new_seed=self._new_seed,
            post_limit=self.post_limit,
            hand_delay=self.hand_delay,
        )
        # Club play (bot/club): events over many tables, moved on by their conductor.
        self.club = Conductor(self, self.store, self.tables, new_seed=self.tables.lobby.new_seed)
        self.organiser = Organiser(self.store, self.club, discord.utils.utcnow)
        self.seasons = SeasonKeeper(self, self.store, self.tables.shards)
        # Reviews of finished games (bot/review), computed in the computer players' workers.
        self.reviewer = Reviewer(self.store, self.tables.thinker)
        self.practice = Practice(self.store, self.tables.thinker)
        self.scorepads = ScorePadKeeper(self.store)
        # In the background only in worker processes: a review computed in a thread of the bot's
        # own process would hold the interpreter against every table's clicks.
        if self.settings.review_games and self.settings.computer_workers > 0:
            self.tables.changes.on_close.append(self.reviewer.game_closed)
        # Descriptions and choices in the users' languages (names stay English).
        await self.tree.set_translator(CommandTranslator())
        # Every cog of cogs/, found by walking the package (the /kachuful group's first).
        for extension in extensions.walk():
            await self.load_extension(extension)
        ui_items.register(self)
        await self.tables.restore.run()
        await self.club.restore(self.tables.shards)
        await self.scorepads.restore(self, self.tables.shards)
        self.seasons.start()
        await self.sync_commands()
        await self.start_web()
        if self.heartbeat_file is not None:
            # A beat left by the previous run must not report this one healthy.
            self.heartbeat_file.unlink(missing_ok=True)
            self._heartbeat_task = asyncio.create_task(self._heartbeat(self.heartbeat_file))
        if self.freeze_gc_after_setup:
            gc.collect()
            gc.freeze()

    async def start_web(self) -> None:
        """The web table (bot/web), when its port is set: the same tables in a browser."""
        self.web = None
        self.live: Any = None  # the web table's sockets (bot/web/live.py)
        if self.settings.web_port is None:
            return
        from bot.web.server import WebServer

        self.web = WebServer(self.settings, client_id=lambda: self.application_id)
        self.web.pages["club"] = self._club_site(self.web)
        self.web.socket = self._live_table(self.web).socket
        from bot.web.activity import ActivityTables
        from bot.web.routes import Routes

        routes = Routes(self.store, self.tables.shards, self.web.base_url)
        self.web.pages["activity"] = ActivityTables(self, self.tables.open, routes.owner)
        self.web.owner_of = routes.owner_of_table
        await routes.publish()
        await self.web.start()

    def _live_table(self, web: WebServer) -> Any:
        """The table's socket (bot/web/live.py): a second front of the change path."""
        from bot.web.live import Live

        tables = self.tables
        live = Live(
            tables.open,
            tables.moves,
            tables.changes,
            self.store,
            base_url=web.base_url,
            read_session=web.sessions.read,
            client=self,
        )
        web.app.on_shutdown.append(live.close_all)
        self.live = live
        return live

    def _club_site(self, web: WebServer) -> Any:
        """The club pages (bot/web/club): leaderboards, seasons, events, players, games."""
        from bot.web.club.site import STYLE, ClubSite

        return ClubSite(
            self,
            self.store,
            conductor=self.club,
            seasons=self.seasons,
            reviewer=self.reviewer,
            style_url=lambda: web.href(web.assets.url(STYLE)),
            root=web.root,
        )

    def is_connected(self) -> bool:
        ws = self.ws
        return self.is_ready() and not self.is_closed() and ws is not None and bool(ws.open)

    async def beat(self, path: Path) -> bool:
        """Touch the heartbeat file if the bot is connected and its database takes a write
        transaction; returns whether it did."""
        if not self.is_connected():
            return False
        try:
            await self.store.check_writable()
            await asyncio.to_thread(path.touch)
        except (StoreError, OSError) as error:
            # Once per spell of failures, not at every beat.
            if not self._beat_failing:
                log.warning("health check failed: %s", error)
            self._beat_failing = True
            return False
        if self._beat_failing:
            log.warning("health check passes again")
        self._beat_failing = False
        log.debug("heartbeat")
        return True

    async def _heartbeat(self, path: Path) -> None:
        while not self.is_closed():
            try:
                await self.beat(path)
            except Exception:
                # A beat that fails for an unforeseen reason must not end the beating (the
                # container would be restarted as unhealthy for nothing); it is logged.
                log.exception("heartbeat failed")
            await asyncio.sleep(HEARTBEAT_SECONDS)

    async def sync_commands(self) -> None:
        """Global sync when the commands changed since the last one; see bot.command_sync."""
        self.synced = await command_sync.sync_commands(
            self.tree, self.store, self.settings, self.application_id
        )

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        await ui_items.answer_unknown_click(interaction)

    async def on_ready(self) -> None:
        user = self.user
        log.info(
            "ready as %s (%s) in %d server(s), %s",
            user,
            user and user.id,
            len(self.guilds),
            Shards.from_settings(self.settings).describe(),
        )

    async def close(self) -> None:
        # Reached from a signal handler and again when start() returns: run the shutdown
        # once, and let every caller wait for that one.
        if self._shutdown is None:
            self._shutdown = asyncio.ensure_future(self._close_once())
        await asyncio.shield(self._shutdown)

    async def _close_once(self) -> None:
        log.debug("shutting down")
        if self._heartbeat_task is not None:
            self._heartbeat_task.cancel()
        if self.heartbeat_file is not None:
            with contextlib.suppress(OSError):
                self.heartbeat_file.unlink(missing_ok=True)
        club = getattr(self, "club", None)
        if club is not None:
            club.stop()
            self.seasons.stop()
        reviewer = getattr(self, "reviewer", None)
        if reviewer is not None:
            reviewer.stop()
        web = getattr(self, "web", None)
        if web is not None:
            await web.stop()
        tables = getattr(self, "tables", None)
        if tables is not None:
            await tables.shutdown()
        store = getattr(self, "store", None)
        try:
            await super().close()
        finally:
            if store is not None:
                await store.close()
                log.debug("database closed")


class ShardedKachufulBot(KachufulBot, commands.AutoShardedBot):
    """The bot on Discord's gateway shards ``settings.shard_ids`` of ``settings.shard_count``
    (KACHUFUL_SHARD_COUNT, KACHUFUL_SHARD_IDS): discord.py's AutoShardedBot, one connection a
    shard. Other processes may hold the other shards (see bot.shards)."""

    # Between two identifies of one bucket, across every process (tests shorten it).
    identify_spacing = IDENTIFY_SPACING_SECONDS
    _identify_gate: IdentifyGate | None = None

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Each shard's identify waits for its bucket's slot in the shared database (see
        bot.identify), instead of discord.py's pause, which only spaces this process's own."""
        if self._identify_gate is None:
            self._identify_gate = IdentifyGate(
                self.store, self._max_concurrency, spacing=self.identify_spacing
            )
        await self._identify_gate.wait(shard_id or 0)

    async def _max_concurrency(self) -> int:
        limits = await self.fetch_session_start_limits()
        return int(limits.max_concurrency)

    def is_connected(self) -> bool:
        # An AutoShardedClient has no single websocket: every shard of this process counts.
        shards = self.shards
        return (
            self.is_ready()
            and not self.is_closed()
            and bool(shards)
            and all(not shard.is_closed() for shard in shards.values())
        )


def create_bot(settings: Settings, **options: Any) -> KachufulBot:
    """The bot for these settings: sharded when KACHUFUL_SHARD_COUNT is set, else one
    unsharded connection as always."""
    if settings.shard_count is None:
        return KachufulBot(settings, **options)
    ids = list(settings.shard_ids) if settings.shard_ids is not None else None
    return ShardedKachufulBot(settings, shard_count=settings.shard_count, shard_ids=ids, **options)
