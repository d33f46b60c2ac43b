"""The Discord front of the change path, and the only code that answers a table's
interactions: a click becomes a plain request (``requests.py``) that goes down the change
path (``moves.py``, ``changes.py``), and its outcome comes back here to be drawn
(``answers.py``) and answered privately, within Discord's 3 s (deferred when the table or the
database keeps it waiting). The web table's socket is the other front of the same path.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

import discord

from bot import render
from bot.i18n import Translations, language_of, reader
from bot.render.specs import MessageSpec, digest
from bot.store.failures import StoreError, is_expected
from bot.store.protocol import GameStore
from bot.ui.payloads import drawn, send_kwargs

from .answers import Answers
from .changes import Changes, Drawer, StepFn
from .hands import hand_stage
from .moves import Moves
from .open_tables import OpenTables
from .outcome import Reply, Step
from .requests import Move, Request
from .session import HandHandle, TableSession

log = logging.getLogger(__name__)

# Discord wants an answer to an interaction within 3 s: a change still waiting for its table
# or the database by then is deferred, and answered when it is done.
DEFER_AFTER = 2.0


class Responder:
    def __init__(
        self,
        changes: Changes,
        moves: Moves,
        answers: Answers,
        tables: OpenTables,
        store: GameStore,
        clock: Callable[[], datetime],
    ) -> None:
        self.changes = changes
        self.moves = moves
        self.answers = answers
        self.tables = tables
        self.store = store
        self.clock = clock

    def drawer(self, tr: Translations) -> Drawer:
        return lambda session, reply: self.answers.draw(session, reply, tr)

    async def act(
        self,
        interaction: discord.Interaction[Any],
        table: int,
        move: Move,
        version: int | None = None,
    ) -> Step:
        """A move clicked on a button: the plain request down the change path, then its
        answer. The request's table must be the table of the channel it was clicked in."""
        request = Request(
            user_id=interaction.user.id,
            table=table,
            move=move,
            version=version,
            language=language_of(interaction.locale),
            channel_id=interaction.channel_id or 0,  # a click is always in a channel
        )
        session = self.moves.session_for(request)
        # Only a click that has to wait (its table or the database busy) can run late: a timer
        # for every click would cost more than the clicks themselves at a few hundred a second.
        slow = session is not None and self.moves.would_wait(session)
        watchdog = Deferral(interaction) if slow else None
        tr = reader(interaction)

        async def answer(outcome: Step) -> None:
            if watchdog is not None:
                await watchdog.done()
            if outcome.reply is not None:
                await self.send(session, interaction, outcome.reply, self._spec(outcome, tr))

        try:
            return await self.moves.handle(
                request, session=session, draw=self.drawer(tr), answer=answer
            )
        finally:
            if watchdog is not None:
                await watchdog.done()

    async def change(
        self, session: TableSession, interaction: discord.Interaction[Any], step: StepFn
    ) -> Step | None:
        """A Discord-only change (the lobby's buttons, its commands): down the change path,
        then its answer, then the publishers."""
        started = time.perf_counter()
        tr = reader(interaction)
        if self.tables.stopping:
            await self.say(interaction, render.notice("restarting", tr))
            return None
        slow = self.moves.would_wait(session)
        watchdog = Deferral(interaction) if slow else None
        try:
            outcome = await self.changes.apply(session, step, tr, self.drawer(tr))
        finally:
            if watchdog is not None:
                await watchdog.done()
        if outcome is not None and outcome.reply is not None:
            await self.send(session, interaction, outcome.reply, self._spec(outcome, tr))
        self.changes.settle(session, outcome, started)
        return outcome

    @staticmethod
    def _spec(outcome: Step, tr: Translations) -> MessageSpec:
        """The answer as drawn under the lock. If it could not be drawn (a bug, logged), its
        words alone, and a change that counted says so: never that it failed."""
        if isinstance(outcome.drawn, MessageSpec):
            return outcome.drawn
        text = outcome.reply.text if outcome.reply is not None else None
        if outcome.counted:
            text = render.notice("counted", tr)
        return MessageSpec(content=text or render.notice("click_failed", tr))

    async def find_or_refuse(
        self, interaction: discord.Interaction[Any], table: int
    ) -> TableSession | None:
        """The button's table (see :meth:`OpenTables.find`); None after refusing privately."""
        session = self.tables.find(table, interaction.channel_id)
        if session is None:
            await self.refuse(interaction, self.tables.missing(table=table))
        return session

    async def refuse(self, interaction: discord.Interaction[Any], code: str) -> None:
        """A refusal: always a new private message, never an edit of the clicked message."""
        await self.say(interaction, render.refusal(code, reader(interaction)))

    async def reply(self, interaction: discord.Interaction[Any], spec: MessageSpec) -> None:
        """A private message for the one who clicked or typed (a command's answer)."""
        await self.send(None, interaction, Reply(), spec)

    async def say(self, interaction: discord.Interaction[Any], text: str) -> None:
        """A private line for the one who clicked or typed."""
        await self.send(None, interaction, Reply(text), MessageSpec(content=text))

    async def post(self, interaction: discord.Interaction[Any], spec: MessageSpec) -> int | None:
        """A public answer (the lobby, a notice in the channel); its message's id, if known."""
        await self.send(None, interaction, Reply(ephemeral=False), spec)
        try:
            message = await interaction.original_response()
        except discord.HTTPException:
            return None
        return message.id

    async def follow_up(self, interaction: discord.Interaction[Any], text: str) -> None:
        """A second private line after the answer."""
        try:
            await interaction.followup.send(text, ephemeral=True)
        except discord.HTTPException:
            log.warning("could not follow up an interaction", exc_info=True)

    async def thinking(self, interaction: discord.Interaction[Any]) -> None:
        """A command whose answer takes a moment (a chart drawn): "thinking…" until it comes."""
        await interaction.response.defer(ephemeral=True, thinking=True)

    async def answer_with_file(
        self, interaction: discord.Interaction[Any], embed: discord.Embed, file: discord.File
    ) -> None:
        """The answer to a command that was thinking: an embed with a file it shows."""
        await interaction.edit_original_response(embed=embed, attachments=[file])

    async def show(
        self,
        session: TableSession,
        interaction: discord.Interaction[Any],
        spec: MessageSpec,
        *,
        edit: bool,
        user_id: int,
    ) -> None:
        """A player's hand message, asked for ("Your hand", Refresh, /kachuful hand)."""
        await self.send(session, interaction, Reply(hand_of=user_id, edit=edit), spec)

    async def send(
        self,
        session: TableSession | None,
        interaction: discord.Interaction[Any],
        reply: Reply,
        spec: MessageSpec,
    ) -> None:
        """Answer the interaction with ``spec``, as ``reply`` says (a new private message, or
        the clicked message edited: only ever a private one, or the lobby)."""
        edit = reply.edit and (reply.lobby or _clicked_private(interaction))
        spec = await drawn(spec)
        kwargs = send_kwargs(spec, edit=edit)
        deferred = interaction.response.is_done()  # deferred: the change took long
        followup: int | None = None  # a new message sent after deferring: its id
        try:
            if deferred and interaction.type is discord.InteractionType.application_command:
                # A deferred command shows "thinking…" until its response is edited.
                await interaction.edit_original_response(**send_kwargs(spec, edit=True))
            elif edit and deferred:
                await interaction.edit_original_response(**kwargs)
            elif edit:
                await interaction.response.edit_message(**kwargs)
            elif deferred:
                sent = await interaction.followup.send(
                    ephemeral=reply.ephemeral, wait=True, **kwargs
                )
                followup = sent.id
            else:
                await interaction.response.send_message(ephemeral=reply.ephemeral, **kwargs)
        except discord.HTTPException:
            log.warning("could not answer an interaction", exc_info=True)
            return
        if reply.hand_of is not None and session is not None and _has_hand(session, reply.hand_of):
            await self.opened_hand(session, reply.hand_of, interaction, spec, followup)

    async def opened_hand(
        self,
        session: TableSession,
        user_id: int,
        interaction: discord.Interaction[Any],
        spec: MessageSpec,
        message_id: int | None = None,
    ) -> None:
        """Remember a player's newest hand message (in the store too: after a restart it is
        brought up to date while its token lives)."""
        now = self.clock()
        session.hands[user_id] = HandHandle(
            interaction.token,
            now,
            digest=digest(spec),
            notice=spec.content,
            notice_version=session.row.version,
            stage=hand_stage(session, user_id),
            message_id=message_id,
            language=language_of(interaction.locale),
            picture=spec.picture,
        )
        if session.hand_publisher is not None:
            session.hand_publisher.opened()
        # Only needed after a restart: the player has their hand already, so a failure here
        # (the disk is full...) must not turn the answer into an error.
        try:
            await self.store.save_hand(
                session.row.id,
                user_id,
                interaction.token,
                now,
                message_id,
                language_of(interaction.locale),
            )
        except StoreError as error:
            if not is_expected(error):
                log.warning("table %s: hand message not remembered (%s)", session.row.id, error)
        except Exception:
            log.exception("table %s: hand message not remembered", session.row.id)


class Deferral:
    """Defers the interaction if the change has not finished after DEFER_AFTER seconds."""

    def __init__(self, interaction: discord.Interaction[Any]) -> None:
        self.interaction = interaction
        self.task: asyncio.Task[None] | None = None
        loop = asyncio.get_running_loop()
        self.handle = loop.call_later(DEFER_AFTER, self._fire)

    def _fire(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._defer())

    async def _defer(self) -> None:
        response = self.interaction.response
        if response.is_done():
            return
        command = self.interaction.type is discord.InteractionType.application_command
        try:
            await response.defer(ephemeral=True, thinking=command)
        except discord.HTTPException:
            log.debug("could not defer a slow interaction")

    async def done(self) -> None:
        self.handle.cancel()
        if self.task is not None:
            await self.task


def _has_hand(session: TableSession, user_id: int) -> bool:
    """Whether the answer was the user's hand (not the words drawn when they have none)."""
    return session.game is not None and session.row.seat_of(user_id) is not None


def _clicked_private(interaction: discord.Interaction[Any]) -> bool:
    message = interaction.message
    return message is not None and message.flags.ephemeral
