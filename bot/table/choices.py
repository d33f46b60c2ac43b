"""A player's own choices at a table, kept on their seat for the rest of the game and set from
toggles on their hand message: ``single_card`` (a single legal card is played for them, by the
driver) and ``confirm_cards`` (a card counts only once confirmed, bot/table/play.py). A choice
is not a move: no new move counter, no public post."""

from __future__ import annotations

from typing import Any, Literal

import discord

from bot import render
from bot.i18n import reader

from .outcome import Step
from .play import hand_step, running_seat
from .responder import Responder
from .session import TableSession

Choice = Literal["single_card", "confirm_cards"]
CHOICES: tuple[Choice, ...] = ("single_card", "confirm_cards")


class SeatChoices:
    def __init__(self, responder: Responder) -> None:
        self.responder = responder

    async def set(
        self, interaction: discord.Interaction[Any], table: int, choice: Choice, on: bool
    ) -> None:
        session = await self.responder.find_or_refuse(interaction, table)
        if session is None:
            return
        user_id, tr = interaction.user.id, reader(interaction)

        def step(session: TableSession) -> Step:
            seated = running_seat(session, user_id, tr)
            if isinstance(seated, Step):
                return seated
            setattr(session.row.seats[seated[1]], choice, on)
            notice = render.notice(f"{choice}_{'on' if on else 'off'}", tr)
            answer = hand_step(session, user_id, notice, tr)
            return Step(reply=answer.reply, commit=True, bump=False)

        await self.responder.change(session, interaction, step)
