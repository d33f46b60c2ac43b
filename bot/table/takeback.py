"""Taking back a misclick (the rules are kachuful_core.takeback): the player's own last bid or
card, from the button their hand message shows right after it, while nothing else has
happened at the table. A take-back is a change like any other: a new move counter, committed
as one transaction (the record then holds only the moves that stood)."""

from __future__ import annotations

from bot import render
from bot.i18n import Translations
from kachuful_core import KachufulError
from kachuful_core.errors import NothingToTakeBack
from kachuful_core.takeback import take_back

from .outcome import Step
from .seats import hand_step, running_seat
from .session import TableSession


def take_back_step(session: TableSession, user_id: int, version: int, tr: Translations) -> Step:
    row, seated = session.row, running_seat(session, user_id, tr)
    if isinstance(seated, Step):
        return seated
    game, seat = seated
    try:
        # Only the player's own click made the last change, and nothing moved since.
        if version != row.version or session.taken_by != (user_id, version):
            raise NothingToTakeBack(seat)
        if row.seats[seat].away:
            raise NothingToTakeBack(seat)
        session.game = take_back(game, seat)
    except KachufulError as error:
        return hand_step(user_id, render.refused_move(error, row, tr))
    session.taken_by = None
    answer = hand_step(user_id, render.notice("taken_back", tr))
    return Step(reply=answer.reply, commit=True)
