"""The lobby: /kachuful start, Join · Leave · Add computer player · Start, and its timer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord

from bot import render
from bot.i18n import Translations, for_table, reader
from bot.model import Seat, Table, TableOptions
from bot.places import Place, place_of
from bot.render.specs import MessageSpec, digest
from bot.render.words import host_seat_name
from bot.store.failures import ChannelBusy, StoreError
from bot.store.values import Delivered
from kachuful_core.rules import LENGTHS

from . import permissions
from .answers import Answers
from .changes import Changes
from .not_saved import not_saved
from .open_tables import OpenTables
from .outcome import Reply, Step, private, refusal, retry_delay
from .responder import Responder
from .seats import leave_running
from .session import TableSession, joinable_levels
from .start import start_game
from .thinking import Thinker
from .timing import Timing

if TYPE_CHECKING:
    from bot.store.protocol import GameStore


def bot_permissions(
    interaction: discord.Interaction[Any], channel_id: int
) -> tuple[discord.Permissions, bool]:
    """The bot's permissions where a lobby goes, and whether that is a thread: the
    interaction's own channel (as Discord computed them), or the channel of the table whose
    thread it came from (as cached; else the thread's, which follow their channel's)."""
    here = interaction.channel
    if channel_id == interaction.channel_id:
        return interaction.app_permissions, isinstance(here, discord.Thread)
    guild = interaction.guild
    channel = guild.get_channel(channel_id) if guild is not None else None
    if channel is None or guild is None or guild.me is None:
        return interaction.app_permissions, False
    return channel.permissions_for(guild.me), False


class Lobby:
    def __init__(
        self,
        tables: OpenTables,
        responder: Responder,
        answers: Answers,
        changes: Changes,
        timing: Timing,
        store: GameStore,
        thinker: Thinker,
        *,
        new_seed: Callable[[], str],
        open_session: Callable[[TableSession], None],
    ) -> None:
        self.tables = tables
        self.responder = responder
        self.answers = answers
        self.changes = changes
        self.timing = timing
        self.store = store
        self.thinker = thinker
        self.new_seed = new_seed  # a secret per game; tests pass a fixed sequence
        self.open_session = open_session  # a new table: registered, with its publishers

    async def open(
        self,
        interaction: discord.Interaction[Any],
        options: TableOptions,
        max_seats: int,
        *,
        host: Seat | None = None,
        channel_id: int | None = None,
    ) -> None:
        """/kachuful start (and Play again, whose host is the last game's): one open game per
        channel. The lobby is the answer to the interaction, unless it goes to another channel
        (``channel_id``: Play again clicked in the thread a table played in opens the next
        table in that table's channel), where the publisher posts it."""
        tables = self.tables
        tr = reader(interaction)
        place = place_of(interaction)
        if interaction.guild_id is None or place is None:
            await self.responder.refuse(interaction, "guild_only")
            return
        channel_id = place.id if channel_id is None else channel_id
        here = channel_id == place.id
        have, in_thread = bot_permissions(interaction, channel_id)
        missing = permissions.lacking(have, in_thread)
        if missing:
            # Answers to clicks need no permission, posts in the channel do: without them the
            # lobby would open and the game then run unseen.
            await self.responder.say(interaction, render.missing_permissions(missing, tr))
            return
        if here and (taken := self._table_at(place)) is not None:
            # Typed in the thread of a table still open: that table is this place's.
            await self.responder.say(interaction, self._busy_text(taken, tr))
            return
        note = None
        if options.mode == "thread":
            lacking = permissions.missing_of(have, permissions.THREADS)
            if in_thread:
                options = replace(options, mode="trick")
                note = render.thread_in_thread(tr)
            elif lacking:
                options = replace(options, mode="trick")
                note = render.thread_fallback(lacking, tr)
        if host is None:
            host = Seat(user_id=interaction.user.id, name=interaction.user.display_name)
        assert host.user_id is not None
        try:
            async with tables.create_lock:
                row = await self.store.create_game(
                    guild_id=interaction.guild_id,
                    channel_id=channel_id,
                    host_id=host.user_id,
                    options=options,
                    max_seats=max_seats,
                    seats=[host],
                    lobby_token=interaction.token if here else None,
                )
        except ChannelBusy as busy:
            await self.responder.say(interaction, self._busy_text(busy.game_id, tr))
            return
        except StoreError as error:
            await self.responder.say(
                interaction, not_saved(error, tr) or render.notice("busy_db", tr)
            )
            return
        session = TableSession(row)
        self.open_session(session)
        assert session.publisher is not None
        session.publisher.delivered = {}  # a new table: nothing delivered yet
        if here:
            spec = self.lobby_spec(row)
            message_id = await self.responder.post(interaction, spec)
            await self._remember_lobby(session, message_id, spec)
        else:
            session.publisher.poke()  # the lobby, posted with its nonce (exactly once)
            opened = render.notice("lobby_opened_in", tr, channel=f"<#{channel_id}>")
            await self.responder.say(interaction, opened)
        if note:
            await self.responder.follow_up(interaction, note)
        self.schedule_timer(session)

    async def play_again(self, interaction: discord.Interaction[Any], table: int) -> None:
        """ "Play again" on a game's final standings: a new lobby in the game's channel (also
        when they were posted in its thread) with the same options, the previous host as host,
        and the other players invited (each clicks Join to sit)."""
        tr = reader(interaction)
        try:
            old = await self.store.load_game(table)
        except StoreError as error:
            await self.responder.say(
                interaction, not_saved(error, tr) or render.notice("busy_db", tr)
            )
            return
        place = place_of(interaction)
        if old is None or old.status != "finished" or place is None or not place.holds(old):
            await self.responder.refuse(interaction, "no_table")
            return
        players = [s.user_id or s.left_user_id for s in old.seats]
        if interaction.user.id not in players and interaction.user.id != old.host_id:
            await self.responder.refuse(interaction, "not_a_player")
            return
        host_seat = next((s for s in old.seats if old.host_id in (s.user_id, s.left_user_id)), None)
        if host_seat is not None:
            name = host_seat.name
        elif interaction.user.id == old.host_id:
            name = interaction.user.display_name
        else:
            name = host_seat_name(for_table(old.options))
        host = Seat(user_id=old.host_id, name=name)
        invited = [s.user_id for s in old.seats if s.user_id and s.user_id != old.host_id]
        # The new table states every option itself, even those its old row left unstated.
        options = replace(old.options, invited=tuple(invited), unstated=frozenset())
        await self.open(interaction, options, old.max_seats, host=host, channel_id=old.channel_id)

    async def _remember_lobby(
        self, session: TableSession, message_id: int | None, spec: MessageSpec
    ) -> None:
        """The lobby's message, posted as the answer to /kachuful start: stored as delivered."""
        if message_id is None:
            return
        row = session.row
        async with session.lock:
            row.message_id = message_id
            delivered = Delivered(row.channel_id, message_id, digest(spec))
            try:
                await self.store.set_message_id(row.id, message_id)
                await self.store.mark_delivered(row.id, "lobby", delivered)
            except StoreError:
                # The lobby is posted and answered (the store logged why it cannot write):
                # the publisher adopts the message by its id and stores it when it can.
                return
            publisher = session.publisher
            if publisher is not None and publisher.delivered is not None:
                publisher.delivered["lobby"] = delivered

    def lobby_spec(self, row: Table) -> MessageSpec:
        return self.answers.lobby_spec(row)

    def _table_at(self, place: Place) -> int | None:
        """The open table of a place, restored or damaged (the store refuses a second open
        table under one channel, not in the thread a table's lobby opened)."""
        session, damaged = self.tables.session_at(place), self.tables.damaged_at(place)
        return session.row.id if session else damaged.id if damaged else None

    def _busy_text(self, game_id: int | None, tr: Translations) -> str:
        if game_id is not None and game_id in self.tables.damaged:
            return render.refusal("damaged", tr)
        existing = self.tables.by_id.get(game_id) if game_id else None
        if existing is None or existing.row.message_id is None:
            return render.notice("busy", tr)
        row = existing.row
        link = f"https://discord.com/channels/{row.guild_id}/{row.channel_id}/{row.message_id}"
        return render.notice(
            "busy_running" if row.status == "running" else "busy_lobby", tr, link=link
        )

    async def click(
        self, interaction: discord.Interaction[Any], table: int, version: int, act: str
    ) -> None:
        """Join · Leave · Add computer player · Start, clicked on the lobby message."""
        session = await self.responder.find_or_refuse(interaction, table)
        if session is None:
            return
        tr = reader(interaction)

        def step(session: TableSession) -> Step:
            if session.row.status != "lobby":
                return refusal("not_lobby", tr)
            if act in ("cpu", "start") and version != session.row.version:
                # Join and Leave mean the same whatever the lobby looked like (people join at
                # the same moment all the time); another computer player or starting with
                # other seats than the ones shown is what a stale button must not do.
                return refusal("stale", tr)
            return self._act(session, interaction.user, act, tr, on_lobby=True)

        await self.responder.change(session, interaction, step)
        self._after_lobby_answer(session, interaction)

    async def command(self, interaction: discord.Interaction[Any], act: str) -> None:
        """/kachuful join and /kachuful leave."""
        place = place_of(interaction)
        session = self.tables.session_at(place)
        if session is None:
            await self.responder.refuse(interaction, self.tables.missing(place=place))
            return
        tr = reader(interaction)

        def step(session: TableSession) -> Step:
            if session.row.status == "running" and act == "leave":
                return leave_running(session, interaction.user.id, tr)
            if session.row.status != "lobby":
                return refusal("not_lobby", tr)
            return self._act(session, interaction.user, act, tr, on_lobby=False)

        await self.responder.change(session, interaction, step)

    def _after_lobby_answer(
        self, session: TableSession, interaction: discord.Interaction[Any]
    ) -> None:
        """The lobby redrawn as the answer to a click on it: the publisher need not edit it."""
        publisher = session.publisher
        if publisher is None or publisher.delivered is None:
            return
        lobby = publisher.delivered.get("lobby")
        message = interaction.message
        if (
            lobby is not None
            and message is not None
            and session.row.status == "lobby"
            and message.id == lobby.message_id
        ):
            spec = self.lobby_spec(session.row)
            publisher.delivered["lobby"] = type(lobby)(
                lobby.channel_id, lobby.message_id, digest(spec)
            )

    def _act(
        self, session: TableSession, user: Any, act: str, tr: Translations, *, on_lobby: bool
    ) -> Step:
        """Apply a lobby change (lock held)."""
        row = session.row
        seat = row.seat_of(user.id)
        if act == "join":
            if seat is not None:
                return refusal("already_seated", tr)
            if len(row.seats) >= row.max_seats:
                return refusal("table_full", tr)
            row.seats.append(Seat(user_id=user.id, name=user.display_name))
            return self._changed(session, on_lobby, render.notice("joined", tr))
        if act == "leave":
            if seat is None:
                return refusal("not_seated", tr)
            row.seats.pop(seat)
            if user.id != row.host_id:
                return self._changed(session, on_lobby, render.notice("left_lobby", tr))
            humans = [s for s in row.seats if s.user_id is not None]
            if not humans:
                row.status = "stopped"
                row.ended = "host_left"
                return Step(reply=Reply(render.notice("you_left_lobby_closed", tr)), commit=True)
            row.host_id = humans[0].user_id  # type: ignore[assignment]
            return self._changed(session, on_lobby, render.notice("new_host", tr, host=row.host_id))
        if act == "cpu":
            if seat is None:
                return refusal("not_seated", tr)
            if len(row.seats) >= row.max_seats:
                return refusal("table_full", tr)
            levels = joinable_levels(row)
            if not levels:
                return private(render.notice("no_computers", tr))
            # The levels on offer, privately: the chosen one takes a seat (add_computer).
            return Step(reply=Reply(levels=tuple(levels)))
        if act == "start":
            if user.id != row.host_id:
                return refusal("not_host", tr)
            if len(row.seats) < 3:
                return refusal("need_players", tr)
            return self.start_step(session, tr)
        raise ValueError(act)

    async def add_computer(
        self, interaction: discord.Interaction[Any], table: int, version: int, level: str
    ) -> None:
        """A level chosen after "Add computer player": a computer player of it sits down."""
        session = await self.responder.find_or_refuse(interaction, table)
        if session is None:
            return
        user_id = interaction.user.id
        tr = reader(interaction)

        def step(session: TableSession) -> Step:
            row = session.row
            if row.status != "lobby":
                return refusal("not_lobby", tr)
            if row.seat_of(user_id) is None:
                return refusal("not_seated", tr)
            if version != row.version:
                return refusal("stale", tr)
            if len(row.seats) >= row.max_seats:
                return refusal("table_full", tr)
            if level not in joinable_levels(row):
                return private(render.notice("no_computers", tr))
            name = render.computer_name(
                {s.name for s in row.seats}, len(row.seats) + 1, for_table(row.options)
            )
            row.seats.append(Seat(user_id=None, name=name, level=level))
            words = render.notice("computer_sits", tr, name=name)
            return Step(reply=Reply(words, edit=True), commit=True)

        await self.responder.change(session, interaction, step)

    async def choose_length(
        self, interaction: discord.Interaction[Any], table: int, length: str
    ) -> None:
        """Quick game · Classic game · Full game, clicked by the host on the lobby: the game's
        largest hand becomes that length's (a max_hand given at /kachuful start included)."""
        session = await self.responder.find_or_refuse(interaction, table)
        if session is None:
            return
        user_id = interaction.user.id
        tr = reader(interaction)

        def step(session: TableSession) -> Step:
            row = session.row
            if row.status != "lobby":
                return refusal("not_lobby", tr)
            if user_id != row.host_id:
                return refusal("not_host", tr)
            if length not in LENGTHS:
                return refusal("bad_length", tr)
            if row.options.rules["max_hand"] == length:
                return private(render.notice(f"length_already_{length}", tr))
            row.options = row.options.with_rules(max_hand=length)
            return self._changed(session, True, "")

        await self.responder.change(session, interaction, step)
        self._after_lobby_answer(session, interaction)

    def _changed(self, session: TableSession, on_lobby: bool, words: str) -> Step:
        if on_lobby:
            # Clicked on the lobby itself: redraw it as the answer to the click (drawn once
            # the change is committed, at its new move counter).
            return Step(reply=Reply(lobby=True, edit=True), commit=True)
        return Step(reply=Reply(words), commit=True)

    def start_step(self, session: TableSession, tr: Translations, seed: str | None = None) -> Step:
        """Start the game of a lobby (lock held): with a new secret seed, or ``seed`` (an
        event's table, whose seed was chosen when its round was seated)."""
        if session.lobby_task is not None and session.lobby_sleeping:
            session.lobby_task.cancel()
        return start_game(session, tr, seed or self.new_seed(), self.thinker)

    def schedule_timer(self, session: TableSession) -> None:
        if session.lobby_task is not None and not session.lobby_task.done():
            return
        elapsed = (self.timing.clock() - session.row.created_at).total_seconds()
        remaining = max(0.0, self.timing.settings.lobby_timeout_seconds - elapsed)
        session.lobby_task = asyncio.get_running_loop().create_task(
            self._timer(session, remaining), name=f"kachuful-lobby-{session.row.id}"
        )

    async def _timer(self, session: TableSession, delay: float) -> None:
        def step(session: TableSession) -> Step | None:
            if session.row.status != "lobby":
                return None
            session.row.status = "stopped"
            session.row.ended = "lobby_timeout"
            return Step(commit=True)

        while True:
            session.lobby_sleeping = True
            try:
                await asyncio.sleep(delay)
            finally:
                session.lobby_sleeping = False
            outcome = await self.changes.run(session, step)
            if outcome is None or outcome.failed is None:
                return
            # Not saved (the database is locked or cannot be written): try again later.
            delay = retry_delay(outcome.failed)
