"""A seat's moves at a running table, as steps of the change path: bid, play, play unseen,
look, choose a card to confirm, "I'm back", leaving a running game. Each is checked against
the move counter it was drawn at, the seat and the rules (the engine's), under the table's
lock; its answer is the player's hand, described (``Reply(hand_of=...)``) and drawn by the
front from the state the change left. Nothing here knows Discord."""

from __future__ import annotations

from collections.abc import Callable

from bot import render
from bot.i18n import Translations
from kachuful_core import Game, KachufulError
from kachuful_core.claims import play_forced
from kachuful_core.events import BidPlaced, CardPlayed, Event, HandLooked

from .outcome import Reply, Step, refusal
from .session import TableSession

Action = Callable[[Game, int], list[Event]]


def _what(events: list[Event], tr: Translations) -> str:
    """What a click did, in words for a second click of the same button."""
    for event in events:
        if isinstance(event, BidPlaced):
            return render.notice("already_bid", tr, bid=event.bid)
        if isinstance(event, CardPlayed):
            return render.notice("already_played", tr, card=render.card_label(event.card, tr))
    return render.refusal("stale", tr)


def hand_step(
    user_id: int, notice: str | None = None, *, chosen: int | None = None, edit: bool = True
) -> Step:
    """An answer that is the player's hand (with ``notice``), not a change."""
    return Step(reply=Reply(notice, hand_of=user_id, chosen=chosen, edit=edit))


def leave_running(session: TableSession, user_id: int, tr: Translations) -> Step:
    """A player leaves a running game: a computer player takes the seat (lock held)."""
    row = session.row
    seat = row.seat_of(user_id)
    if seat is None:
        return refusal("not_seated", tr)
    entry = row.seats[seat]
    entry.left_user_id = user_id
    entry.user_id = None
    entry.away = False
    session.hands.pop(user_id, None)
    if all(s.user_id is None for s in row.seats):
        row.status = "stopped"
        row.ended = "all_left"
    return Step(reply=Reply(render.notice("you_left_game", tr)), commit=True)


def running_seat(session: TableSession, user_id: int, tr: Translations) -> tuple[Game, int] | Step:
    """The running game and the actor's seat at it, or the refusal to answer (not running,
    not seated)."""
    row, game = session.row, session.game
    if row.status != "running" or game is None:
        return refusal("not_running", tr)
    seat = row.seat_of(user_id)
    return refusal("not_seated", tr) if seat is None else (game, seat)


def apply_seat_action(
    session: TableSession,
    user_id: int,
    version: int,
    action: Action,
    tr: Translations,
) -> Step:
    """A seat's move by its player (under the table's lock): checked against the move
    counter it was drawn at, the seat and the rules, applied by ``action``."""
    row, seated = session.row, running_seat(session, user_id, tr)
    if isinstance(seated, Step):
        return seated
    game, seat = seated
    if version != row.version:
        done = session.recent.get((user_id, version))
        return hand_step(user_id, done or render.refusal("stale", tr))
    if row.seats[seat].away:
        return hand_step(user_id, render.refusal("away", tr))
    try:
        # A deal whose remaining cards are now all forced plays out in the same change.
        events = action(game, seat)
        events = [*events, *play_forced(game)] if events else events
    except KachufulError as error:
        return hand_step(user_id, render.refused_move(error, row, tr))
    if not events:  # e.g. looking again: nothing changed
        return hand_step(user_id)
    entry = row.seats[seat]
    entry.timeouts = 0
    if all(isinstance(e, HandLooked) for e in events):
        # Looking is private and moves nothing: no new move counter, no public post.
        entry.looked_deal = game.deal_index
        return Step(reply=hand_step(user_id).reply, commit=True, events=events, bump=False)
    session.remember_action(user_id, version, _what(events, tr))
    session.taken_by = (user_id, row.version + 1)
    return Step(reply=hand_step(user_id).reply, commit=True, events=events)


def choose_step(
    session: TableSession, user_id: int, version: int, card: int, tr: Translations
) -> Step:
    """A card clicked by a player who confirms each card: checked, then offered to confirm
    (nothing is committed: the confirm button is the card's own play button)."""
    row, seated = session.row, running_seat(session, user_id, tr)
    if isinstance(seated, Step):
        return seated
    game, seat = seated
    if version != row.version:
        return hand_step(user_id, render.refusal("stale", tr))
    try:
        game.check_play(seat, card)
    except KachufulError as error:
        return hand_step(user_id, render.refused_move(error, row, tr))
    notice = render.notice("confirm_card", tr, card=render.card_label(card, tr))
    return hand_step(user_id, notice, chosen=card)


def back_step(session: TableSession, user_id: int, seat: int, tr: Translations) -> Step:
    """ "I'm back": the owner takes an away seat back from the computer."""
    row = session.row
    if row.status != "running" or session.game is None:
        return refusal("not_running", tr)
    if not 0 <= seat < len(row.seats) or row.seats[seat].user_id != user_id:
        return refusal("not_your_seat", tr)
    if not row.seats[seat].away:
        return refusal("not_away", tr)
    entry = row.seats[seat]
    entry.away = False
    entry.timeouts = 0
    # The button is on a public message: the hand comes as a new private message.
    answer = hand_step(user_id, render.notice("welcome_back", tr), edit=False)
    return Step(reply=answer.reply, commit=True)
