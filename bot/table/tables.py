"""The tables of the bot, and the one path every change takes.

A change: find the table (a button's table must be the table of the channel it was clicked
in), take its lock, check and apply the action to the engine, commit to SQLite, release the
lock, answer the click, then let the table's publishers bring Discord up to date with what
was committed. The lock is never held across a Discord call: discord.py waits out rate
limits silently, and a held lock would freeze the table.

The features (lobby, seat actions, the driver, restore) are modules of their own that use
this path; none of them talks to Discord about the table's public messages: the publisher
derives those from the committed state.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord

from bot import render
from bot.i18n import Translations, language_of, reader
from bot.model import Table
from bot.pace import Pace, table_pace
from bot.render.specs import MessageSpec
from bot.results import game_results
from bot.shards import Shards
from bot.store import GameStore, StoreError, StoreUnavailable
from bot.store.failures import is_expected
from bot.store.models import GameRef
from bot.ui.not_saved import not_saved
from bot.ui.payloads import send_kwargs
from kachuful_core import Phase, record_json
from kachuful_core.events import Event, GameEnded

from .hands import HAND_WATCH_SECONDS, HandPublisher, hand_stage
from .publisher import Publisher, RateLimits
from .session import HandHandle, TableSession, forget_record, paused, rebuild_game
from .thinking import Thinker

if TYPE_CHECKING:
    from bot.settings import Settings

log = logging.getLogger(__name__)


@dataclass
class Reply:
    """The private answer to a click or command.

    ``edit`` edits the message holding the clicked button: only ever a private message, or the
    lobby when ``public_edit`` (a lobby click redraws the lobby as its answer)."""

    spec: MessageSpec
    edit: bool = False
    ephemeral: bool = True
    hand_of: int | None = None  # the reply is this user's hand message: remember its token
    public_edit: bool = False


@dataclass
class Step:
    """What a checked action did, under the lock: ``commit`` the row (and game), with the
    engine's ``events``; ``bump`` the move counter (every button drawn before is stale)."""

    reply: Reply | None = None
    commit: bool = False
    events: list[Event] = field(default_factory=list)
    bump: bool = True
    close: bool = False  # the table is over once published
    failed: StoreError | None = None  # the database refused the change: nothing was saved


# After a change the database refused: a lock is usually gone in moments; a full disk waits
# for the operator, and every table retrying every few seconds would only add to the load.
BUSY_RETRY_SECONDS = 2.0
UNAVAILABLE_RETRY_SECONDS = 10.0


def retry_delay(error: StoreError) -> float:
    """How long a background change (a computer seat, a clock) waits before trying again."""
    if isinstance(error, StoreUnavailable):
        return UNAVAILABLE_RETRY_SECONDS
    return BUSY_RETRY_SECONDS


def refusal(code: str, tr: Translations) -> Step:
    """A refusal for the one who clicked, in their language."""
    return Step(reply=Reply(MessageSpec(content=render.refusal(code, tr))))


def private(text: str) -> Step:
    return Step(reply=Reply(MessageSpec(content=text)))


