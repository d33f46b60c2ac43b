"""A player's own choices at a table, kept on their seat for the rest of the game and set from
toggles on their hand message: ``single_card`` (a single legal card is played for them, by the
driver) and ``confirm_cards`` (a card counts only once confirmed, bot/table/seats.py). A
choice is not a move: no new move counter, no public post."""

from __future__ import annotations

from bot import render
from bot.i18n import Translations

from .outcome import Step
from .requests import CHOICES, Choice
from .seats import hand_step, running_seat
from .session import TableSession

__all__ = ["CHOICES", "Choice", "set_choice_step"]


def set_choice_step(
    session: TableSession, user_id: int, choice: Choice, on: bool, tr: Translations
) -> Step:
    seated = running_seat(session, user_id, tr)
    if isinstance(seated, Step):
        return seated
    if choice not in CHOICES:  # a forged request: the type says so, the client may not
        return hand_step(user_id, render.refusal("stale", tr))
    setattr(session.row.seats[seated[1]], choice, on)
    notice = render.notice(f"{choice}_{'on' if on else 'off'}", tr)
    return Step(reply=hand_step(user_id, notice).reply, commit=True, bump=False)
