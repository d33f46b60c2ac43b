"""Ends of a deal without clicking through every card (the rules are kachuful_core.claims):

- "Claim the rest" on the hand message of the seat to play: a claim the engine finds certain
  is played out at once and noted on the seat (the channel then says "as claimed"); one that
  is not is refused privately, with nothing changed;
- a single legal card played for a player who chose it (bot/table/choices.py), by the driver;
- a deal whose every remaining card is forced plays itself out (the driver's "forced" step).
"""

from __future__ import annotations

from typing import Any

import discord

from bot.i18n import reader
from bot.model import Table
from kachuful_core import Game
from kachuful_core.claims import claim
from kachuful_core.events import Event

from .outcome import Step
from .play import apply_seat_action
from .responder import Responder
from .session import TableSession


def claim_for(row: Table, game: Game, seat: int) -> list[Event]:
    """Play out the seat's claim and note it on the seat (raises ClaimNotCertain: nothing
    changed)."""
    deal = game.deal_index
    trick = len(game.completed_tricks)  # the trick in progress, or the next one
    events = claim(game, seat)
    row.seats[seat].claimed.append((deal, trick))
    return events


class Endgame:
    def __init__(self, responder: Responder) -> None:
        self.responder = responder

    async def claim(self, interaction: discord.Interaction[Any], table: int, version: int) -> None:
        session = await self.responder.find_or_refuse(interaction, table)
        if session is None:
            return
        user_id, tr = interaction.user.id, reader(interaction)

        def step(session: TableSession) -> Step:
            def action(game: Game, seat: int) -> list[Event]:
                return claim_for(session.row, game, seat)

            return apply_seat_action(session, user_id, version, action, tr)

        await self.responder.change(session, interaction, step)
