"""Reviews of finished games: computed once, a deal at a time off the event loop (in the
computer players' workers, or a thread), stored, then read back from the store.

A review is asked for by a click or a command, or started as a game ends (setting
``review_games``). One computation per game runs in this process at a time: a second request
waits for the first. A computation cut short by a crash is simply done again at the next
request; it is deterministic, and the store keeps the first one written.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from pydantic import ValidationError

from bot.store.failures import StoreError
from bot.store.protocol import GameStore
from bot.table.session import TableSession
from bot.table.thinking import Thinker
from kachuful_core import RecordError, parse_record, record_document
from kachuful_core.review import GameReview, review_deal, reviewable_deals

log = logging.getLogger(__name__)


class ReviewFailed(Exception):
    """The review could not be computed now (the record breaks a rule, or the workers
    failed): nothing is stored, a later request tries again."""


class Reviewer:
    def __init__(self, store: GameStore, thinker: Thinker) -> None:
        self.store = store
        self.thinker = thinker
        self._running: dict[int, asyncio.Task[GameReview]] = {}

    async def stored(self, game_id: int) -> GameReview | None:
        document = await self.store.reviews.get(game_id)
        if document is None:
            return None
        try:
            return GameReview.model_validate(document)
        except ValidationError:
            log.warning("game %s: the stored review cannot be read; computed again", game_id)
            return None

    def game_closed(self, session: TableSession) -> None:
        """A table closed (``Changes.on_close``): review its game if it was played out."""
        if session.row.status == "finished" and session.game is not None:
            self.start(session.row.id, record_document(session.game))

    def computing(self, game_id: int) -> bool:
        return game_id in self._running

    async def review(self, game_id: int, record: dict[str, Any]) -> GameReview:
        """The game's review: stored, or computed now (and stored). Raises ReviewFailed."""
        found = await self.stored(game_id)
        if found is not None:
            return found
        return await asyncio.shield(self._task(game_id, record))

    def start(self, game_id: int, record: dict[str, Any]) -> None:
        """Begin a game's review in the background (a game just ended)."""
        self._task(game_id, record)

    def _task(self, game_id: int, record: dict[str, Any]) -> asyncio.Task[GameReview]:
        task = self._running.get(game_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._compute(game_id, record))
            self._running[game_id] = task
            task.add_done_callback(lambda done: self._finished(game_id, done))
        return task

    def _finished(self, game_id: int, task: asyncio.Task[GameReview]) -> None:
        self._running.pop(game_id, None)
        if not task.cancelled() and task.exception() is not None:
            log.warning("game %s: review not computed (%s)", game_id, task.exception())

    async def _compute(self, game_id: int, record: dict[str, Any]) -> GameReview:
        found = await self.stored(game_id)  # another process may have written it meanwhile
        if found is not None:
            return found
        try:
            players = tuple(parse_record(record).players)
            count = reviewable_deals(record)
            deals = []
            for number in range(count):
                deals.append(await self.thinker.compute(review_deal, record, number))
        except (RecordError, ValueError, TimeoutError, OSError, RuntimeError) as error:
            raise ReviewFailed(type(error).__name__) from error
        review = GameReview(players=players, deals=tuple(deals))
        try:
            await self.store.reviews.put(game_id, review.model_dump(mode="json"))
        except StoreError as error:
            # Shown all the same; the next request computes it again.
            log.warning("game %s: review not stored (%s)", game_id, type(error).__name__)
        return review

    def stop(self) -> None:
        for task in self._running.values():
            task.cancel()
        self._running.clear()
