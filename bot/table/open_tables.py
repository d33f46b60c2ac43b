"""The open tables of this process, found by id or by channel; knows nothing of Discord.

A table is open from its lobby to its end; once closed (finished or stopped) it waits in
``closing`` while its publisher may still owe the channel messages (the final standings), so
that a stop delivers them too. Open games that could not be restored are kept as ``damaged``:
they hold their channel until the host or a manager closes them with /kachuful stop."""

from __future__ import annotations

import asyncio

from bot.places import Place
from bot.store.values import GameRef

from .session import TableSession


class OpenTables:
    def __init__(self) -> None:
        self.by_id: dict[int, TableSession] = {}
        self.closing: dict[int, TableSession] = {}
        self.by_channel: dict[int, int] = {}
        self.damaged: dict[int, GameRef] = {}
        # One new table at a time: the store refuses a second open game in a channel.
        self.create_lock = asyncio.Lock()
        # Set once the process stops: no click is taken and no driver planned from then on.
        self.stopping = False

    def add(self, session: TableSession) -> None:
        self.by_id[session.row.id] = session
        self.by_channel[session.row.channel_id] = session.row.id

    def link_channel(self, session: TableSession, channel_id: int) -> None:
        """A thread the game is played in: commands typed there find the table too."""
        self.by_channel[channel_id] = session.row.id

    def forget(self, session: TableSession) -> None:
        session.closed = True
        self.by_id.pop(session.row.id, None)
        self.closing[session.row.id] = session
        for channel, table in list(self.by_channel.items()):
            if table == session.row.id:
                del self.by_channel[channel]
        for task in (session.driver, session.lobby_task):
            if task is not None and not task.done() and task is not asyncio.current_task():
                task.cancel()

    def session_in(self, channel_id: int | None) -> TableSession | None:
        table = self.by_channel.get(channel_id) if channel_id is not None else None
        return self.by_id.get(table) if table is not None else None

    def session_at(self, place: Place | None) -> TableSession | None:
        """The open table of the place a command was typed in (bot/places.py): the thread's
        own or the one whose lobby opened it, the channel's own wherever its game is played."""
        if place is None:
            return None
        for channel in (place.id, place.parent_id):
            session = self.session_in(channel)
            if session is not None and place.holds(session.row):
                return session
        return None

    def damaged_at(self, place: Place | None) -> GameRef | None:
        if place is None:
            return None
        return next((r for r in self.damaged.values() if place.holds(r)), None)

    def missing(self, *, table: int | None = None, place: Place | None = None) -> str:
        """The refusal for a click or command that finds no table in memory."""
        if (table is not None and table in self.damaged) or self.damaged_at(place) is not None:
            return "damaged"
        return "no_table" if table is not None else "no_game_here"

    def find(self, table: int, channel_id: int | None) -> TableSession | None:
        """The table of a button, if it is the table of the channel the button was clicked in
        (a forged button for another channel's table finds nothing)."""
        session = self.by_id.get(table)
        if session is None or channel_id not in session.channel_ids:
            return None
        return session

    def all_sessions(self) -> list[TableSession]:
        """Open and closing tables: a game that ended a moment ago still owes its last posts."""
        return [*self.by_id.values(), *self.closing.values()]
