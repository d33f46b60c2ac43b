"""Seat actions at a running table: bid, play, play unseen, look; "I'm back"; leaving a running
game; /kachuful stop; and showing a player their hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord

from bot import render
from bot.i18n import Translations, language_of, reader, translation
from bot.places import place_of
from bot.render.specs import MessageSpec
from kachuful_core import Game, KachufulError
from kachuful_core.claims import play_forced
from kachuful_core.events import BidPlaced, CardPlayed, Event, HandLooked
from kachuful_core.views import view as seat_view

from .open_tables import OpenTables
from .outcome import Reply, Step, private, refusal
from .responder import Responder
from .session import TableSession, paused

if TYPE_CHECKING:
    from bot.store import GameStore

Action = Callable[[Game, int], list[Event]]


def _what(events: list[Event], tr: Translations) -> str:
    """What a click did, in words for a second click of the same button."""
    for event in events:
        if isinstance(event, BidPlaced):
            return render.notice("already_bid", tr, bid=event.bid)
        if isinstance(event, CardPlayed):
            return render.notice("already_played", tr, card=render.card_label(event.card, tr))
    return render.refusal("stale", tr)


def hand_spec(
    session: TableSession,
    user_id: int,
    tr: Translations,
    notice: str | None = None,
    *,
    version: int | None = None,
    chosen: int | None = None,
) -> MessageSpec | None:
    """A player's hand message; ``version``: the move counter its buttons are drawn at (the
    next one, for the answer to a move about to be committed); ``chosen``: a card to confirm."""
    row, game = session.row, session.game
    seat = row.seat_of(user_id)
    if seat is None or game is None:
        return None
    drawn_at = row.version if version is None else version
    return render.hand_message(
        row,
        seat_view(game, seat),
        tr,
        version=drawn_at,
        notice=notice,
        deadline=session.deadline,
        undo=session.undo_for(user_id, drawn_at),
        chosen=chosen,
    )


def hand_step(
    session: TableSession,
    user_id: int,
    notice: str | None,
    tr: Translations,
    *,
    version: int | None = None,
) -> Step:
    spec = hand_spec(session, user_id, tr, notice, version=version)
    if spec is None:
        return private(notice or render.refusal("not_seated", tr))
    return Step(reply=Reply(spec, edit=True, hand_of=user_id))


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
    return Step(reply=Reply(MessageSpec(content=render.notice("you_left_game", tr))), commit=True)


def running_seat(session: TableSession, user_id: int, tr: Translations) -> tuple[Game, int] | Step:
    """The running game and the clicker's seat at it, or the refusal to answer (not running,
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
    counter the button was drawn at, the seat and the rules, applied by ``action``; the answer is
    the hand drawn as it will be after the commit."""
    row, seated = session.row, running_seat(session, user_id, tr)
    if isinstance(seated, Step):
        return seated
    game, seat = seated
    if version != row.version:
        done = session.recent.get((user_id, version))
        return hand_step(session, user_id, done or render.refusal("stale", tr), tr)
    if row.seats[seat].away:
        return hand_step(session, user_id, render.refusal("away", tr), tr)
    try:
        # A deal whose remaining cards are now all forced plays out in the same change.
        events = action(game, seat)
        events = [*events, *play_forced(game)] if events else events
    except KachufulError as error:
        return hand_step(session, user_id, render.refused_move(error, row, tr), tr)
    if not events:  # e.g. looking again: nothing changed
        return hand_step(session, user_id, None, tr)
    entry = row.seats[seat]
    entry.timeouts = 0
    if all(isinstance(e, HandLooked) for e in events):
        # Looking is private and moves nothing: no new move counter, no public post.
        entry.looked_deal = game.deal_index
        step = hand_step(session, user_id, None, tr)
        return Step(reply=step.reply, commit=True, events=events, bump=False)
    session.remember_action(user_id, version, _what(events, tr))
    session.taken_by = (user_id, row.version + 1)
    # The hand is drawn as it will be after the commit (at the next move counter).
    step = hand_step(session, user_id, None, tr, version=row.version + 1)
    return Step(reply=step.reply, commit=True, events=events)


class Play:
    def __init__(self, tables: OpenTables, responder: Responder, store: GameStore) -> None:
        self.tables = tables
        self.responder = responder
        self.store = store

    async def show_hand(
        self, interaction: discord.Interaction[Any], table: int | None, *, edit: bool
    ) -> None:
        """ "Your hand" (a new private message), Refresh (in place), or /kachuful hand."""
        tables, responder = self.tables, self.responder
        place = place_of(interaction)
        session = (
            tables.find(table, interaction.channel_id)
            if table is not None
            else tables.session_at(place)
        )
        if session is None:
            await responder.refuse(interaction, tables.missing(table=table, place=place))
            return
        if session.game is None:
            await responder.refuse(interaction, "not_running")
            return
        spec = hand_spec(session, interaction.user.id, reader(interaction))
        if spec is None:
            await responder.refuse(interaction, "not_seated")
            return
        reply = Reply(spec, edit=edit, hand_of=interaction.user.id)
        await responder.answer(session, interaction, reply)

    async def bid(
        self, interaction: discord.Interaction[Any], table: int, version: int, n: int, blind: bool
    ) -> None:
        await self.seat_action(
            interaction, table, version, lambda game, seat: game.bid(seat, n, blind=blind)
        )

    async def play(
        self, interaction: discord.Interaction[Any], table: int, version: int, card: int | None
    ) -> None:
        if card is None:
            await self.seat_action(interaction, table, version, lambda g, s: g.play_unseen(s))
        else:
            await self.seat_action(interaction, table, version, lambda g, s: g.play(s, card))

    async def choose(
        self, interaction: discord.Interaction[Any], table: int, version: int, card: int
    ) -> None:
        """A card clicked by a player who confirms each card: checked, then offered to confirm
        (nothing is committed: the confirm button is the card's own play button)."""
        session = await self.responder.find_or_refuse(interaction, table)
        if session is None:
            return
        user_id, tr = interaction.user.id, reader(interaction)

        def step(session: TableSession) -> Step:
            row, seated = session.row, running_seat(session, user_id, tr)
            if isinstance(seated, Step):
                return seated
            game, seat = seated
            if version != row.version:
                return hand_step(session, user_id, render.refusal("stale", tr), tr)
            try:
                game.check_play(seat, card)
            except KachufulError as error:
                return hand_step(session, user_id, render.refused_move(error, row, tr), tr)
            notice = render.notice("confirm_card", tr, card=render.card_label(card, tr))
            spec = hand_spec(session, user_id, tr, notice, chosen=card)
            return Step(reply=Reply(spec, edit=True, hand_of=user_id)) if spec else Step()

        await self.responder.change(session, interaction, step)

    async def look(self, interaction: discord.Interaction[Any], table: int, version: int) -> None:
        await self.seat_action(interaction, table, version, lambda game, seat: game.look(seat))

    async def seat_action(
        self, interaction: discord.Interaction[Any], table: int, version: int, action: Action
    ) -> None:
        """A click on the player's own hand message: bid, play, play unseen, look."""
        session = await self.responder.find_or_refuse(interaction, table)
        if session is None:
            return
        user_id = interaction.user.id
        await self.responder.change(
            session,
            interaction,
            lambda s: apply_seat_action(s, user_id, version, action, reader(interaction)),
        )

    async def back(self, interaction: discord.Interaction[Any], table: int, seat: int) -> None:
        """ "I'm back": the owner takes an away seat back from the computer."""
        session = await self.responder.find_or_refuse(interaction, table)
        if session is None:
            return
        user_id = interaction.user.id
        tr = reader(interaction)

        def step(session: TableSession) -> Step:
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
            welcome = render.notice("welcome_back", tr)
            spec = hand_spec(session, user_id, tr, welcome, version=row.version + 1)
            reply = Reply(spec, hand_of=user_id) if spec else None
            return Step(reply=reply, commit=True)

        await self.responder.change(session, interaction, step)

    async def stop(self, interaction: discord.Interaction[Any]) -> None:
        """/kachuful stop: the host or someone with Manage Server; no leaderboard change."""
        tables = self.tables
        user = interaction.user
        manager = isinstance(user, discord.Member) and user.guild_permissions.manage_guild
        session = tables.session_at(place_of(interaction))
        if session is None:
            await self._stop_damaged(interaction, manager=manager)
            return
        tr = reader(interaction)

        def step(session: TableSession) -> Step:
            row = session.row
            if user.id != row.host_id and not manager:
                return refusal("not_host_or_manager", tr)
            if row.status not in ("lobby", "running"):
                return refusal("not_running", tr)
            row.status = "stopped"
            row.ended = f"stop:{user.id}"
            return Step(
                reply=Reply(MessageSpec(content=render.notice("you_stopped", tr))), commit=True
            )

        await self.responder.change(session, interaction, step)

    async def _stop_damaged(self, interaction: discord.Interaction[Any], *, manager: bool) -> None:
        """/kachuful stop in a channel whose open game could not be restored: close it in the
        store without reading it, so that the channel is free again."""
        tables = self.tables
        ref = tables.damaged_at(place_of(interaction))
        if ref is None:
            await self.responder.refuse(interaction, "no_game_here")
            return
        if interaction.user.id != ref.host_id and not manager:
            await self.responder.refuse(interaction, "not_host_or_manager")
            return
        await self.store.stop_open_game(ref.id)
        tables.damaged.pop(ref.id, None)
        # A public notice in the channel: the channel's language (the table is unreadable).
        tr = translation(language_of(interaction.guild_locale))
        text = render.notice("damaged_stopped", tr, by=f"<@{interaction.user.id}>")
        await self.responder.post(interaction, MessageSpec(content=text))


__all__ = ["Play", "apply_seat_action", "hand_spec", "leave_running", "paused", "running_seat"]
