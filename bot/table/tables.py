"""The composition root of the table code: builds each room once and hands every feature its
collaborators explicitly. Nothing here decides anything about a game.

A click goes one way down (docs/architecture.md): ``bot/ui/items`` → the ``responder`` (a
move: a plain request, ``requests``) or a feature (``lobby``, ``play``, ``readonly``) → the
change path, ``moves`` and ``changes`` (lock, step, engine, commit, answer drawn; no Discord)
→ back to ``responder`` (the private answer) → the table's publishers (``publisher``,
``hands``), which bring Discord up to date with what was committed, and the ``driver``
(computer seats, the turn clock), which makes its own changes through ``changes``. The web
table's socket is a second front of ``moves``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from datetime import datetime

import discord

from bot.config import Settings
from bot.shards import Shards
from bot.store.protocol import GameStore

from .answers import Answers
from .changes import Changes
from .driver import Driver
from .hands import HAND_WATCH_SECONDS, HandPublisher
from .lobby import Lobby
from .moves import Moves
from .open_tables import OpenTables
from .play import Play
from .publisher import Publisher, RateLimits
from .readonly import ReadOnly
from .responder import Responder
from .restore import Restore
from .session import TableSession
from .thinking import Thinker
from .timing import Timing

log = logging.getLogger(__name__)


def new_game_seed() -> str:
    """A game's secret seed (its deals follow from it; tests pass a fixed sequence)."""
    return secrets.token_hex(32)


class Tables:
    """Every room of the table code, built once per bot."""

    def __init__(
        self,
        client: discord.Client,
        store: GameStore,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = discord.utils.utcnow,
        new_seed: Callable[[], str] | None = None,
        post_limit: int | None = None,
        hand_delay: float = HAND_WATCH_SECONDS,
    ) -> None:
        self.client = client
        self.store = store
        self.settings = settings
        # The servers this process serves (the others' tables are another process's).
        self.shards = Shards.from_settings(settings)
        self.open = OpenTables()
        self.timing = Timing(settings, clock, hand_delay)
        self.limits = RateLimits(clock) if post_limit is None else RateLimits(clock, post_limit)
        self.thinker = Thinker(workers=settings.computer_workers)
        self.changes = Changes(store, self.open, self.timing)
        self.moves = Moves(self.open, self.changes, store)
        self.answers = Answers(self.timing)
        self.responder = Responder(self.changes, self.moves, self.answers, self.open, store, clock)
        self.lobby = Lobby(
            self.open,
            self.responder,
            self.answers,
            self.changes,
            self.timing,
            store,
            self.thinker,
            new_seed=new_seed or new_game_seed,
            open_session=self.open_session,
        )
        self.play = Play(self.open, self.responder, store)
        self.driver = Driver(self.open, self.changes, self.timing, self.thinker)
        self.changes.plan_next = self.driver.schedule
        self.read = ReadOnly(self.open, self.responder)
        self.restore = Restore(
            self.open,
            store,
            self.timing,
            self.lobby,
            self.driver,
            client,
            self.shards,
            open_session=self.open_session,
            attach_publishers=self.attach_publishers,
        )

    def attach_publishers(self, session: TableSession) -> None:
        session.publisher = Publisher(
            session,
            client=self.client,
            store=self.store,
            tables=self.open,
            limits=self.limits,
            timing=self.timing,
        )
        session.hand_publisher = HandPublisher(
            session, client=self.client, store=self.store, timing=self.timing
        )

    def open_session(self, session: TableSession) -> None:
        """A table opened or restored: registered, with its publishers."""
        self.attach_publishers(session)
        self.open.add(session)

    async def shutdown(self, timeout: float = 5.0) -> None:
        """Stop taking clicks, let the action in flight finish, deliver what is pending as far
        as Discord allows within ``timeout`` seconds, then stop every task."""
        self.open.stopping = True
        sessions = self.open.all_sessions()
        for session in sessions:
            for task in (session.driver, session.lobby_task):
                if task is not None and not task.done():
                    task.cancel()
        flushing = [s.publisher.flush() for s in sessions if s.publisher is not None]
        if flushing:
            try:
                async with asyncio.timeout(timeout):
                    await asyncio.gather(*flushing, return_exceptions=True)
            except TimeoutError:
                log.warning("stopped with public messages still to deliver: sent at next start")
        for session in sessions:
            if session.publisher is not None:
                session.publisher.stop()
            if session.hand_publisher is not None:
                session.hand_publisher.stop()
        self.thinker.close()
