"""After a restart: every open table is brought back, and every table whose public messages
were not all delivered (a crash between a commit and its posts, even after the last card of
a game) is published to the end.

Only the tables of this process's own shards' servers (``Shards.condition``): with
KACHUFUL_SHARD_IDS another process, sharing the database, restores the others."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import aiohttp
import discord
from discord.webhook.async_ import async_context

from bot.model import Table
from bot.store.failures import StoreError
from bot.store.values import Delivered, GameRef

from .driver import Driver
from .hands import webhook_session
from .lobby import Lobby
from .open_tables import OpenTables
from .session import TableSession, paused, rebuild_game
from .timing import Timing

if TYPE_CHECKING:
    from bot.shards import Shards
    from bot.store.protocol import GameStore

log = logging.getLogger(__name__)


class Restore:
    def __init__(
        self,
        tables: OpenTables,
        store: GameStore,
        timing: Timing,
        lobby: Lobby,
        driver: Driver,
        client: discord.Client,
        shards: Shards,
        *,
        open_session: Callable[[TableSession], None],
        attach_publishers: Callable[[TableSession], None],
    ) -> None:
        self.tables = tables
        self.store = store
        self.timing = timing
        self.lobby = lobby
        self.driver = driver
        self.client = client
        self.shards = shards
        self.open_session = open_session  # registered, with its publishers
        self.attach_publishers = attach_publishers  # a closed table's, to finish delivering

    async def run(self) -> int:
        """Bring back every open table from the store; returns how many."""
        tables, store = self.tables, self.store
        # Read before any table is brought back: a restored table's driver may finish its game
        # meanwhile, and that game's own publisher posts its final standings (read after, it
        # would look unsettled and get a second publisher: posted twice).
        # Only this process's shards' rows are read: the other shards' tables (and their
        # damaged rows) are another process's to restore and report.
        unsettled = await store.unsettled_games(self.shards)
        rows, damaged = await store.open_games(self.shards)
        for ref in damaged:
            tables.damaged[ref.id] = ref
        restored = 0
        for row in rows:
            if await self._open(row):
                restored += 1
        for row in unsettled:
            await self._closed(row)
        log.info(
            "restored %d open table(s), %d could not be (%s)",
            restored,
            len(tables.damaged),
            self.shards.describe(),
        )
        return restored

    def _rebuild(self, row: Table) -> TableSession | None:
        try:
            game = rebuild_game(row) if row.record is not None else None
        except Exception as error:
            # Only the kind of error: its words may name cards of hidden hands. One damaged
            # table must not keep the bot (and every other table) from starting.
            log.error(
                "table %s: cannot rebuild the game from its record (%s); left as is",
                row.id,
                type(error).__name__,
            )
            return None
        return TableSession(row, game)

    async def _open(self, row: Table) -> bool:
        tables = self.tables
        session = self._rebuild(row) if row.status == "running" else TableSession(row)
        if session is None:
            tables.damaged[row.id] = GameRef(
                row.id, row.guild_id, row.channel_id, row.host_id, row.message_id
            )
            return False
        self.open_session(session)
        assert session.publisher is not None and session.hand_publisher is not None
        if row.status == "lobby" and row.message_id is None:
            await self._find_lobby(session)
        await session.publisher.load()
        await session.hand_publisher.load()
        if row.status == "lobby":
            self.lobby.schedule_timer(session)
        else:
            self.timing.start_turn_clock(session)
            if not (paused(row) and self.timing.idle_remaining(row) <= 0):
                session.hand_publisher.poke()
            self.driver.schedule(session)
        session.publisher.poke()
        return True

    async def _find_lobby(self, session: TableSession) -> None:
        """A crash between answering /kachuful start with the lobby and storing the lobby's
        message id: find that message through the answer's token (valid 15 minutes), so that
        the publisher does not post a second lobby."""
        row = session.row
        token = await self.store.lobby_token(row.id)
        if token is None or (self.timing.clock() - row.created_at).total_seconds() >= 14 * 60:
            return
        client = self.client
        try:
            message = await async_context.get().get_original_interaction_response(
                client.application_id or 0, token, **webhook_session(client)
            )
        except (discord.HTTPException, aiohttp.ClientError, OSError):
            return  # never answered: the publisher posts the lobby
        message_id = int(message["id"])
        row.message_id = message_id
        try:
            await self.store.set_message_id(row.id, message_id)
            # An empty digest matches nothing: the publisher redraws it as the lobby stands now.
            await self.store.mark_delivered(
                row.id, "lobby", Delivered(row.channel_id, message_id, "")
            )
        except StoreError:
            # The database cannot be written now (logged by the store): the publisher adopts
            # the lobby by the id in memory, and stores it when it can.
            return

    async def _closed(self, row: Table) -> None:
        """A finished or stopped game with messages still owed: deliver them, then let go."""
        session = self._rebuild(row)
        if session is None:
            return
        session.closed = True
        self.attach_publishers(session)
        assert session.publisher is not None and session.hand_publisher is not None
        self.tables.closing[row.id] = session  # a stop before it is done delivers it too
        await session.hand_publisher.load()
        session.publisher.poke()
        session.hand_publisher.poke()
