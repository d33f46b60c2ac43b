"""Gateway identifies spaced across every process of the bot.

Discord takes one IDENTIFY per 5 seconds in each bucket (``shard_id % max_concurrency``, the
``session_start_limit.max_concurrency`` of GET /gateway/bot) and refuses the others. discord.py
spaces the shards of one process (``before_identify_hook`` sleeps 5 s), but processes started
at once would identify together. So each identify first claims its bucket's slot in the shared
database (:meth:`bot.store.store.Store.claim_interval`): whoever claims it identifies, the others
wait until the slot is free and claim again.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from bot.store.failures import StoreError
from bot.store.protocol import GameStore

log = logging.getLogger(__name__)

# Discord's 5 s, and a margin for the clocks of several machines and the time from the claim
# to the IDENTIFY frame actually leaving.
IDENTIFY_SPACING_SECONDS = 5.5


def bucket_key(shard_id: int, max_concurrency: int) -> str:
    """The bot_state key of a shard's identify bucket."""
    return f"identify.{shard_id % max(1, max_concurrency)}"


class IdentifyGate:
    """Waits, before each identify, for the shard's bucket to be free in the database."""

    def __init__(
        self,
        store: GameStore,
        max_concurrency: Callable[[], Awaitable[int]],
        *,
        spacing: float = IDENTIFY_SPACING_SECONDS,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.store = store
        self._fetch_concurrency = max_concurrency
        self._concurrency: int | None = None
        self.spacing = spacing
        self.clock = clock
        self.sleep = sleep

    async def concurrency(self) -> int:
        """Discord's max_concurrency for this bot, asked once (1 if it cannot be had: the
        slowest pace is always allowed)."""
        if self._concurrency is None:
            try:
                self._concurrency = max(1, await self._fetch_concurrency())
            except Exception as error:  # an outage, a refused request: identify slowly
                log.warning("session start limits unavailable (%s): one identify at a time", error)
                self._concurrency = 1
        return self._concurrency

    async def wait(self, shard_id: int) -> None:
        """Return once this process may identify ``shard_id``."""
        key = bucket_key(shard_id, await self.concurrency())
        spacing_ms = round(self.spacing * 1000)
        while True:
            now_ms = round(self.clock() * 1000)
            try:
                remaining = await self.store.claim_interval(key, now_ms, spacing_ms)
            except StoreError as error:
                # Without the database, discord.py's own pace: this process spaces its shards.
                log.warning("identify slot not claimed (%s): waiting %.1f s", error, self.spacing)
                await self.sleep(self.spacing)
                return
            if remaining == 0:
                log.debug("shard %s: identify slot %s claimed", shard_id, key)
                return
            log.debug("shard %s: identify slot %s busy, %d ms left", shard_id, key, remaining)
            await self.sleep(remaining / 1000)
