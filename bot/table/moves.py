"""The change path's front door: a plain :class:`~bot.table.requests.Request` in, a
:class:`~bot.table.outcome.Step` out (the state the change left, the answer to the actor, what
the publishers must show, which they are then told to show). Every front comes through here:
the Discord responder (a button clicked) and the web table's socket (a card tapped) are two
adapters of this one path, which knows neither.

    step = await moves.handle(Request(user_id, table, PlayCard(card), version, "fr"))

The actor's answer is described (``step.reply``); a front that wants it drawn from the very
state the change left passes ``draw``, which runs under the table's lock (``changes.py``), and
one that answers its actor passes ``answer``, awaited before the publishers are told (the
actor hears first, then the channel and the other seats).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from bot import render
from bot.i18n import Translations, translation
from bot.store.protocol import GameStore
from kachuful_core import Game
from kachuful_core.events import Event

from .changes import Changes, Drawer, StepFn
from .choices import set_choice_step
from .endgame import claim_step
from .open_tables import OpenTables
from .outcome import Reply, Step, refusal
from .requests import (
    COUNTED,
    Back,
    Bid,
    Choose,
    Claim,
    Look,
    PlayCard,
    Request,
    SetChoice,
    TakeBack,
)
from .seats import apply_seat_action, back_step, choose_step
from .session import TableSession
from .takeback import take_back_step


class Moves:
    def __init__(self, tables: OpenTables, changes: Changes, store: GameStore) -> None:
        self.tables = tables
        self.changes = changes
        self.store = store

    def session_for(self, request: Request) -> TableSession | None:
        """The request's table, if it is open here (and, for a click in a channel, if it is
        that channel's table or its thread's: a forged button for another channel's table
        finds nothing)."""
        if request.channel_id is None:
            return self.tables.by_id.get(request.table)
        return self.tables.find(request.table, request.channel_id)

    def would_wait(self, session: TableSession) -> bool:
        """Whether the change must wait for its table or the database (a front with a deadline
        to answer, as Discord's 3 s, may then say it is working on it)."""
        return session.lock.locked() or self.store.busy()

    async def handle(
        self,
        request: Request,
        *,
        session: TableSession | None = None,
        draw: Drawer | None = None,
        answer: Callable[[Step], Awaitable[None]] | None = None,
    ) -> Step:
        """Check and apply the request's move through the engine, commit it, tell the table's
        publishers and driver; return what happened. Never raises for a bad request: every
        refusal is a Step whose reply says why, in the actor's language."""
        started = time.perf_counter()
        tr = translation(request.language)
        if self.tables.stopping:
            outcome = Step(reply=Reply(render.notice("restarting", tr)))
        elif (session := session or self.session_for(request)) is None:
            outcome = refusal(self.tables.missing(table=request.table), tr)
        else:
            applied = await self.changes.apply(session, step_of(request, tr), tr, draw)
            outcome = applied if applied is not None else Step(version=session.row.version)
        if answer is not None:
            await answer(outcome)
        if session is not None:
            self.changes.settle(session, outcome, started)
        return outcome


def step_of(request: Request, tr: Translations) -> StepFn:
    """The step that checks and applies the request's move, under the table's lock."""
    user, version, move = request.user_id, request.version, request.move
    if isinstance(move, COUNTED) and version is None:
        return lambda session: refusal("stale", tr)
    if isinstance(move, SetChoice):
        choice, on = move.choice, move.on
        return lambda session: set_choice_step(session, user, choice, on, tr)
    if isinstance(move, Back):
        seat = move.seat
        return lambda session: back_step(session, user, seat, tr)
    assert version is not None
    if isinstance(move, Choose):
        card = move.card
        return lambda session: choose_step(session, user, version, card, tr)
    if isinstance(move, TakeBack):
        return lambda session: take_back_step(session, user, version, tr)
    if isinstance(move, Claim):
        return lambda session: claim_step(session, user, version, tr)
    action = _seat_action(move)
    return lambda session: apply_seat_action(session, user, version, action, tr)


def _seat_action(move: Bid | PlayCard | Look) -> Callable[[Game, int], list[Event]]:
    if isinstance(move, Bid):
        n, blind = move.n, move.blind
        return lambda game, seat: game.bid(seat, n, blind=blind)
    if isinstance(move, Look):
        return lambda game, seat: game.look(seat)
    if move.card is None:
        return lambda game, seat: game.play_unseen(seat)
    card = move.card
    return lambda game, seat: game.play(seat, card)
