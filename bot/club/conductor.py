"""The conductor moves each event on from what is committed, like the table's publisher: it
looks at the stored event, its round's tables and their games, and does what is missing,
one idempotent step at a time (docs/events.md#crashes):

- a seated table without its thread gets one (a thread made before a crash, whose id was not
  stored, is found again by its name);
- a table with a thread but no game gets its game, started with the seed chosen at seating
  (the same at every table of a duplicate round);
- a round whose tables have all finished seats the next one (one transaction, refused if
  the round moved on: a round is never seated twice) or ends the event;
- the event's message in its channel is brought up to date with the standings.

It runs after every change of an event, after an event table closes, and at start for every
open event; one pass at a time per event (a pass asked for meanwhile runs after it).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import discord

from bot.i18n import for_table
from bot.model import Seat, Table
from bot.render import club as words
from bot.render.specs import digest
from bot.render.words import computer_name
from bot.shards import Shards
from bot.store.failures import ChannelBusy, StoreError
from bot.store.protocol import GameStore
from bot.table.session import TableSession
from bot.table.tables import Tables
from bot.ui.payloads import send_kwargs
from bot.web.club.links import club_base, club_url
from kachuful_core.club import (
    MIN_EVENT_PLAYERS,
    Standing,
    TableResult,
    event_standings,
    meetings,
    seat_round,
    table_seeds,
)
from kachuful_core.record import load_game

from .model import Event, EventSeat, EventTable
from .permissions import tables_in_channels

log = logging.getLogger(__name__)

RETRY_SECONDS = 5.0
# The reminder before a scheduled event goes out this long before it starts.
REMIND_BEFORE = timedelta(minutes=15)
CLOSED_STATUSES = ("finished", "stopped")


def event_nonce(event_id: int, what: str) -> str:
    """The nonce of an event's post: the same for every attempt (Discord drops a repeat)."""
    return hashlib.sha256(f"kachuful:event:{event_id}:{what}".encode()).hexdigest()[:25]


def channel_name(title: str) -> str:
    """A table's title as Discord writes a text channel's name (lower case, words joined by
    hyphens), so a channel made before a crash is found again by it."""
    words_only = re.sub(r"[^\w]+", "-", title.lower()).strip("-")
    return words_only[:100] or "kachuful"


def table_result(table: EventTable, row: Table) -> TableResult | None:
    """A finished event table's scores, read from its game's record."""
    if row.status != "finished" or row.record is None:
        return None
    game = load_game(row.record)
    players = tuple(seat.user_id for seat in table.seats)
    return TableResult(table.round - 1, table.table_no, players, tuple(game.deal_scores))


