"""Computer decisions that take long (the search level: up to 200 ms), off the event loop.

A decision of the search level is a pure function of picklable values
(``kachuful_core.players.decide``), run in a worker process: the GIL would make a thread no
help, and 200 ms on the event loop would delay every other table's clicks. Bounded: a table's
driver waits for its one decision before it plans again, and at most ``queue`` decisions are
handed to the workers at once (the rest wait their turn here, not in the pool's queue). A
decision that fails or takes too long is taken by the heuristic instead, in process, so that
no table waits for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from bot import worker
from kachuful_core import Phase, SeatView
from kachuful_core.players import Decision, decide

log = logging.getLogger(__name__)
R = TypeVar("R")

SLOW_LEVELS = frozenset({"search"})
DECISION_TIMEOUT = 5.0
# A worker's warm-up: numba compiles the search's inner loops on a machine's first run
# (about 20 s on one core; then cached on disk, half a second to load in a new process).
WARM_UP_TIMEOUT = 120.0
# One piece of a long computation (a review's deal: about 2 s at thirteen cards).
COMPUTE_TIMEOUT = 120.0


def thinks_in_worker(level: str, view: SeatView) -> bool:
    """Whether a computer's decision is taken in a worker: a slow level's, on a view that
    cannot change during the turn. A seat that may still bid blind, or has not looked at the
    hand it plays, decides in process (looking changes the view mid-turn)."""
    if level not in SLOW_LEVELS or view.may_bid_blind:
        return False
    return not (view.phase is Phase.PLAYING and view.hand is None and not view.play_unseen)


class Thinker:
    def __init__(self, workers: int = 1, queue: int = 4) -> None:
        self.workers = workers
        self._slots = asyncio.Semaphore(queue)
        self._pool: ProcessPoolExecutor | None = None
        self._warming: asyncio.Future[int] | None = None
        self.decisions = 0
        self.fallbacks = 0
        self.levels: Counter[str] = Counter()  # decisions asked for, by level

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # forkserver: the bot's process has threads (aiosqlite), which fork would copy.
            context = multiprocessing.get_context("forkserver")
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=context,
                # A worker exits when the bot's process ends (see bot.worker), then warms up.
                initializer=worker.start,
                initargs=(worker.bot_lifeline(),),
            )
            # Every worker runs the initializer before its first task: this no-op returns once
            # one of them is warm. Until then a decision is not timed (see decide).
            self._warming = asyncio.wrap_future(self._pool.submit(os.getpid))
        return self._pool

    def start(self) -> None:
        """Start the workers now: the first decision would otherwise wait for them. Only a
        head start: if they cannot start (say, a temporary folder whose path is too long for
        the forkserver's socket), the game starts anyway and its first decision tries again
        (or the heuristic decides)."""
        if self.workers and self._pool is None:
            try:
                self._executor()
            except (OSError, RuntimeError) as error:
                log.warning(
                    "the computer players' workers could not start (%s); tried again at the"
                    " first decision",
                    type(error).__name__,
                )

    async def _warm(self) -> None:
        warming = self._warming
        if warming is not None and not warming.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(warming), WARM_UP_TIMEOUT)

    async def decide(self, level: str, seed: int, view: SeatView) -> Decision:
        self.levels[level] += 1
        if not self.workers:
            return decide(level, seed, view)
        async with self._slots:
            loop = asyncio.get_running_loop()
            try:
                executor = self._executor()
                await self._warm()
                future = loop.run_in_executor(executor, decide, level, seed, view)
                decision = await asyncio.wait_for(future, DECISION_TIMEOUT)
            except (TimeoutError, OSError, RuntimeError) as error:
                # RuntimeError covers a broken pool (a worker that died): start a new one.
                log.warning(
                    "a %s decision failed (%s); the heuristic decides", level, type(error).__name__
                )
                self.fallbacks += 1
                self.close()
                return decide("heuristic", seed, view)
        self.decisions += 1
        return decision

    async def compute(self, work: Callable[..., R], *args: Any) -> R:
        """A long pure computation (one deal of a game's review) in a worker, or in a thread
        where the bot has no workers: the event loop never waits for it. It takes a slot like
        a decision, so the tables' decisions queue behind one piece of it at most; a caller
        cuts longer work into pieces. Raises what ``work`` raises, ``TimeoutError`` after
        ``COMPUTE_TIMEOUT`` seconds, ``RuntimeError`` if the pool broke (it is renewed)."""
        if not self.workers:
            return await asyncio.to_thread(work, *args)
        async with self._slots:
            loop = asyncio.get_running_loop()
            try:
                executor = self._executor()
                await self._warm()
                future = loop.run_in_executor(executor, work, *args)
                return await asyncio.wait_for(future, COMPUTE_TIMEOUT)
            except (TimeoutError, OSError, RuntimeError):
                self.close()
                raise

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
            self._warming = None
