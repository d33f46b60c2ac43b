"""Which process serves a table's page and socket, when the gateway's shards run in several
processes (docs/scaling.md): a table lives in the process that holds its server's shard, the
only one with its game in memory, so its page and socket must reach that process.

Each process has a public address of its own (``KACHUFUL_WEB_BASE_URL``, e.g.
``https://cards.example.org/p1``; the proxy in front sends ``/p1/…`` to that process) and, at
start, records it in the shared database for each shard it holds. A page asked of the wrong
process (a link from before a move of shards, a bookmark, an Activity launched anywhere) is
sent on to the right one. Everything else (the login, the club pages, the Activity's login)
any process can serve: they read the shared database, and a session is signed with the
application's secret, which every process has."""

from __future__ import annotations

from bot.shards import Shards, shard_of
from bot.store.protocol import GameStore

KEY = "web_route:{shard}"


class Routes:
    def __init__(self, store: GameStore, shards: Shards, base_url: str) -> None:
        self.store = store
        self.shards = shards
        self.base_url = base_url.rstrip("/")

    async def publish(self) -> None:
        """Record this process's address for each shard it holds (at every start: a move of
        shards between processes takes effect with the restart that makes it)."""
        count = self.shards.count
        if count is None:
            return
        held = self.shards.ids if self.shards.ids is not None else range(count)
        for shard in sorted(held):
            await self.store.set_bot_state(KEY.format(shard=shard), self.base_url)

    async def owner(self, guild_id: int) -> str | None:
        """The address of the process that serves ``guild_id``'s tables, if it is another one
        (None: this process, or no process has said)."""
        count, ids = self.shards.count, self.shards.ids
        if count is None or ids is None:
            return None
        shard = shard_of(guild_id, count)
        if shard in ids:
            return None
        found = await self.store.bot_state(KEY.format(shard=shard))
        return found if found and found != self.base_url else None

    async def owner_of_table(self, table_id: int) -> str | None:
        if self.shards.count is None or self.shards.ids is None:
            return None  # one process serves every server: nothing to look up
        row = await self.store.load_game(table_id)
        return None if row is None else await self.owner(row.guild_id)
