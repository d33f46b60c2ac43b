"""Starting a lobby's game, as a step of the change path (lock held): the seats become the
engine's players, dealt from the game's secret seed. Nothing here knows Discord."""

from __future__ import annotations

from bot import render
from bot.i18n import Translations
from bot.model import Table, mode_of
from kachuful_core import Game

from .outcome import Reply, Step
from .session import TableSession, build_rules, seat_level
from .thinking import SLOW_LEVELS, Thinker


def computer_seats(row: Table) -> list[int]:
    return [index for index, seat in enumerate(row.seats) if seat.user_id is None]


def start_game(session: TableSession, tr: Translations, seed: str, thinker: Thinker) -> Step:
    row = session.row
    rules, _ = build_rules(row.options, len(row.seats))
    game = Game.new(rules, seed, players=[seat.name for seat in row.seats])
    events = game.opening_events()
    session.game = game
    row.seed = seed
    row.status = "running"
    # An Expert seat's worker starts now rather than at its first decision; a table with
    # none never starts the pool (a seat handed over to the Expert later starts it at its
    # first decision).
    if any(seat_level(row, seat) in SLOW_LEVELS for seat in computer_seats(row)):
        thinker.start()
    text = render.notice("game_started", tr)
    if mode_of(row) == "thread":
        text = render.notice("game_started_thread", tr)
    return Step(reply=Reply(text), commit=True, events=events)