class Conductor:
    def __init__(
        self,
        client: discord.Client,
        store: GameStore,
        tables: Tables,
        *,
        new_seed: Callable[[], str],
        clock: Callable[[], datetime] = discord.utils.utcnow,
    ) -> None:
        self.client = client
        self.store = store
        self.tables = tables
        self.new_seed = new_seed
        self.clock = clock
        self._passes: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()
        self._shown: dict[int, str] = {}  # the digest of each event message as last sent
        # Closed games of events, by id: their status and result (None: stopped).
        self._closed: dict[int, tuple[str, TableResult | None]] = {}
        self._reminders: dict[int, asyncio.Task[None]] = {}
        self.passes = 0  # for tests and the benchmark
        self.pass_seconds = 0.0
        tables.changes.on_close.append(self.table_closed)

    # ---- when to look again

    def poke(self, event_id: int) -> None:
        task = self._passes.get(event_id)
        if task is not None and not task.done():
            self._again.add(event_id)
            return
        self._passes[event_id] = asyncio.get_running_loop().create_task(
            self._run(event_id), name=f"kachuful-event-{event_id}"
        )

    async def settled(self, event_id: int) -> None:
        """Until no pass of the event is running or due (tests, shutdown)."""
        while (task := self._passes.get(event_id)) is not None and not task.done():
            await asyncio.shield(task)

    async def settled_all(self) -> None:
        while pending := [t for t in self._passes.values() if not t.done()]:
            await asyncio.gather(*(asyncio.shield(t) for t in pending), return_exceptions=True)

    def table_closed(self, session: TableSession) -> None:
        asyncio.get_running_loop().create_task(self._table_closed(session.row.id))

    async def _table_closed(self, game_id: int) -> None:
        try:
            event_id = await self.store.club.event_of_game(game_id)
        except StoreError:
            return  # the next start looks at every open event again
        if event_id is not None:
            self.poke(event_id)

    async def restore(self, shards: Shards) -> None:
        """At start: every open event of this process's servers is looked at again."""
        try:
            events = await self.store.club.open_events(shards)
        except StoreError:
            log.warning("events not restored: the database cannot be read")
            return
        for event in events:
            self.poke(event.id)

    def stop(self) -> None:
        for task in [*self._passes.values(), *self._reminders.values()]:
            task.cancel()

    async def _run(self, event_id: int) -> None:
        while True:
            self._again.discard(event_id)
            started = time.perf_counter()
            try:
                await self.conduct(event_id)
            except StoreError:
                await asyncio.sleep(RETRY_SECONDS)
                self._again.add(event_id)
            except discord.HTTPException as error:
                log.warning("event %s: Discord refused a request (%s)", event_id, error.status)
                await asyncio.sleep(RETRY_SECONDS)
                self._again.add(event_id)
            except Exception:
                log.exception("event %s: a pass failed", event_id)
                return
            finally:
                self.passes += 1
                self.pass_seconds += time.perf_counter() - started
            if event_id not in self._again:
                return

    # ---- one pass

    async def conduct(self, event_id: int) -> None:
        event = await self.store.club.load_event(event_id)
        if event is None:
            return
        if event.status in ("running", "paused"):
            await self._play(event)
        if event.status == "registering":
            self._plan_reminder(event)
        await self.show(event)

    async def _play(self, event: Event) -> None:
        current = [t for t in await self.store.club.tables(event.id) if t.round == event.round]
        for table in current:
            await self._open_table(event, table)
        games = await self._games(await self.store.club.tables(event.id))
        done = all(games.get(t.game_id or 0) in CLOSED_STATUSES for t in current)
        if not done or event.status != "running":
            return
        if event.round < event.rounds and await self.seat_next(event):
            self._again.add(event.id)  # open the new round's tables
            return
        if event.status == "running":
            await self.store.club.update_event(event, status="finished")

    async def _games(self, tables: Sequence[EventTable]) -> dict[int, str]:
        """The status of each table's game. A closed game never changes: its status and its
        result are kept in memory, so a long event does not replay its old games each pass."""
        games: dict[int, str] = {}
        for table in tables:
            game_id = table.game_id
            if game_id is None:
                continue
            if game_id in self._closed:
                games[game_id] = self._closed[game_id][0]
                continue
            session = self.tables.open.by_id.get(game_id)
            row = session.row if session is not None else await self.store.load_game(game_id)
            if row is None:
                continue
            games[game_id] = row.status
            if row.status in CLOSED_STATUSES:
                self._closed[game_id] = (row.status, table_result(table, row))
        return games

    # ---- seating

    async def standings(
        self, event: Event, tables: Sequence[EventTable] | None = None
    ) -> list[Standing]:
        entrants = await self.store.club.entrants(event.id)
        if tables is None:
            tables = await self.store.club.tables(event.id)
        await self._games(tables)
        results = []
        for table in tables:
            closed = self._closed.get(table.game_id) if table.game_id is not None else None
            if closed is not None and closed[1] is not None:
                results.append(closed[1])
        players = [e.user_id for e in entrants if e.status != "withdrawn"]
        return event_standings(event.format, results, players)

    async def seat_next(self, event: Event) -> bool:
        """Seat the event's next round (the first at the start). False: fewer than two
        players are left, or the round was seated meanwhile (by another pass)."""
        entrants = await self.store.club.entrants(event.id)
        active = {e.user_id: e for e in entrants if e.status == "registered"}
        if len(active) < MIN_EVENT_PLAYERS:
            return False
        seated = await self.store.club.tables(event.id)
        order = [s.player for s in await self.standings(event, seated) if s.player in active]
        met = meetings(
            [
                [[s.user_id for s in t.seats] for t in seated if t.round == number]
                for number in range(1, event.round + 1)
            ]
        )
        seed = hashlib.sha256(f"kachuful:event:{event.id}:{event.created_at}".encode()).digest()
        plan = await asyncio.to_thread(
            seat_round,
            order,
            table_size=event.table_size,
            round_index=event.round,
            rounds=event.rounds,
            met=met,
            seed=seed,
        )
        seeds = table_seeds(event.format, len(plan), self.new_seed)
        tables = []
        for number, seats in enumerate(plan, start=1):
            taken = {active[user].name for user in seats if user is not None}
            named = []
            for place, user in enumerate(seats, start=1):
                if user is None:
                    name = computer_name(taken, place, for_table(event.options))
                    taken.add(name)
                    named.append(EventSeat(None, name))
                else:
                    named.append(EventSeat(user, active[user].name))
            table_seed = seeds[number - 1]
            tables.append(EventTable(event.id, event.round + 1, number, tuple(named), table_seed))
        return await self.store.club.seat_round(event, tables)

    # ---- one table

    async def _open_table(self, event: Event, table: EventTable) -> None:
        if table.game_id is not None:
            session = self.tables.open.by_id.get(table.game_id)
            if session is not None and session.row.status == "lobby":
                await self._start(session, table)
            return
        thread_id = table.thread_id or await self._thread(event, table)
        if thread_id is None:
            return
        if table.thread_id is None:
            await self.store.club.set_table(table, thread_id=thread_id)
        session = await self._game(event, table, thread_id)
        await self.store.club.set_table(table, game_id=session.row.id)
        if session.row.status == "lobby":
            await self._start(session, table)

    async def _thread(self, event: Event, table: EventTable) -> int | None:
        """The table's own place: a public thread of the event's channel, or, where the bot
        may not open threads there but may manage channels, a text channel beside it. One
        made before a crash, before its id was stored, is found again by its name."""
        tr = for_table(event.options)
        name = words.table_title(event, table.round, table.table_no, tr)
        channel = self.client.get_channel(event.channel_id)
        if channel is None:
            channel = await self.client.fetch_channel(event.channel_id)
        if not isinstance(channel, discord.TextChannel):
            log.warning("event %s: its channel is not a text channel", event.id)
            return None
        me = channel.guild.me
        if tables_in_channels(channel.permissions_for(me)):
            return await self._table_channel(channel, channel_name(name))
        for thread in channel.threads:
            if thread.name == name and thread.owner_id == me.id:
                return thread.id
        thread = await channel.create_thread(
            name=name, type=discord.ChannelType.public_thread, auto_archive_duration=1440
        )
        return thread.id

    async def _table_channel(self, beside: discord.TextChannel, name: str) -> int:
        """A text channel for a table, in the event channel's category (whose permissions it
        follows, as Discord does for a channel made in a category)."""
        for existing in beside.guild.text_channels:
            if existing.name == name and existing.category_id == beside.category_id:
                return existing.id
        made = await beside.guild.create_text_channel(name, category=beside.category)
        return made.id

    async def _game(self, event: Event, table: EventTable, thread_id: int) -> TableSession:
        for session in self.tables.open.all_sessions():
            if session.row.channel_id == thread_id and not session.closed:
                return session
        tr = for_table(event.options)
        title = words.table_title(event, table.round, table.table_no, tr)
        seats = [
            Seat(user_id=s.user_id, name=s.name, level=None if s.user_id else event.level)
            for s in table.seats
        ]
        try:
            async with self.tables.open.create_lock:
                row = await self.store.create_game(
                    guild_id=event.guild_id,
                    channel_id=thread_id,
                    host_id=event.organiser_id,
                    options=replace(event.options, event_title=title, mode="trick"),
                    max_seats=event.table_size,
                    seats=seats,
                )
        except ChannelBusy as busy:
            stored = await self.store.load_game(busy.game_id) if busy.game_id else None
            if stored is None:
                raise StoreError("an event table's thread holds a game not found") from None
            row = stored
        known = self.tables.open.by_id.get(row.id)
        if known is not None:
            return known
        session = TableSession(row)
        self.tables.open_session(session)
        assert session.publisher is not None
        session.publisher.delivered = {}
        return session

    async def _start(self, session: TableSession, table: EventTable) -> None:
        tr = for_table(session.row.options)

        def step(session: TableSession) -> Any:
            if session.row.status != "lobby":
                return None
            return self.tables.lobby.start_step(session, tr, seed=table.seed)

        outcome = await self.tables.changes.run(session, step)
        if outcome is not None and outcome.failed is not None:
            raise outcome.failed

    # ---- the event's message

    async def view(self, event: Event) -> words.EventView:
        tables = await self.store.club.tables(event.id)
        games = await self._games(tables)
        finished = frozenset(t.key for t in tables if games.get(t.game_id or 0) in CLOSED_STATUSES)
        return words.EventView(
            event=event,
            entrants=await self.store.club.entrants(event.id),
            standings=await self.standings(event, tables) if event.round else [],
            tables=tables,
            finished=finished,
        )

    async def show(self, event: Event) -> None:
        base = club_base(getattr(self.client, "settings", None))
        url = None if base is None else club_url(base, event.guild_id, "event", event.id)
        spec = words.event_message(await self.view(event), for_table(event.options), url)
        shown = digest(spec)
        if event.message_id is not None and self._shown.get(event.id) == shown:
            return
        channel = self.client.get_partial_messageable(event.channel_id, guild_id=event.guild_id)
        if event.message_id is None:
            message = await channel.send(**send_kwargs(spec), nonce=event_nonce(event.id, "main"))
            await self.store.club.update_event(event, message_id=message.id)
        else:
            try:
                await channel.get_partial_message(event.message_id).edit(
                    **send_kwargs(spec, edit=True)
                )
            except discord.NotFound:
                # Deleted by someone: post it again (a new message, stored anew).
                message = await channel.send(**send_kwargs(spec))
                await self.store.club.update_event(event, message_id=message.id)
        self._shown[event.id] = shown
        if event.status in ("finished", "closed") and not event.settled:
            await self.store.club.update_event(event, settled=True)

    # ---- the reminder before a scheduled event

    def _plan_reminder(self, event: Event) -> None:
        if event.starts_at is None or event.reminded:
            return
        task = self._reminders.get(event.id)
        if task is not None and not task.done():
            return
        delay = (event.starts_at - REMIND_BEFORE - self.clock()).total_seconds()
        self._reminders[event.id] = asyncio.get_running_loop().create_task(
            self._remind_later(event.id, max(0.0, delay))
        )

    async def _remind_later(self, event_id: int, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            await self.remind(event_id)
        except (StoreError, discord.HTTPException) as error:
            log.warning("event %s: reminder not sent (%s)", event_id, type(error).__name__)

    async def remind(self, event_id: int) -> None:
        """The one reminder: a new message in the event's channel mentioning the registered
        players (a mention notifies only in a new message), and a direct message to those
        who asked for one. Marked sent first: a crash loses a reminder rather than doubles
        it."""
        event = await self.store.club.load_event(event_id)
        if event is None or event.reminded or event.status != "registering":
            return
        if not await self.store.club.update_event(event, reminded=True):
            return
        entrants = [e for e in await self.store.club.entrants(event_id) if e.status == "registered"]
        tr = for_table(event.options)
        in_channel = [e.user_id for e in entrants if not e.remind_by_dm]
        channel = self.client.get_partial_messageable(event.channel_id, guild_id=event.guild_id)
        if in_channel:
            spec = words.reminder(event, in_channel, tr)
            await channel.send(**send_kwargs(spec), nonce=event_nonce(event.id, "reminder"))
        for entrant in entrants:
            if entrant.remind_by_dm:
                try:
                    user = await self.client.fetch_user(entrant.user_id)
                    await user.send(**send_kwargs(words.reminder(event, [], tr)))
                except discord.HTTPException:
                    continue  # direct messages closed: nothing else to do