class Tables:
    """All tables of the bot: the registry, the change path, and the pieces that share them."""

    def __init__(
        self,
        client: discord.Client,
        store: GameStore,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = discord.utils.utcnow,
        new_seed: Callable[[], str] = lambda: secrets.token_hex(32),
    ) -> None:
        from .driver import Driver
        from .lobby import Lobby
        from .play import Play
        from .readonly import ReadOnly
        from .restore import Restore

        self.client = client
        self.store = store
        self.settings = settings
        # The servers this process serves (the others' tables are another process's).
        self.shards = Shards.from_settings(settings)
        self.clock = clock
        self.new_seed = new_seed  # a secret per game; tests pass a fixed sequence
        self.sessions: dict[int, TableSession] = {}
        # Tables closed (finished or stopped) whose publishers may still owe public messages
        # (the final standings): a stop delivers them too. Left once all is delivered.
        self.closing: dict[int, TableSession] = {}
        self.by_channel: dict[int, int] = {}
        # Open games that could not be restored (damaged row or record), by table id: they
        # keep their channel busy until the host or a manager closes them with /kachuful stop.
        self.damaged: dict[int, GameRef] = {}
        self.create_lock = asyncio.Lock()
        self.limits = RateLimits(clock)
        self.hand_delay = HAND_WATCH_SECONDS  # how often a watcher's hand is redrawn
        self.thinker = Thinker(workers=settings.computer_workers)
        self.stopping = False
        self.lobby = Lobby(self)
        self.play = Play(self)
        self.driver = Driver(self)
        self.restore = Restore(self)
        self.read = ReadOnly(self)

    # ------------------------------------------------------------------ registry

    def add(self, session: TableSession) -> None:
        session.publisher = Publisher(self, session)
        session.hand_publisher = HandPublisher(self, session)
        self.sessions[session.row.id] = session
        self.by_channel[session.row.channel_id] = session.row.id

    def link_channel(self, session: TableSession, channel_id: int) -> None:
        """A thread the game is played in: commands typed there find the table too."""
        self.by_channel[channel_id] = session.row.id

    def forget(self, session: TableSession) -> None:
        session.closed = True
        self.sessions.pop(session.row.id, None)
        self.closing[session.row.id] = session
        for channel, table in list(self.by_channel.items()):
            if table == session.row.id:
                del self.by_channel[channel]
        for task in (session.driver, session.lobby_task):
            if task is not None and not task.done() and task is not asyncio.current_task():
                task.cancel()

    def session_in(self, channel_id: int | None) -> TableSession | None:
        table = self.by_channel.get(channel_id) if channel_id is not None else None
        return self.sessions.get(table) if table is not None else None

    def damaged_in(self, channel_id: int | None) -> GameRef | None:
        return next((r for r in self.damaged.values() if r.channel_id == channel_id), None)

    def missing(self, *, table: int | None = None, channel_id: int | None = None) -> str:
        """The refusal for a click or command that finds no table in memory."""
        if (table is not None and table in self.damaged) or (
            channel_id is not None and self.damaged_in(channel_id) is not None
        ):
            return "damaged"
        return "no_table" if table is not None else "no_game_here"

    def find(self, interaction: discord.Interaction[Any], table: int) -> TableSession | None:
        """The table of a button, if it is the table of the channel the button was clicked in
        (a forged button for another channel's table finds nothing)."""
        session = self.sessions.get(table)
        if session is None or interaction.channel_id not in session.channel_ids:
            return None
        return session

    async def find_or_refuse(
        self, interaction: discord.Interaction[Any], table: int
    ) -> TableSession | None:
        """The button's table (see :meth:`find`); None after refusing the click privately."""
        session = self.find(interaction, table)
        if session is None:
            await self.refuse(interaction, self.missing(table=table))
        return session

    # ------------------------------------------------------------------ the change path

    async def change(
        self,
        session: TableSession,
        interaction: discord.Interaction[Any] | None,
        step: Callable[[TableSession], Step | None],
    ) -> Step | None:
        """Lock, check and apply (``step``), commit, unlock, answer, publish."""
        started = time.perf_counter()
        if self.stopping and interaction is not None:
            await self.answer(
                None,
                interaction,
                Reply(MessageSpec(content=render.notice("restarting", reader(interaction)))),
            )
            return None
        # Only a click that has to wait (its table or the database busy) can run late: a timer
        # for every click would cost more than the clicks themselves at a few hundred a second.
        slow = session.lock.locked() or self.store.busy()
        watchdog = Deferral(interaction) if interaction is not None and slow else None
        try:
            outcome = await self._locked(session, step, reader(interaction))
        finally:
            if watchdog is not None:
                await watchdog.done()
        if interaction is not None and outcome is not None and outcome.reply is not None:
            await self.answer(session, interaction, outcome.reply)
        if outcome is not None and outcome.commit:
            log.debug(
                "table %s: move %s committed in %.1f ms",
                session.row.id,
                session.row.version,
                (time.perf_counter() - started) * 1000,
            )
            self.published(session, close=outcome.close)
        return outcome

    async def _locked(
        self,
        session: TableSession,
        step: Callable[[TableSession], Step | None],
        tr: Translations,
    ) -> Step | None:
        async with session.lock:
            if session.closed:
                outcome: Step | None = refusal("no_table", tr)
            else:
                outcome = step(session)
            if outcome is not None and outcome.commit:
                version = session.row.version
                try:
                    await self.commit(session, outcome)
                except StoreError as error:
                    outcome = self._not_saved(session, error, tr)
                    await self.reload(session)
                    session.forget_actions_at(version)
                except BaseException:
                    # Any other failure of the write (e.g. a damaged file): memory must not
                    # run ahead of disk either; the caller logs and answers it.
                    await self.reload(session)
                    session.forget_actions_at(version)
                    raise
        return outcome

    def _not_saved(self, session: TableSession, error: StoreError, tr: Translations) -> Step:
        if not is_expected(error):  # an expected one is logged once per incident by the store
            # Only the kind of error: a database message could quote the record.
            log.warning("table %s: change not saved (%s)", session.row.id, type(error).__name__)
        text = not_saved(error, tr) or render.notice("busy_db", tr)
        return Step(reply=Reply(MessageSpec(content=text)), failed=error)

    async def commit(self, session: TableSession, step: Step) -> None:
        """Write the session's row (and record) as one transaction; bump the move counter.

        If the write fails, the session is reloaded from the store by the caller so memory
        never runs ahead of disk."""
        row, game = session.row, session.game
        previous = row.version
        if step.bump:
            row.version += 1
        record = None
        results = []
        if game is not None:
            record = record_json(game)
            if any(isinstance(e, GameEnded) for e in step.events):
                row.status = "finished"
                results = game_results(row, game)
        try:
            await self.store.save_game(
                row, record=record, previous_version=previous, results=results
            )
        except BaseException:
            row.version = previous
            raise
        session.decided = None
        if row.status in ("finished", "stopped"):
            step.close = True
        self.set_deadline(session)

    def set_deadline(self, session: TableSession) -> None:
        """The turn clock of the human to act starts at each committed change."""
        row, game = session.row, session.game
        session.deadline = None
        if row.status != "running" or game is None or game.turn is None or paused(row):
            return
        if game.phase in (Phase.BIDDING, Phase.PLAYING) and not row.seats[game.turn].computer_plays:
            session.deadline = self.clock() + timedelta(seconds=self.turn_seconds(row))

    async def reload(self, session: TableSession) -> None:
        try:
            stored = await self.store.load_game(session.row.id)
        except StoreError:
            return
        if stored is None:
            return
        session.row = stored
        if stored.status == "running" and stored.record is not None:
            session.game = rebuild_game(stored)
            forget_record(stored)

    def published(self, session: TableSession, *, close: bool = False) -> None:
        """After a commit: the publishers bring Discord up to date; the driver plans again."""
        if session.publisher is not None:
            session.publisher.poke()
        if session.hand_publisher is not None:
            session.hand_publisher.poke()
        if close:
            self.forget(session)
        else:
            self.driver.schedule(session)

    # ------------------------------------------------------------------ answering

    async def answer(
        self, session: TableSession | None, interaction: discord.Interaction[Any], reply: Reply
    ) -> None:
        edit = reply.edit and (reply.public_edit or _clicked_private(interaction))
        kwargs = send_kwargs(reply.spec, edit=edit)
        deferred = interaction.response.is_done()  # deferred: the change took long
        followup: int | None = None  # a new message sent after deferring: its id
        try:
            if deferred and interaction.type is discord.InteractionType.application_command:
                # A deferred command shows "thinking…" until its response is edited.
                await interaction.edit_original_response(**send_kwargs(reply.spec, edit=True))
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
        if reply.hand_of is not None and session is not None:
            await self.opened_hand(session, reply.hand_of, interaction, reply.spec, followup)

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
            digest=spec_digest(spec),
            notice=spec.content,
            notice_version=session.row.version,
            stage=hand_stage(session, user_id),
            message_id=message_id,
            language=language_of(interaction.locale),
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

    async def refuse(self, interaction: discord.Interaction[Any], code: str) -> None:
        """A refusal: always a new private message, never an edit of the clicked message."""
        text = render.refusal(code, reader(interaction))
        await self.answer(None, interaction, Reply(MessageSpec(content=text)))

    async def shutdown(self, timeout: float = 5.0) -> None:
        """Stop taking clicks, let the action in flight finish, deliver what is pending as far
        as Discord allows within ``timeout`` seconds, then stop every task."""
        self.stopping = True
        # Closed tables too: a game that ended a moment ago still owes its last posts.
        sessions = [*self.sessions.values(), *self.closing.values()]
        for session in sessions:
            for task in (session.driver, session.lobby_task):
                if task is not None and not task.done():
                    task.cancel()
        flushing = [s.publisher.flush() for s in sessions if s.publisher is not None]
        if flushing:
            try:
                async with asyncio.timeout(timeout):
                    await asyncio.gather(*flushing, return_exceptions=True)
            except TimeoutError:
                log.warning("stopped with public messages still to deliver: sent at next start")
        for session in sessions:
            for publisher in (session.publisher, session.hand_publisher):
                if publisher is not None:
                    publisher.stop()
        self.thinker.close()

    # ------------------------------------------------------------------ helpers

    def channel(self, channel_id: int, row: Table) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(channel_id, guild_id=row.guild_id)

    def turn_seconds(self, row: Table) -> float:
        """The turn clock of a table: its channel's setting when it opened, else the bot's."""
        value = row.options.turn_seconds
        if value is not None and value > 0:
            return float(value)
        return self.settings.turn_seconds

    def pace(self, row: Table) -> Pace:
        """The table's pace, for the lobby's estimate of a game's length."""
        return table_pace(self.turn_seconds(row), self.settings.bot_delay_seconds)

    def lobby_minutes(self) -> int:
        return max(1, round(self.settings.lobby_timeout_seconds / 60))


# Discord wants an answer to an interaction within 3 s: a change still waiting for its table
# or the database by then is deferred, and answered when it is done.
DEFER_AFTER = 2.0


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


def _clicked_private(interaction: discord.Interaction[Any]) -> bool:
    message = interaction.message
    return message is not None and message.flags.ephemeral


def spec_digest(spec: MessageSpec) -> str:
    from .publisher import digest

    return digest(spec)
