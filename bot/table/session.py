"""One table in memory, and the plain helpers every part of the table code shares."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from bot.model import Table, TableOptions
from bot.options import table_rules
from bot.store.values import Delivered
from kachuful_core import Game, KachufulError, Phase, Rules
from kachuful_core.players import LEVELS, Decision, Player
from kachuful_core.record import load_game
from kachuful_core.takeback import last_move

# How many recent seat actions a table remembers, to tell a double click what its first
# click did.
RECENT_ACTIONS = 16


@dataclass
class HandHandle:
    """A player's open private hand message: the token of the interaction it answered (the
    bot may edit it with that token for 15 minutes) and the digest of what it shows."""

    token: str
    opened_at: datetime
    digest: str | None = None
    expired_notice: bool = False
    # A notice the message was answered with (welcome back, a refused click): redraws keep it
    # until the table moves on from the move counter it was given at.
    notice: str | None = None
    notice_version: int | None = None
    # The deal and phase the message shows, and when a watcher's pending redraw is due (loop
    # time): see HandPublisher.
    stage: tuple[int, str] | None = None
    due: float | None = None
    # A hand sent as a follow-up (a deferred click) is that message, not the original response.
    message_id: int | None = None
    # The language of the player's last interaction with the hand (bot.i18n): redraws, which
    # have no interaction of their own, stay in it.
    language: str = "en"
    # The picture of the cards the message has (bot.render.pictures), not uploaded again while
    # it stays the same; None: not known (after a restart).
    picture: object | None = None


class PublicMessages(Protocol):
    """What the table code asks of a table's publisher (``publisher.Publisher``)."""

    delivered: dict[str, Delivered] | None

    @property
    def thread_id(self) -> int | None: ...

    async def load(self) -> None: ...

    def poke(self) -> None: ...

    async def flush(self) -> None: ...

    def stop(self) -> None: ...


class HandMessages(Protocol):
    """What the table code asks of a table's hand publisher (``hands.HandPublisher``)."""

    async def load(self) -> None: ...

    def poke(self) -> None: ...

    def opened(self) -> None: ...

    def stop(self) -> None: ...


class TableSession:
    """One table in memory: the stored row, the engine's game, and the table's lock."""

    def __init__(self, row: Table, game: Game | None = None) -> None:
        self.row = row
        self.game = game
        if game is not None:
            forget_record(row)
        self.lock = asyncio.Lock()
        self.driver: asyncio.Task[None] | None = None
        self.driver_sleeping = False
        self.lobby_task: asyncio.Task[None] | None = None
        self.lobby_sleeping = False
        # When the turn clock of the human to act runs out (None when a computer acts).
        self.deadline: datetime | None = None
        self.hands: dict[int, HandHandle] = {}
        self.players: dict[tuple[int, str], Player] = {}  # (seat, level) -> player
        # The last slow decision, by (move counter, seat, level): reused if its move could not
        # be saved; forgotten at every commit (a look at a hand changes the view, not the
        # move counter).
        self.decided: tuple[tuple[int, int, str], Decision] | None = None
        # (user id, move counter) -> what that click did, for a second click of the same button.
        self.recent: OrderedDict[tuple[int, int], str] = OrderedDict()
        # The player whose own click made the table's last change, and the move counter it
        # left: only that player may take the move back, and only at that counter (memory
        # only: after a restart nothing is offered, which is the safe side).
        self.taken_by: tuple[int, int] | None = None
        self.closed = False
        self.publisher: PublicMessages | None = None
        self.hand_publisher: HandMessages | None = None

    def undo_for(self, user_id: int, version: int) -> str | None:
        """What the player may still take back on a hand drawn at ``version``: "bid" or
        "card", their own last move, if their click made the table's last change."""
        seat = self.row.seat_of(user_id)
        if self.taken_by != (user_id, version) or seat is None or self.game is None:
            return None
        if self.row.seats[seat].away:
            return None
        move = last_move(self.game)
        return move[1] if move is not None and move[0] == seat else None

    def remember_action(self, user_id: int, version: int, what: str) -> None:
        self.recent[(user_id, version)] = what
        while len(self.recent) > RECENT_ACTIONS:
            self.recent.popitem(last=False)

    def forget_actions_at(self, version: int) -> None:
        """The change at this move counter was not saved: no click at it counted (a second
        click of the same button must not be told that its first one did)."""
        for key in [key for key in self.recent if key[1] == version]:
            del self.recent[key]

    @property
    def channel_ids(self) -> set[int]:
        """The channels whose clicks may reach this table: its own, and its thread."""
        ids = {self.row.channel_id}
        if self.publisher is not None and self.publisher.thread_id is not None:
            ids.add(self.publisher.thread_id)
        return ids


def paused(row: Table) -> bool:
    """Every seat is played by the computer: the game waits for an "I'm back"."""
    return all(seat.computer_plays for seat in row.seats)


def build_rules(options: TableOptions, players: int) -> tuple[Rules, bool]:
    return table_rules(options, players)


def game_from_record(record: dict[str, Any] | None, seed: str | None) -> Game:
    """Rebuild a game from its stored record and the seed that deals the deals to come."""
    if record is None:
        raise KachufulError("no record")
    return load_game(record, seed=seed)


def rebuild_game(row: Table) -> Game:
    """The game of a stored row: the record replayed, plus the looks at hands (blind bids)
    during bidding, which are not moves of the record and are kept with the seats."""
    game = game_from_record(row.record, row.seed)
    for seat, entry in enumerate(row.seats):
        if entry.looked_deal == game.deal_index and game.phase is Phase.BIDDING:
            game.look(seat)
    return game


def forget_record(row: Table) -> None:
    """A table's record lives in its Game, and is written from it (as JSON text) at each
    move. (Kept in the row as a dict it grew past 100 KB per table by a game's end.)"""
    row.record = None


def joinable_levels(row: Table) -> list[str]:
    """The computer levels that may take a seat at this table, weakest first (the channel's
    settings, copied into the table's options when it opened; every level by default)."""
    if row.options.computers is False:
        return []
    chosen = row.options.computer_levels
    if chosen is None:
        return list(LEVELS)
    return [level for level in LEVELS if level in chosen]


def takeover_level(row: Table) -> str:
    """The level that plays a seat handed to the computer (time-outs, a player who left): the
    strongest the table allows (the heuristic if it allows none)."""
    levels = joinable_levels(row)
    return levels[-1] if levels else "heuristic"


def seat_level(row: Table, seat: int) -> str:
    entry = row.seats[seat]
    if entry.user_id is None and entry.left_user_id is None:
        return entry.level if entry.level in LEVELS else "heuristic"
    return takeover_level(row)
