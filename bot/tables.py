"""Tables: one session per channel, each with its own lock.

Every change follows the same path: take the table's lock, check the click (seat, move
counter), hand the action to the engine, commit the result to SQLite, release the lock, and
only then talk to Discord (answer the click, post the public messages in commit order, redraw
open hand messages). The lock is never held across a Discord call: discord.py waits out rate
limits silently, and a held lock would freeze the table.

Computer players and the turn clock run in one background task per table (the "driver"):
it sleeps (a short pause for a computer seat, the turn clock for a human), then acts through
the same path if nothing has moved in the meantime. When every seat is played by the computer
(everyone away) the table is paused; the driver then sleeps until the idle time
(KACHUFUL_IDLE_HOURS) has passed since the table's last stored change, and closes it like
/kachuful stop. That moment is derived from the stored row's ``updated_at``, so a restart
does not reset it; "I'm back" is a change, so it cancels it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import discord

from bot import render
from bot.render.specs import MessageSpec
from bot.render.words import resolve_max_hand, seat_name
from bot.store import ChannelBusy, Store
from bot.store.models import GameRef, GameRow, ResultRow, Seat
from bot.ui import send_kwargs
from kachuful_core import Game, KachufulError, Phase, Rules, record_json, score_summary
from kachuful_core.events import (
    BidPlaced,
    DealStarted,
    Event,
    FirstDealerDrawn,
    GameEnded,
    HandLooked,
)
from kachuful_core.players import HeuristicPlayer, Player, act

if TYPE_CHECKING:
    from bot.settings import Settings

log = logging.getLogger(__name__)

# An interaction token lives 15 minutes; stop using a hand message's token a little before.
HAND_TOKEN_SECONDS = 14 * 60
MAX_TIMEOUTS = 3
# After an unexpected failure (say, the database could not be written) the computer player /
# turn clock of a table tries again after this long instead of leaving the table frozen.
DRIVER_RETRY_SECONDS = 30.0


@dataclass
class Reply:
    """The private (or, for lobby buttons, in-place) answer to the click or command."""

    spec: MessageSpec
    edit: bool = False  # edit the message holding the clicked button, else a new message
    ephemeral: bool = True
    hand_of: int | None = None  # the reply is this user's hand message: remember its token


@dataclass
class Outcome:
    """What to tell Discord once a change has been committed (or a click refused)."""

    reply: Reply | None = None
    posts: list[MessageSpec] = field(default_factory=list)
    table_edit: MessageSpec | None = None  # new look of the current lobby / table message
    table_post: int | None = None  # index in posts of the new table message
    refresh: set[int] = field(default_factory=set)  # users whose open hand to redraw
    ticket: int | None = None  # order of publication (taken under the lock)
    drive: bool = False  # (re)start the computer / turn clock afterwards
    close: bool = False  # the table is over: forget the session afterwards


@dataclass(frozen=True)
class Plan:
    """The driver's next step: after ``delay`` seconds, if the table is still at ``version``:
    a computer seat acts ("computer"), the turn clock of a human ran out ("clock"), or a paused
    table has been idle too long and is closed ("idle")."""

    delay: float
    version: int
    kind: Literal["computer", "clock", "idle"]


def paused(row: GameRow) -> bool:
    """Every seat is played by the computer: the game waits for an "I'm back"."""
    return all(seat.computer_plays for seat in row.seats)


class Sequencer:
    """Publishes in commit order: tickets are taken under the table lock, and each publisher
    waits for its turn (without holding the table lock)."""

    def __init__(self) -> None:
        self._next = 0
        self._done = 0
        self._finished: set[int] = set()
        self._cond = asyncio.Condition()

    def take(self) -> int:
        ticket = self._next
        self._next += 1
        return ticket

    async def wait(self, ticket: int, timeout: float = 30.0) -> None:
        """Wait for the turn of ``ticket``. A ticket that was never published (a bug: an
        error between commit and delivery) must not freeze the table: after ``timeout`` the
        earlier tickets are given up."""
        try:
            async with asyncio.timeout(timeout), self._cond:
                await self._cond.wait_for(lambda: self._done >= ticket)
        except TimeoutError:
            log.warning("gave up waiting for earlier messages of this table to be posted")
            async with self._cond:
                self._finished.update(range(self._done, ticket))
                while self._done in self._finished:
                    self._finished.discard(self._done)
                    self._done += 1

    async def finish(self, ticket: int) -> None:
        async with self._cond:
            if ticket >= self._done:  # else it was given up on already: nothing to remember
                self._finished.add(ticket)
            while self._done in self._finished:
                self._finished.discard(self._done)
                self._done += 1
            self._cond.notify_all()


class TableSession:
    """One table in memory: the stored row, the engine's game, and the table's lock."""

    def __init__(self, row: GameRow, game: Game | None = None) -> None:
        self.row = row
        self.game = game
        if game is not None:
            forget_record(row)
        self.lock = asyncio.Lock()
        self.seq = Sequencer()
        self.driver: asyncio.Task[None] | None = None
        self.driver_sleeping = False
        self.lobby_task: asyncio.Task[None] | None = None
        self.lobby_sleeping = False
        # user id -> (interaction whose response is that user's latest hand message, opened at)
        self.hands: dict[int, tuple[discord.Interaction[Any], float]] = {}
        self.players: dict[int, Player] = {}
        self.closed = False


def build_rules(options: dict[str, Any], players: int) -> tuple[Rules, str | None]:
    max_hand, note = resolve_max_hand(options.get("max_hand", "full"), players)
    rules = Rules(
        players=players,
        max_hand=max_hand,
        schedule=options.get("schedule", "down-up"),
        trump=options.get("trump", "cycle"),
        hook=bool(options.get("hook", True)),
        scoring=options.get("scoring", "exact"),
        blind_bids=bool(options.get("blind_bids", False)),
        forehead=bool(options.get("forehead", False)),
    )
    return rules, note


def game_from_record(record: dict[str, Any] | None, seed: str | None) -> Game:
    """Rebuild a game from its stored record and the seed that deals the deals to come."""
    if record is None:
        raise KachufulError("no record")
    return Game.from_record(record, seed=seed)


def rebuild_game(row: GameRow) -> Game:
    """The running game of a stored row: the record replayed, plus the looks at hands (blind
    bids) during bidding, which are not moves of the record and are kept with the seats. (Once
    bidding is over the engine has every blind bidder pick up their hand.)"""
    game = game_from_record(row.record, row.seed)
    for seat, entry in enumerate(row.seats):
        if entry.looked_deal == game.deal_index and game.phase is Phase.BIDDING:
            game.look(seat)
    return game


def forget_record(row: GameRow) -> None:
    """A running table's record lives in its Game, and is written from it (as JSON text) at
    each move. (Kept in the row as a dict it grew past 100 KB per table by a game's end.)"""
    row.record = None


def results_of(row: GameRow, game: Game) -> list[ResultRow]:
    summary = score_summary(game)
    winners = set(summary["winners"] or ())
    results = []
    for seat, entry in enumerate(row.seats):
        scored = [d for d in summary["deals"] if d["scores"] is not None]
        exact = sum(1 for d in scored if d["bids"][seat] == d["tricks_won"][seat])
        results.append(
            ResultRow(
                seat=seat,
                user_id=entry.user_id,
                score=summary["totals"][seat],
                won=seat in winners,
                bids_exact=exact,
                bids=len(scored),
            )
        )
    return results


def missing_permissions(interaction: discord.Interaction[Any]) -> list[str]:
    """The channel permissions the bot lacks to post and edit a table's messages."""
    have = interaction.app_permissions
    thread = isinstance(interaction.channel, discord.Thread)
    needed = ["view_channel", "send_messages_in_threads" if thread else "send_messages"]
    needed.append("embed_links")
    return [name for name in needed if not getattr(have, name)]


def _refusal(code: str, *, edit: bool = False) -> Outcome:
    return Outcome(reply=Reply(MessageSpec(content=render.refusal(code)), edit=edit))


def _private(text: str) -> Outcome:
    return Outcome(reply=Reply(MessageSpec(content=text)))


class TableManager:
    """All tables of the bot. The UI and the cog call its methods; it owns the locks."""

    def __init__(
        self,
        client: discord.Client,
        store: Store,
        settings: Settings,
        *,
        clock: Callable[[], Any] = discord.utils.utcnow,
        new_seed: Callable[[], str] = lambda: secrets.token_hex(32),
    ) -> None:
        self.client = client
        self.store = store
        self.settings = settings
        self.clock = clock
        self.new_seed = new_seed  # a secret per game; tests pass a fixed sequence
        self.sessions: dict[int, TableSession] = {}
        self.by_channel: dict[int, int] = {}
        # Open games that could not be restored (damaged row or record), by table id: they
        # keep their channel busy until the host or a manager closes them with /kachuful stop.
        self.damaged: dict[int, GameRef] = {}
        self._create_lock = asyncio.Lock()
        self._background: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ start-up / shutdown

    async def restore(self) -> int:
        """Bring back every open table from the store; returns how many."""
        restored = 0
        rows, damaged = await self.store.open_games()
        for ref in damaged:
            self.damaged[ref.id] = ref
        for row in rows:
            game = None
            if row.status == "running":
                try:
                    game = rebuild_game(row)
                except Exception as error:
                    # Only the kind of error: its words may name cards of hidden hands. One
                    # damaged table must not keep the bot (and every other table) from starting.
                    log.error(
                        "table %s: cannot rebuild the game from its record (%s); left as is",
                        row.id,
                        type(error).__name__,
                    )
                    self.damaged[row.id] = GameRef(
                        id=row.id,
                        guild_id=row.guild_id,
                        channel_id=row.channel_id,
                        host_id=row.host_id,
                    )
                    continue
            session = TableSession(row, game)
            self._remember(session)
            if row.status == "lobby":
                self._schedule_lobby_timer(session)
            else:
                if not (paused(row) and self._idle_remaining(row) <= 0):
                    # (A paused table whose idle time ran out while the bot was down is
                    # closed at once by its driver: no point posting it again first.)
                    self._announce_restored(session)
                self._schedule_driver(session)
            restored += 1
        log.info("restored %d open table(s), %d could not be", restored, len(self.damaged))
        return restored

    def _announce_restored(self, session: TableSession) -> None:
        """Post the table again after a restart, as the new table message: the posts of the
        last move may have been lost between its commit and its publication, and the player
        to act is mentioned again (their turn clock starts again too)."""
        assert session.game is not None
        outcome = Outcome(posts=[render.restored_table(session.row, session.game)], table_post=0)
        outcome.ticket = session.seq.take()
        task = asyncio.get_running_loop().create_task(
            self._deliver(session, None, outcome), name=f"kachuful-restored-{session.row.id}"
        )
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def shutdown(self) -> None:
        for session in list(self.sessions.values()):
            for task in (session.driver, session.lobby_task):
                if task is not None and not task.done():
                    task.cancel()

    def _remember(self, session: TableSession) -> None:
        self.sessions[session.row.id] = session
        self.by_channel[session.row.channel_id] = session.row.id

    def _forget(self, session: TableSession) -> None:
        session.closed = True
        self.sessions.pop(session.row.id, None)
        if self.by_channel.get(session.row.channel_id) == session.row.id:
            del self.by_channel[session.row.channel_id]
        for task in (session.driver, session.lobby_task):
            if task is not None and not task.done() and task is not asyncio.current_task():
                task.cancel()

    def session_in(self, channel_id: int | None) -> TableSession | None:
        table = self.by_channel.get(channel_id) if channel_id is not None else None
        return self.sessions.get(table) if table is not None else None

    def damaged_in(self, channel_id: int | None) -> GameRef | None:
        return next((r for r in self.damaged.values() if r.channel_id == channel_id), None)

    def _missing(self, *, table: int | None = None, channel_id: int | None = None) -> str:
        """The refusal for a click or command that finds no table in memory."""
        if (table is not None and table in self.damaged) or (
            channel_id is not None and self.damaged_in(channel_id) is not None
        ):
            return "damaged"
        return "no_table" if table is not None else "no_game_here"

    # ------------------------------------------------------------------ committing

    async def _commit(
        self,
        session: TableSession,
        outcome: Outcome,
        *,
        events: list[Event] | None = None,
        bump: bool = True,
    ) -> Outcome:
        """Write the session's row (and record) as one transaction; bump the move counter.

        Called with the lock held, after the change was applied in memory. If the write
        fails, the session is reloaded from the store so memory never runs ahead of disk.
        """
        row, game = session.row, session.game
        previous = row.version
        if bump:
            row.version += 1
        results: list[ResultRow] = []
        record: str | None = None
        if game is not None:
            record = record_json(game)
            if events and any(isinstance(e, GameEnded) for e in events):
                row.status = "finished"
                results = results_of(row, game)
        try:
            await self.store.save_game(
                row, record=record, previous_version=previous, results=results
            )
        except BaseException as error:
            log.error("table %s: could not save (%s); reloading it", row.id, type(error).__name__)
            await self._reload(session)
            raise
        outcome.ticket = session.seq.take()
        if row.status in ("finished", "stopped"):
            outcome.close = True
        return outcome

    async def _reload(self, session: TableSession) -> None:
        stored = await self.store.load_game(session.row.id)
        if stored is None:
            return
        session.row = stored
        if stored.status == "running" and stored.record is not None:
            session.game = rebuild_game(stored)
            forget_record(stored)

    # ------------------------------------------------------------------ talking to Discord

    async def _deliver(
        self,
        session: TableSession,
        interaction: discord.Interaction[Any] | None,
        outcome: Outcome,
    ) -> None:
        """Answer the click, then publish in commit order. No lock is held here."""
        if interaction is not None and outcome.reply is not None:
            await self._respond(session, interaction, outcome.reply)
        if outcome.ticket is not None:
            await session.seq.wait(outcome.ticket)
            try:
                await self._publish(session, outcome)
            finally:
                await session.seq.finish(outcome.ticket)
        if outcome.close:
            self._forget(session)
        elif outcome.drive:
            self._schedule_driver(session)

    async def _respond(
        self, session: TableSession, interaction: discord.Interaction[Any], reply: Reply
    ) -> None:
        kwargs = send_kwargs(reply.spec, edit=reply.edit)
        try:
            if reply.edit:
                await interaction.response.edit_message(**kwargs)
            else:
                await interaction.response.send_message(ephemeral=reply.ephemeral, **kwargs)
        except discord.HTTPException:
            log.warning("table %s: could not answer an interaction", session.row.id, exc_info=True)
            return
        if reply.hand_of is not None:
            session.hands[reply.hand_of] = (interaction, time.monotonic())

    def _channel(self, row: GameRow) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(row.channel_id, guild_id=row.guild_id)

    async def _publish(self, session: TableSession, outcome: Outcome) -> None:
        row = session.row
        channel = self._channel(row)
        if outcome.table_edit is not None and row.message_id is not None:
            try:
                await channel.get_partial_message(row.message_id).edit(
                    **send_kwargs(outcome.table_edit, edit=True)
                )
            except discord.HTTPException:
                log.warning("table %s: could not edit the table message", row.id, exc_info=True)
        for index, spec in enumerate(outcome.posts):
            try:
                message = await channel.send(**send_kwargs(spec))
            except discord.HTTPException:
                log.warning("table %s: could not post a message", row.id, exc_info=True)
                continue
            if index == outcome.table_post:
                async with session.lock:
                    session.row.message_id = message.id
                    await self.store.set_message_id(row.id, message.id)
        for user_id in sorted(outcome.refresh):
            await self._refresh_hand(session, user_id)

    async def _refresh_hand(self, session: TableSession, user_id: int) -> None:
        """Redraw a player's open hand message in place, while its token is alive."""
        handle = session.hands.get(user_id)
        if handle is None:
            return
        interaction, opened = handle
        if time.monotonic() - opened > HAND_TOKEN_SECONDS:
            session.hands.pop(user_id, None)
            return
        spec = self._hand_spec(session, user_id)
        if spec is None:
            return
        try:
            await interaction.edit_original_response(**send_kwargs(spec, edit=True))
        except discord.HTTPException:
            session.hands.pop(user_id, None)

    def _hand_spec(
        self, session: TableSession, user_id: int, notice: str | None = None
    ) -> MessageSpec | None:
        row, game = session.row, session.game
        seat = row.seat_of(user_id)
        if seat is None or game is None:
            return None
        return render.hand_message(row, game.view(seat), version=row.version, notice=notice)

    async def _refuse(
        self, interaction: discord.Interaction[Any], code: str, *, edit: bool = False
    ) -> None:
        outcome = _refusal(code, edit=edit)
        assert outcome.reply is not None
        kwargs = send_kwargs(outcome.reply.spec, edit=edit)
        if edit:
            await interaction.response.edit_message(**kwargs)
        else:
            await interaction.response.send_message(ephemeral=True, **kwargs)

    # ------------------------------------------------------------------ lobby

    async def open_lobby(
        self, interaction: discord.Interaction[Any], options: dict[str, Any], max_seats: int
    ) -> None:
        """/kachuful start: one open game per channel."""
        if interaction.guild_id is None or interaction.channel_id is None:
            await self._refuse(interaction, "guild_only")
            return
        missing = missing_permissions(interaction)
        if missing:
            # Answers to clicks need no permission, posts in the channel do: without them the
            # lobby would open and the game then run unseen.
            await interaction.response.send_message(
                render.missing_permissions(missing), ephemeral=True
            )
            return
        user = interaction.user
        busy_text: str | None = None
        async with self._create_lock:
            try:
                row = await self.store.create_game(
                    guild_id=interaction.guild_id,
                    channel_id=interaction.channel_id,
                    host_id=user.id,
                    rules=options,
                    max_seats=max_seats,
                    seats=[Seat(user_id=user.id, name=user.display_name)],
                )
            except ChannelBusy as busy:
                if busy.game_id in self.damaged:
                    busy_text = render.refusal("damaged")
                else:
                    existing = self.sessions.get(busy.game_id) if busy.game_id else None
                    busy_text = self._busy_text(existing)
            else:
                session = TableSession(row)
                self._remember(session)
        if busy_text is not None:
            await interaction.response.send_message(busy_text, ephemeral=True)
            return
        spec = render.lobby(row, timeout_minutes=self._lobby_minutes())
        await interaction.response.send_message(**send_kwargs(spec))
        try:
            message = await interaction.original_response()
        except discord.HTTPException:
            message = None
        if message is not None:
            async with session.lock:
                session.row.message_id = message.id
                await self.store.set_message_id(session.row.id, message.id)
        self._schedule_lobby_timer(session)

    @staticmethod
    def _busy_text(existing: TableSession | None) -> str:
        if existing is None or existing.row.message_id is None:
            return render.notice("busy")
        row = existing.row
        link = f"https://discord.com/channels/{row.guild_id}/{row.channel_id}/{row.message_id}"
        return render.notice("busy_running" if row.status == "running" else "busy_lobby", link=link)

    def _lobby_minutes(self) -> int:
        return max(1, round(self.settings.lobby_timeout_seconds / 60))

    async def lobby_click(
        self, interaction: discord.Interaction[Any], table: int, version: int, act: str
    ) -> None:
        """Join · Leave · Add computer player · Start, clicked on the lobby message."""
        session = self.sessions.get(table)
        if session is None:
            await self._refuse(interaction, self._missing(table=table))
            return
        async with session.lock:
            if session.row.status != "lobby":
                outcome = _refusal("not_lobby")
            elif act in ("cpu", "start") and version != session.row.version:
                # Join and Leave mean the same whatever the lobby looked like (people join at
                # the same moment all the time); another computer player or starting with
                # other seats than the ones shown is what a stale button must not do.
                outcome = _refusal("stale")
            else:
                outcome = await self._lobby_action(session, interaction, act, on_lobby=True)
        await self._deliver(session, interaction, outcome)

    async def lobby_command(self, interaction: discord.Interaction[Any], act: str) -> None:
        """/kachuful join and /kachuful leave."""
        session = self.session_in(interaction.channel_id)
        if session is None:
            await self._refuse(interaction, self._missing(channel_id=interaction.channel_id))
            return
        async with session.lock:
            if session.row.status == "running" and act == "leave":
                outcome = await self._leave_running(session, interaction.user.id)
            elif session.row.status != "lobby":
                outcome = _refusal("not_lobby")
            else:
                outcome = await self._lobby_action(session, interaction, act, on_lobby=False)
        await self._deliver(session, interaction, outcome)

    async def _lobby_action(
        self,
        session: TableSession,
        interaction: discord.Interaction[Any],
        act: str,
        *,
        on_lobby: bool,
    ) -> Outcome:
        """Apply a lobby change (lock held)."""
        row = session.row
        user = interaction.user
        seat = row.seat_of(user.id)
        words = ""
        if act == "join":
            if seat is not None:
                return _refusal("already_seated")
            if len(row.seats) >= row.max_seats:
                return _refusal("table_full")
            row.seats.append(Seat(user_id=user.id, name=user.display_name))
            words = render.notice("joined")
        elif act == "leave":
            if seat is None:
                return _refusal("not_seated")
            row.seats.pop(seat)
            words = render.notice("left_lobby")
            if user.id == row.host_id:
                humans = [s for s in row.seats if s.user_id is not None]
                if not humans:
                    row.status = "stopped"
                    outcome = await self._commit(session, Outcome())
                    outcome.table_edit = render.lobby(
                        row, timeout_minutes=0, closed=render.notice("host_left_lobby_closed")
                    )
                    return self._lobby_reply(
                        outcome, on_lobby, render.notice("you_left_lobby_closed")
                    )
                row.host_id = humans[0].user_id  # type: ignore[assignment]
                words = render.notice("new_host", host=row.host_id)
        elif act == "cpu":
            if seat is None:
                return _refusal("not_seated")
            if len(row.seats) >= row.max_seats:
                return _refusal("table_full")
            name = render.computer_name({s.name for s in row.seats}, len(row.seats) + 1)
            row.seats.append(Seat(user_id=None, name=name))
            words = render.notice("computer_sits", name=name)
        elif act == "start":
            if user.id != row.host_id:
                return _refusal("not_host")
            if len(row.seats) < 3:
                return _refusal("need_players")
            return await self._start_game(session, on_lobby=on_lobby)
        else:
            raise ValueError(act)
        outcome = await self._commit(session, Outcome())
        outcome.table_edit = render.lobby(row, timeout_minutes=self._lobby_minutes())
        return self._lobby_reply(outcome, on_lobby, words)

    @staticmethod
    def _lobby_reply(outcome: Outcome, on_lobby: bool, words: str) -> Outcome:
        if on_lobby and outcome.table_edit is not None:
            # Clicked on the lobby itself: redraw it as the answer to the click.
            outcome.reply = Reply(outcome.table_edit, edit=True)
            outcome.table_edit = None
        else:
            outcome.reply = Reply(MessageSpec(content=words))
        return outcome

    async def _start_game(self, session: TableSession, *, on_lobby: bool) -> Outcome:
        row = session.row
        rules, note = build_rules(row.rules, len(row.seats))
        seed = self.new_seed()
        game = Game.new(rules, seed, players=[seat.name for seat in row.seats])
        events = game.opening_events()
        session.game = game
        row.seed = seed
        row.status = "running"
        outcome = await self._commit(session, Outcome(drive=True), events=events)
        if session.lobby_task is not None and session.lobby_sleeping:
            session.lobby_task.cancel()
        outcome.table_edit = render.lobby_started(row)
        for event in events:
            if isinstance(event, FirstDealerDrawn):
                outcome.posts.append(render.draw(row, event))
        if note:
            outcome.posts.append(MessageSpec(content=render.notice("max_hand_lowered", note=note)))
        outcome.posts.append(render.game_rules(game))
        outcome.posts.append(render.deal_table(row, game))
        outcome.table_post = len(outcome.posts) - 1
        return self._lobby_reply(outcome, on_lobby, render.notice("game_started"))

    def _schedule_lobby_timer(self, session: TableSession) -> None:
        if session.lobby_task is not None and not session.lobby_task.done():
            return
        elapsed = (self.clock() - session.row.created_at).total_seconds()
        remaining = max(0.0, self.settings.lobby_timeout_seconds - elapsed)
        session.lobby_task = asyncio.get_running_loop().create_task(
            self._lobby_timer(session, remaining), name=f"kachuful-lobby-{session.row.id}"
        )

    async def _lobby_timer(self, session: TableSession, delay: float) -> None:
        session.lobby_sleeping = True
        try:
            await asyncio.sleep(delay)
        finally:
            session.lobby_sleeping = False
        async with session.lock:
            if session.closed or session.row.status != "lobby":
                return
            session.row.status = "stopped"
            outcome = await self._commit(session, Outcome())
            outcome.table_edit = render.lobby(
                session.row,
                timeout_minutes=0,
                closed=render.notice("lobby_timed_out", minutes=self._lobby_minutes()),
            )
        await self._deliver(session, None, outcome)

    # ------------------------------------------------------------------ playing

    async def show_hand(
        self, interaction: discord.Interaction[Any], table: int | None, *, edit: bool
    ) -> None:
        """ "Your hand" (a new private message), Refresh (in place), or /kachuful hand."""
        session = (
            self.sessions.get(table)
            if table is not None
            else self.session_in(interaction.channel_id)
        )
        if session is None:
            await self._refuse(
                interaction, self._missing(table=table, channel_id=interaction.channel_id)
            )
            return
        if session.game is None:
            await self._refuse(interaction, "not_running")
            return
        spec = self._hand_spec(session, interaction.user.id)
        if spec is None:
            await self._refuse(interaction, "not_seated")
            return
        await self._respond(
            session, interaction, Reply(spec, edit=edit, hand_of=interaction.user.id)
        )

    async def bid(
        self, interaction: discord.Interaction[Any], table: int, version: int, n: int, blind: bool
    ) -> None:
        await self._seat_action(
            interaction, table, version, lambda game, seat: game.bid(seat, n, blind=blind)
        )

    async def play(
        self, interaction: discord.Interaction[Any], table: int, version: int, card: int | None
    ) -> None:
        if card is None:
            await self._seat_action(
                interaction, table, version, lambda game, seat: game.play_unseen(seat)
            )
        else:
            await self._seat_action(
                interaction, table, version, lambda game, seat: game.play(seat, card)
            )

    async def look(self, interaction: discord.Interaction[Any], table: int, version: int) -> None:
        await self._seat_action(interaction, table, version, lambda game, seat: game.look(seat))

    async def _seat_action(
        self,
        interaction: discord.Interaction[Any],
        table: int,
        version: int,
        action: Callable[[Game, int], list[Event]],
    ) -> None:
        """A click on the player's own hand message: bid, play, play unseen, look."""
        session = self.sessions.get(table)
        if session is None:
            await self._refuse(interaction, self._missing(table=table), edit=True)
            return
        user_id = interaction.user.id
        async with session.lock:
            outcome = await self._apply_seat_action(session, user_id, version, action)
        await self._deliver(session, interaction, outcome)

    async def _apply_seat_action(
        self,
        session: TableSession,
        user_id: int,
        version: int,
        action: Callable[[Game, int], list[Event]],
    ) -> Outcome:
        row, game = session.row, session.game
        if row.status != "running" or game is None:
            return _refusal("not_running", edit=True)
        seat = row.seat_of(user_id)
        if seat is None:
            return _refusal("not_seated", edit=True)
        if version != row.version:
            return self._hand_outcome(session, user_id, render.refusal("stale"))
        if row.seats[seat].away:
            return self._hand_outcome(session, user_id, render.refusal("away"))
        try:
            events = action(game, seat)
        except KachufulError as error:
            return self._hand_outcome(session, user_id, render.refused_move(error, row))
        if not events:  # e.g. looking again: nothing changed
            return self._hand_outcome(session, user_id, None)
        entry = row.seats[seat]
        entry.timeouts = 0
        if all(isinstance(e, HandLooked) for e in events):
            # Looking is private and moves nothing: no new move counter, no public post.
            entry.looked_deal = game.deal_index
            outcome = await self._commit(session, Outcome(), events=events, bump=False)
            outcome.reply = self._hand_outcome(session, user_id, None).reply
            return outcome
        outcome = await self._commit(session, Outcome(drive=True), events=events)
        self._add_game_posts(session, outcome, events, actor=seat)
        spec = self._hand_spec(session, user_id)
        if spec is not None:
            outcome.reply = Reply(spec, edit=True, hand_of=user_id)
        return outcome

    def _hand_outcome(self, session: TableSession, user_id: int, notice: str | None) -> Outcome:
        spec = self._hand_spec(session, user_id, notice)
        if spec is None:
            return _private(notice or render.refusal("not_seated"))
        return Outcome(reply=Reply(spec, edit=True, hand_of=user_id))

    def _add_game_posts(
        self,
        session: TableSession,
        outcome: Outcome,
        events: list[Event],
        *,
        actor: int | None,
        note: str | None = None,
    ) -> None:
        row, game = session.row, session.game
        assert game is not None
        public = [e for e in events if not isinstance(e, HandLooked)]
        if public:
            posts = render.action_posts(row, game, public, note=note)
            outcome.posts.extend(posts)
            if any(isinstance(e, DealStarted) for e in public):
                outcome.table_post = len(outcome.posts) - 1
            elif any(isinstance(e, BidPlaced) for e in public):
                outcome.table_edit = render.deal_table(row, game)
        elif note:
            outcome.posts.append(MessageSpec(content=note))
        # Redraw open hands: the seat to act next, and everyone when a new deal is dealt.
        if game.turn is not None:
            next_seat = row.seats[game.turn]
            if next_seat.user_id is not None and game.turn != actor:
                outcome.refresh.add(next_seat.user_id)
        if any(isinstance(e, DealStarted) for e in events):
            outcome.refresh.update(s.user_id for s in row.seats if s.user_id is not None)

    async def back(self, interaction: discord.Interaction[Any], table: int, seat: int) -> None:
        """ "I'm back": the owner takes an away seat back from the computer."""
        session = self.sessions.get(table)
        if session is None:
            await self._refuse(interaction, self._missing(table=table))
            return
        user_id = interaction.user.id
        async with session.lock:
            row = session.row
            if row.status != "running" or session.game is None:
                outcome = _refusal("not_running")
            elif not 0 <= seat < len(row.seats) or row.seats[seat].user_id != user_id:
                outcome = _refusal("not_your_seat")
            elif not row.seats[seat].away:
                outcome = _refusal("not_away")
            else:
                entry = row.seats[seat]
                entry.away = False
                entry.timeouts = 0
                outcome = await self._commit(session, Outcome(drive=True))
                outcome.posts.append(
                    MessageSpec(content=render.notice("back", name=seat_name(entry)))
                )
                spec = self._hand_spec(session, user_id, render.notice("welcome_back"))
                if spec is not None:
                    outcome.reply = Reply(spec, hand_of=user_id)
        await self._deliver(session, interaction, outcome)

    async def _leave_running(self, session: TableSession, user_id: int) -> Outcome:
        """A player leaves a running game: a computer player takes the seat (lock held)."""
        row = session.row
        seat = row.seat_of(user_id)
        if seat is None:
            return _refusal("not_seated")
        entry = row.seats[seat]
        entry.left_user_id = user_id
        entry.user_id = None
        entry.away = False
        session.hands.pop(user_id, None)
        name = seat_name(entry)
        if all(s.user_id is None for s in row.seats):
            row.status = "stopped"
            outcome = await self._commit(session, Outcome())
            outcome.posts.append(MessageSpec(content=render.notice("left_game_last", name=name)))
        else:
            outcome = await self._commit(session, Outcome(drive=True))
            outcome.posts.append(MessageSpec(content=render.notice("left_game", name=name)))
        outcome.reply = Reply(MessageSpec(content=render.notice("you_left_game")))
        return outcome

    async def stop(self, interaction: discord.Interaction[Any]) -> None:
        """/kachuful stop: the host or someone with Manage Server; no leaderboard change."""
        user = interaction.user
        manager = isinstance(user, discord.Member) and user.guild_permissions.manage_guild
        session = self.session_in(interaction.channel_id)
        if session is None:
            await self._stop_damaged(interaction, manager=manager)
            return
        async with session.lock:
            row = session.row
            if user.id != row.host_id and not manager:
                outcome = _refusal("not_host_or_manager")
            elif row.status not in ("lobby", "running"):
                outcome = _refusal("not_running")
            else:
                was_lobby = row.status == "lobby"
                row.status = "stopped"
                outcome = await self._commit(session, Outcome())
                by = f"<@{user.id}>"
                if was_lobby:
                    outcome.table_edit = render.lobby(
                        row, timeout_minutes=0, closed=render.notice("lobby_closed_by", by=by)
                    )
                outcome.reply = Reply(render.stopped(row, by), ephemeral=False)
        await self._deliver(session, interaction, outcome)

    async def _stop_damaged(self, interaction: discord.Interaction[Any], *, manager: bool) -> None:
        """/kachuful stop in a channel whose open game could not be restored: close it in the
        store without reading it, so that the channel is free again."""
        ref = self.damaged_in(interaction.channel_id)
        if ref is None:
            await self._refuse(interaction, "no_game_here")
            return
        if interaction.user.id != ref.host_id and not manager:
            await self._refuse(interaction, "not_host_or_manager")
            return
        await self.store.stop_open_game(ref.id)
        self.damaged.pop(ref.id, None)
        spec = MessageSpec(content=render.notice("damaged_stopped", by=f"<@{interaction.user.id}>"))
        await interaction.response.send_message(**send_kwargs(spec))

    # ------------------------------------------------------------------ computer and clock

    def _schedule_driver(self, session: TableSession) -> None:
        if session.closed:
            return
        task = session.driver
        if task is not None and not task.done():
            if not session.driver_sleeping:
                return  # busy with a step; it plans again from the new state afterwards
            if task is asyncio.current_task():
                return
            task.cancel()
        session.driver = asyncio.get_running_loop().create_task(
            self._drive(session), name=f"kachuful-table-{session.row.id}"
        )

    def _plan(self, session: TableSession) -> Plan | None:
        """The next automatic step of a running table, or None."""
        row, game = session.row, session.game
        if session.closed or row.status != "running" or game is None or game.turn is None:
            return None
        if paused(row):
            # Everyone is away: the game waits for an "I'm back" rather than playing itself
            # to the end (hundreds of posts, and results for players who were not there),
            # but not for ever: an abandoned table would hold its channel.
            return Plan(self._idle_remaining(row), row.version, "idle")
        if row.seats[game.turn].computer_plays:
            return Plan(self.settings.bot_delay_seconds, row.version, "computer")
        return Plan(self.settings.turn_seconds, row.version, "clock")

    def _idle_remaining(self, row: GameRow) -> float:
        """Seconds until a paused table is closed. Counted from the row's last stored change
        (the change that paused it, or a later one such as a player leaving), so that a
        restart neither resets nor forgets it."""
        idle = float((self.clock() - row.updated_at).total_seconds())
        return max(0.0, self.settings.idle_hours * 3600 - idle)

    async def _drive(self, session: TableSession) -> None:
        while True:
            try:
                await self._drive_loop(session)
                return
            except asyncio.CancelledError:
                raise
            except Exception as error:
                # Only the kind of error: an engine error's words may name cards of hidden
                # hands. Try again later: a table whose computer player has stopped would wait
                # for it for ever (no click can move a computer seat).
                log.error(
                    "table %s: the computer player / turn clock failed (%s); trying again in %ss",
                    session.row.id,
                    type(error).__name__,
                    DRIVER_RETRY_SECONDS,
                )
            session.driver_sleeping = True
            try:
                await asyncio.sleep(DRIVER_RETRY_SECONDS)
            finally:
                session.driver_sleeping = False

    async def _drive_loop(self, session: TableSession) -> None:
        while True:
            plan = self._plan(session)
            if plan is None:
                return
            session.driver_sleeping = True
            try:
                await asyncio.sleep(plan.delay)
            finally:
                session.driver_sleeping = False
            async with session.lock:
                if plan.kind == "idle":
                    outcome = await self._close_idle(session, plan.version)
                else:
                    outcome = await self._computer_turn(session, plan.version, plan.kind == "clock")
            if outcome is not None:
                await self._deliver(session, None, outcome)

    async def _computer_turn(
        self, session: TableSession, version: int, timed_out: bool
    ) -> Outcome | None:
        """The computer acts for the seat to play (lock held); None if the table moved on."""
        row, game = session.row, session.game
        if row.version != version or row.status != "running" or game is None:
            return None
        seat = game.turn
        if seat is None:
            return None
        player = session.players.get(seat)
        if player is None:
            player = session.players[seat] = HeuristicPlayer(seed=row.id * 10 + seat)
        events = act(game, seat, player)
        entry = row.seats[seat]
        note = None
        buttons: tuple[Any, ...] = ()
        if timed_out:
            entry.timeouts += 1
            if entry.timeouts >= MAX_TIMEOUTS:
                entry.away = True
            note, buttons = render.timed_out(
                row,
                seat,
                now_away=entry.away,
                nobody_left=paused(row),
                idle_hours=self.settings.idle_hours,
            )
        outcome = await self._commit(session, Outcome(drive=True), events=events)
        self._add_game_posts(session, outcome, events, actor=seat, note=note)
        if buttons and outcome.posts:
            first = outcome.posts[0]
            outcome.posts[0] = MessageSpec(
                content=first.content,
                embeds=first.embeds,
                buttons=buttons + first.buttons,
                mention_ids=first.mention_ids,
            )
        if timed_out and entry.user_id is not None:
            outcome.refresh.add(entry.user_id)
        return outcome

    async def _close_idle(self, session: TableSession, version: int) -> Outcome | None:
        """Close a table paused for the idle time, as /kachuful stop does (lock held): status
        stopped, no result written. None if anything changed meanwhile (say, "I'm back")."""
        row = session.row
        if (
            session.closed
            or row.version != version
            or row.status != "running"
            or not paused(row)
            or self._idle_remaining(row) > 0
        ):
            return None
        row.status = "stopped"
        outcome = await self._commit(session, Outcome())
        outcome.posts.append(render.idle_stopped(row, hours=self.settings.idle_hours))
        log.info("table %s: closed after %sh with everyone away", row.id, self.settings.idle_hours)
        return outcome

    # ------------------------------------------------------------------ read-only commands

    async def score(self, interaction: discord.Interaction[Any]) -> None:
        session = self.session_in(interaction.channel_id)
        if session is None:
            await self._refuse(interaction, self._missing(channel_id=interaction.channel_id))
            return
        if session.game is None:
            await self._refuse(interaction, "not_running")
            return
        spec = render.scoreboard(session.row, session.game)
        await interaction.response.send_message(ephemeral=True, **send_kwargs(spec))

    async def rules(self, interaction: discord.Interaction[Any]) -> None:
        session = self.session_in(interaction.channel_id)
        if session is not None and session.game is not None:
            spec = render.game_rules(session.game)
        elif session is not None:
            spec = render.lobby_rules(session.row.rules)
        else:
            spec = render.general_rules()
        await interaction.response.send_message(ephemeral=True, **send_kwargs(spec))

    async def leaderboard(self, interaction: discord.Interaction[Any], scope: str) -> None:
        if interaction.guild_id is None:
            await self._refuse(interaction, "guild_only")
            return
        channel_id = interaction.channel_id if scope == "channel" else None
        board = await self.store.leaderboard(guild_id=interaction.guild_id, channel_id=channel_id)
        spec = render.leaderboard(board, scope=scope)
        await interaction.response.send_message(**send_kwargs(spec))

    async def export(self, interaction: discord.Interaction[Any]) -> None:
        """The record of the channel's last finished game (it shows every hand as dealt)."""
        if interaction.channel_id is None:
            await self._refuse(interaction, "guild_only")
            return
        row = await self.store.latest_game_in_channel(interaction.channel_id)
        if row is None or row.record is None:
            await self._refuse(interaction, "no_finished_game")
            return
        data = json.dumps(row.record, indent=2, ensure_ascii=False).encode()
        spec = MessageSpec(
            content=render.notice("export", game=row.id),
            attachment=(f"kachuful-game-{row.id}.json", data),
        )
        await interaction.response.send_message(ephemeral=True, **send_kwargs(spec))
