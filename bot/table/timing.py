"""A table's clocks: the turn clock of the human to act, the lobby's timeout, a paused table's
idle time, and the pace the lobby estimates a game's length from."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from bot.config import Settings
from bot.model import Table
from bot.pace import Pace, table_pace
from kachuful_core import Phase

from .session import TableSession, paused


class Timing:
    def __init__(
        self, settings: Settings, clock: Callable[[], datetime], hand_delay: float
    ) -> None:
        self.settings = settings
        self.clock = clock
        # How often a watcher's hand message is redrawn at most (see hands.HandPublisher).
        self.hand_delay = hand_delay

    def turn_seconds(self, row: Table) -> float:
        """The turn clock of a table: its channel's setting when it opened, else the bot's."""
        value = row.options.turn_seconds
        if value is not None and value > 0:
            return float(value)
        return self.settings.turn_seconds

    def pace(self, row: Table) -> Pace:
        """The table's pace, for the lobby's estimate of a game's length."""
        return table_pace(self.turn_seconds(row), self.settings.bot_delay_seconds)

    def lobby_minutes(self) -> int:
        return max(1, round(self.settings.lobby_timeout_seconds / 60))

    def start_turn_clock(self, session: TableSession) -> None:
        """The turn clock of the human to act starts at each committed change."""
        row, game = session.row, session.game
        session.deadline = None
        if row.status != "running" or game is None or game.turn is None or paused(row):
            return
        if game.phase in (Phase.BIDDING, Phase.PLAYING) and not row.seats[game.turn].computer_plays:
            session.deadline = self.clock() + timedelta(seconds=self.turn_seconds(row))

    def late(self, session: TableSession) -> bool:
        """Whether the human to act at an event's table has used half their turn clock: they
        are reminded then (docs/events.md), a table of an event waiting on them."""
        deadline = session.deadline
        if deadline is None or session.row.options.event_title is None:
            return False
        half = timedelta(seconds=self.turn_seconds(session.row) / 2)
        return self.clock() >= deadline - half

    def reminder_delay(self, session: TableSession) -> float | None:
        """Seconds until :meth:`late` turns true for an event's table, if it is still to."""
        deadline = session.deadline
        if deadline is None or session.row.options.event_title is None:
            return None
        half = timedelta(seconds=self.turn_seconds(session.row) / 2)
        delay = (deadline - half - self.clock()).total_seconds()
        return delay if delay > 0 else None

    def idle_remaining(self, row: Table) -> float:
        """Seconds until a paused table is closed, counted from the row's last stored change."""
        idle = float((self.clock() - row.updated_at).total_seconds())
        return max(0.0, self.settings.idle_hours * 3600 - idle)
