"""Ends of a deal without clicking through every card (the rules are kachuful_core.claims):

- "Claim the rest" on the hand message of the seat to play: a claim the engine finds certain
  is played out at once and noted on the seat (the channel then says "as claimed"); one that
  is not is refused privately, with nothing changed;
- a single legal card played for a player who chose it (bot/table/choices.py), by the driver;
- a deal whose every remaining card is forced plays itself out (the driver's "forced" step).
"""

from __future__ import annotations

from bot.i18n import Translations
from bot.model import Table
from kachuful_core import Game
from kachuful_core.claims import claim
from kachuful_core.events import Event

from .outcome import Step
from .seats import apply_seat_action
from .session import TableSession


def claim_for(row: Table, game: Game, seat: int) -> list[Event]:
    """Play out the seat's claim and note it on the seat (raises ClaimNotCertain: nothing
    changed)."""
    deal = game.deal_index
    trick = len(game.completed_tricks)  # the trick in progress, or the next one
    events = claim(game, seat)
    row.seats[seat].claimed.append((deal, trick))
    return events


def claim_step(session: TableSession, user_id: int, version: int, tr: Translations) -> Step:
    """ "Claim the rest", clicked by the seat to play."""

    def action(game: Game, seat: int) -> list[Event]:
        return claim_for(session.row, game, seat)

    return apply_seat_action(session, user_id, version, action, tr)
