"""The one path of a change, without Discord: take the table's lock, let a feature's step
check and apply the action through the engine, commit the row (and record) as one
transaction, release the lock, then hand the table to its publishers and driver.

Memory never runs ahead of the database: a step that raises, or a commit that fails, reloads
the table from the store. A move arrives here as a plain request (``moves.py``); answering it
is its front's (the Discord responder, ``responder.py``; the web table's socket); a change
with nobody to answer (the driver, a lobby timer) calls :meth:`Changes.run`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from bot import render
from bot.i18n import EN, Translations
from bot.results import game_results
from bot.store.failures import StoreError, is_expected
from bot.store.protocol import GameStore
from kachuful_core import record_json
from kachuful_core.events import GameEnded

from .not_saved import not_saved
from .open_tables import OpenTables
from .outcome import Reply, Step, refusal
from .session import TableSession, forget_record, rebuild_game
from .timing import Timing

log = logging.getLogger(__name__)

StepFn = Callable[[TableSession], Step | None]
# A front's drawing of the answer to the one who acted, made under the table's lock from the
# state the change left (the Discord responder's: a private message's spec).
Drawer = Callable[[TableSession, Reply], object]


class Changes:
    def __init__(self, store: GameStore, tables: OpenTables, timing: Timing) -> None:
        self.store = store
        self.tables = tables
        self.timing = timing
        # The driver plans a table's next computer move or turn clock after each commit (set
        # by the composition root: the driver makes its own changes through this path).
        self.plan_next: Callable[[TableSession], None] = lambda session: None
        # Told of every table that has just closed (finished or stopped), once its last
        # change is committed: club play moves its event on (bot/club/conductor.py).
        self.on_close: list[Callable[[TableSession], None]] = []
        # Told of every committed change of a table, after its lock is released: the web
        # table's sockets then send each viewer the view it may see (bot/web/live.py).
        self.on_published: list[Callable[[TableSession], None]] = []

    async def apply(
        self,
        session: TableSession,
        step: StepFn,
        tr: Translations,
        draw: Drawer | None = None,
    ) -> Step | None:
        """Lock, check and apply (``step``), commit, draw the answer (``draw``), unlock.
        Discord is not touched."""
        async with session.lock:
            outcome = await self._apply(session, step, tr)
            if outcome is not None:
                outcome.version = session.row.version
                if draw is not None and outcome.reply is not None:
                    outcome.drawn = self._draw(session, outcome, draw)
        return outcome

    async def _apply(self, session: TableSession, step: StepFn, tr: Translations) -> Step | None:
        if session.closed:
            return refusal("no_table", tr)
        version = session.row.version
        try:
            outcome = step(session)
            if outcome is not None and outcome.commit:
                await self.commit(session, outcome)
        except StoreError as error:
            await self.reload(session)
            session.forget_actions_at(version)
            return self._not_saved(session, error, tr)
        except BaseException:
            # A step or a write that failed otherwise (a bug, a damaged file): memory must
            # not run ahead of disk either; the caller logs and answers it.
            await self.reload(session)
            session.forget_actions_at(version)
            raise
        return outcome

    def _draw(self, session: TableSession, outcome: Step, draw: Drawer) -> object | None:
        """The answer drawn; once a change is committed, a drawing that fails must not turn
        it into an error for the player (their move counted): it is logged, and the front
        answers without it."""
        assert outcome.reply is not None
        try:
            return draw(session, outcome.reply)
        except Exception:
            log.exception("table %s: the answer to a change could not be drawn", session.row.id)
            return None

    def settle(self, session: TableSession, outcome: Step | None, started: float) -> None:
        """After a commit: the publishers bring Discord up to date; the driver plans again."""
        if outcome is None or not outcome.commit:
            return
        log.debug(
            "table %s: move %s committed in %.1f ms",
            session.row.id,
            session.row.version,
            (time.perf_counter() - started) * 1000,
        )
        self.published(session, close=outcome.close)

    def published(self, session: TableSession, *, close: bool = False) -> None:
        if session.publisher is not None:
            session.publisher.poke()
        if session.hand_publisher is not None:
            session.hand_publisher.poke()
        for hook in self.on_published:
            hook(session)
        if close:
            self.tables.forget(session)
            for hook in self.on_close:
                hook(session)
        else:
            self.plan_next(session)

    async def run(self, session: TableSession, step: StepFn) -> Step | None:
        """A change nobody clicked (a computer seat, a clock): apply, then publish."""
        started = time.perf_counter()
        outcome = await self.apply(session, step, EN)
        self.settle(session, outcome, started)
        return outcome

    async def commit(self, session: TableSession, step: Step) -> None:
        """Write the session's row (and record) as one transaction; bump the move counter.

        If the write fails, :meth:`apply` reloads the session from the store."""
        row, game = session.row, session.game
        previous = row.version
        if step.bump:
            row.version += 1
        record = None
        results = []
        if game is not None:
            record = record_json(game)
            if any(isinstance(e, GameEnded) for e in step.events):
                row.status = "finished"
                results = game_results(row, game)
        try:
            await self.store.save_game(
                row, record=record, previous_version=previous, results=results
            )
        except BaseException:
            row.version = previous
            raise
        session.decided = None
        if row.status in ("finished", "stopped"):
            step.close = True
        self.timing.start_turn_clock(session)

    async def reload(self, session: TableSession) -> None:
        try:
            stored = await self.store.load_game(session.row.id)
        except StoreError:
            return
        if stored is None:
            return
        session.row = stored
        if stored.status == "running" and stored.record is not None:
            session.game = rebuild_game(stored)
            forget_record(stored)

    def _not_saved(self, session: TableSession, error: StoreError, tr: Translations) -> Step:
        if not is_expected(error):  # an expected one is logged once per incident by the store
            # Only the kind of error: a database message could quote the record.
            log.warning("table %s: change not saved (%s)", session.row.id, type(error).__name__)
        text = not_saved(error, tr) or render.notice("busy_db", tr)
        return Step(reply=Reply(text), failed=error)
