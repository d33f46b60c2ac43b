"""The driver of a table: computer seats and the turn clock, in one background task per table.

It sleeps (a short pause for a computer seat, until the turn clock runs out for a human),
then acts through the change path if nothing has moved in the meantime. Without a pause, it
plays out a deal whose every remaining card is forced, and a single legal card for a player
who chose to have it played for them (bot/table/endgame.py). When every seat is
played by the computer (everyone away) the table is paused; the driver then sleeps until the
idle time (KACHUFUL_IDLE_HOURS) has passed since the table's last stored change, and closes
it like /kachuful stop. That moment is derived from the stored row's ``updated_at``, so a
restart does not reset it; "I'm back" is a change, so it cancels it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from kachuful_core.claims import all_forced, play_forced, single_legal_card
from kachuful_core.players import LEVELS, Decision, act, apply_decision
from kachuful_core.views import view as seat_view

from .changes import Changes
from .open_tables import OpenTables
from .outcome import Step, retry_delay
from .session import TableSession, paused, seat_level
from .thinking import Thinker, thinks_in_worker
from .timing import Timing

log = logging.getLogger(__name__)

MAX_TIMEOUTS = 3
# After an unexpected failure (say, the database could not be written) the driver of a table
# tries again after this long instead of leaving the table frozen.
RETRY_SECONDS = 30.0


@dataclass(frozen=True)
class Plan:
    """The next step: after ``delay`` seconds, if the table is still at ``version``: a
    computer seat acts, the turn clock of a human ran out, or a paused table is closed."""

    delay: float
    version: int
    kind: Literal["computer", "clock", "idle", "forced", "single"]


class Driver:
    def __init__(
        self, tables: OpenTables, changes: Changes, timing: Timing, thinker: Thinker
    ) -> None:
        self.tables = tables
        self.changes = changes
        self.timing = timing
        self.thinker = thinker

    def schedule(self, session: TableSession) -> None:
        if session.closed or self.tables.stopping:
            return
        task = session.driver
        if task is not None and not task.done():
            if not session.driver_sleeping or task is asyncio.current_task():
                return  # busy with a step; it plans again from the new state afterwards
            task.cancel()
        session.driver = asyncio.get_running_loop().create_task(
            self._drive(session), name=f"kachuful-table-{session.row.id}"
        )

    def plan(self, session: TableSession) -> Plan | None:
        row, game = session.row, session.game
        if session.closed or row.status != "running" or game is None or game.turn is None:
            return None
        if all_forced(game):
            # Only a table saved in that state by an earlier version: a move that leaves the
            # rest of a deal forced plays it out in the same change.
            return Plan(0.0, row.version, "forced")
        if paused(row):
            # Everyone is away: the game waits for an "I'm back" rather than playing itself
            # to the end, but not for ever: an abandoned table would hold its channel.
            return Plan(self.timing.idle_remaining(row), row.version, "idle")
        if row.seats[game.turn].computer_plays:
            return Plan(self.timing.settings.bot_delay_seconds, row.version, "computer")
        if row.seats[game.turn].single_card and single_legal_card(game, game.turn) is not None:
            return Plan(0.0, row.version, "single")
        deadline = session.deadline
        if deadline is None:
            delay = self.timing.turn_seconds(row)
        else:
            delay = max(0.0, (deadline - self.timing.clock()).total_seconds())
        return Plan(delay, row.version, "clock")

    async def _drive(self, session: TableSession) -> None:
        while True:
            try:
                await self._loop(session)
                return
            except asyncio.CancelledError:
                raise
            except Exception as error:
                # Only the kind of error: an engine error's words may name cards of hidden
                # hands. Try again later: no click can move a computer seat.
                log.error(
                    "table %s: the computer player / turn clock failed (%s); trying again in %ss",
                    session.row.id,
                    type(error).__name__,
                    RETRY_SECONDS,
                )
            await self._sleep(session, RETRY_SECONDS)

    async def _sleep(self, session: TableSession, delay: float) -> None:
        session.driver_sleeping = True
        try:
            await asyncio.sleep(delay)
        finally:
            session.driver_sleeping = False

    async def _loop(self, session: TableSession) -> None:
        while True:
            plan = self.plan(session)
            if plan is None:
                return
            remind = self.timing.reminder_delay(session) if plan.kind == "clock" else None
            if remind is not None and remind < plan.delay:
                # An event's table: at half the clock the publisher pings the player again.
                await self._sleep(session, remind)
                if session.publisher is not None:
                    session.publisher.poke()
                continue
            await self._sleep(session, plan.delay)
            thinks = plan.kind in ("computer", "clock")
            decision = await self._think(session, plan) if thinks else None
            step = self._step(plan, decision)
            result = await self.changes.run(session, step)
            if result is not None and result.failed is not None:
                # Not saved (the database is locked or cannot be written): try again later.
                await self._sleep(session, retry_delay(result.failed))

    async def _think(self, session: TableSession, plan: Plan) -> Decision | None:
        """A slow level's decision, taken in a worker without the table's lock (None: the
        step decides in process). The view is read under the lock: never the state of a
        change still being saved."""
        async with session.lock:
            row, game = session.row, session.game
            if row.version != plan.version or game is None or game.turn is None:
                return None
            seat = game.turn
            level = seat_level(row, seat)
            view = seat_view(game, seat)
            if not thinks_in_worker(level, view):
                return None
            key = (plan.version, seat, level)
            if session.decided is not None and session.decided[0] == key:
                # Decided already, and not saved (the database refused it): the same view
                # and seed give the same decision, without thinking for seconds again.
                return session.decided[1]
        decision = await self.thinker.decide(level, seed_of(row.id, seat), view)
        session.decided = (key, decision)
        return decision

    def _step(self, plan: Plan, decision: Decision | None) -> Callable[[TableSession], Step | None]:
        if plan.kind == "idle":
            return lambda session: self._close_idle(session, plan.version)
        if plan.kind in ("forced", "single"):
            return lambda session: self._played_for(session, plan)
        timed_out = plan.kind == "clock"
        version = plan.version

        def step(session: TableSession) -> Step | None:
            row, game = session.row, session.game
            if row.version != version or row.status != "running" or game is None:
                return None
            seat = game.turn
            if seat is None:
                return None
            level = seat_level(row, seat)
            if decision is not None:
                events = apply_decision(game, seat, decision)
            else:
                player = session.players.get((seat, level))
                if player is None:
                    player = LEVELS[level](seed_of(row.id, seat))
                    session.players[(seat, level)] = player
                events = act(game, seat, player)
            # A deal whose remaining cards are now all forced plays out in the same change.
            events = [*events, *play_forced(game)]
            entry = row.seats[seat]
            if timed_out:
                entry.timeouts += 1
                if entry.timeouts >= MAX_TIMEOUTS:
                    entry.away = True
            log.debug(
                "table %s: move %s by the computer (seat %s, %s)", row.id, version, seat, level
            )
            return Step(commit=True, events=events)

        return step

    def _played_for(self, session: TableSession, plan: Plan) -> Step | None:
        """Cards with no choice: the rest of a forced deal, or a player's single legal card."""
        row, game = session.row, session.game
        if row.version != plan.version or row.status != "running" or game is None:
            return None
        if plan.kind == "forced":
            events = play_forced(game)
        else:
            seat = game.turn
            card = None if seat is None else single_legal_card(game, seat)
            events = [] if seat is None or card is None else game.play(seat, card)
            events += play_forced(game)
        return Step(commit=True, events=events) if events else None

    def _close_idle(self, session: TableSession, version: int) -> Step | None:
        """Close a table paused for the idle time, as /kachuful stop does."""
        row = session.row
        if (
            row.version != version
            or row.status != "running"
            or not paused(row)
            or self.timing.idle_remaining(row) > 0
        ):
            return None
        row.status = "stopped"
        row.ended = "idle"
        log.info(
            "table %s: closed after %sh with everyone away", row.id, self.timing.settings.idle_hours
        )
        return Step(commit=True)


def seed_of(table: int, seat: int) -> int:
    """A computer seat's seed: the same for the seat's every decision (players are
    deterministic for a seed and keep no state between calls)."""
    return table * 10 + seat
