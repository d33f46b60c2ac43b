"""The publisher of a table: brings its public messages up to date with the committed game.

From the stored row and the engine's game, ``bot.render.channel`` says which messages should
exist and what each shows; the store remembers which were delivered (with their message ids
and a digest of what they showed). The publisher compares the two and acts: posts what is
missing, in order, edits what differs, deletes what should no longer be there (a spent turn
ping). It runs after every commit, after a restart and after Discord recovers, in one task
per table, so at most one request per table is in flight and a live message shows the latest
state (a pass that sees a newer commit starts again from it). It holds no table lock.

New messages are paced at Discord's 5 in 5 s per channel. A pass that had to wait for a slot
plans again if the game moved on meanwhile, and plans again after every new message: the
render folds what a fast game left behind and keeps "Your hand" on the newest message
(``bot.render.channel``), so the live table is never stuck behind a backlog.

Exactly once follows: a message stored as delivered is never posted again, and one that is
missing is posted, however the process died in between. The window between Discord taking a
post and its id being stored is closed by a nonce per message, which Discord enforces.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.i18n import for_table
from bot.model import FINAL_POST_KEY
from bot.render.channel import Post, View, mode_of, public_posts
from bot.render.specs import MessageSpec, digest
from bot.render.words import notice, posts_refused
from bot.store.failures import StoreError, is_expected
from bot.store.values import Delivered
from bot.ui.payloads import drawn, send_kwargs
from bot.web.club.links import club_base, club_url
from bot.web.links import table_link

from .permissions import lacking_in

if TYPE_CHECKING:
    from bot.model import Table
    from bot.store.protocol import GameStore

    from .open_tables import OpenTables
    from .session import TableSession
    from .timing import Timing

log = logging.getLogger(__name__)

MAX_BACKOFF = 60.0
# Discord lets a channel receive 5 new messages in 5 seconds; a little margin for clock skew.
CHANNEL_POSTS = 5
CHANNEL_WINDOW = 5.5
# Editing a message more than an hour old is rate limited hard (error 30046): leave it.
EDIT_TOO_OLD = 30046
# Missing Access, Missing Permissions: the bot may not post there now. The post is kept (not
# marked delivered) and tried again until the permission is back.
NOT_ALLOWED = frozenset({50001, 50013})


def nonce(game_id: int, key: str) -> str:
    """A message's nonce: the same for every attempt at the same message (25 characters)."""
    return hashlib.sha256(f"kachuful:{game_id}:{key}".encode()).hexdigest()[:25]


STOP_CHECK = 0.1  # seconds between two looks at whether a wait for a slot is still wanted


class RateLimits:
    """New messages per channel, kept within Discord's limit for every table together (a
    computer seat at a 0 s delay would otherwise post faster than Discord takes)."""

    def __init__(
        self,
        clock: Callable[[], datetime],
        count: int = CHANNEL_POSTS,
        window: float = CHANNEL_WINDOW,
    ) -> None:
        self.clock, self.count, self.window = clock, count, window
        self._sent: dict[int, deque[float]] = {}

    async def wait(
        self, channel_id: int, reserve: int = 0, stop: asyncio.Event | None = None
    ) -> None:
        """Until the channel may take a new message (the slot is taken by :meth:`take`),
        leaving ``reserve`` slots of the window free; or until ``stop`` is set (looked at
        every ``STOP_CHECK`` seconds: a plain timer, which a simulated clock can run)."""
        while (delay := self._delay(channel_id, reserve)) > 0:
            if stop is not None and stop.is_set():
                return
            await asyncio.sleep(delay if stop is None else min(delay, STOP_CHECK))

    def take(self, channel_id: int, reserve: int = 0) -> bool:
        """Count a new message now, if the channel may take it."""
        if self._delay(channel_id, reserve) > 0:
            return False
        self._sent.setdefault(channel_id, deque()).append(self.clock().timestamp())
        return True

    def _delay(self, channel_id: int, reserve: int = 0) -> float:
        sent = self._sent.setdefault(channel_id, deque())
        now = self.clock().timestamp()
        while sent and now - sent[0] >= self.window:
            sent.popleft()
        allowed = self.count - reserve
        if len(sent) < allowed:
            return 0.0
        return self.window - (now - sent[len(sent) - allowed]) + 0.001

    def forget(self, channel_id: int) -> None:
        """The channel's table is gone: drop its times (kept, a channel whose games have
        ended would hold them for ever). A new table there within 5 s may meet a 429, which
        the publisher waits out."""
        self._sent.pop(channel_id, None)


class Refused(Exception):
    """Discord refused a request for a missing permission in ``channel_id``."""

    def __init__(self, channel_id: int) -> None:
        super().__init__(channel_id)
        self.channel_id = channel_id


class Retry(Exception):
    """Discord did not take a request for now (5xx, 429, no connection): back off, retry."""


def channel_of(client: discord.Client, channel_id: int, row: Table) -> discord.PartialMessageable:
    return client.get_partial_messageable(channel_id, guild_id=row.guild_id)


class Publisher:
    """Brings one table's public messages in line with its committed state (docs/architecture.md
    §7): posts what is missing, edits what differs, deletes what is spent."""

    def __init__(
        self,
        session: TableSession,
        *,
        client: discord.Client,
        store: GameStore,
        tables: OpenTables,
        limits: RateLimits,
        timing: Timing,
    ) -> None:
        self.client = client
        self.store = store
        self.tables = tables
        self.limits = limits
        self.timing = timing
        self.session = session
        self.delivered: dict[str, Delivered] | None = None
        self.checked: set[str] = set()  # final messages already compared with what was sent
        self.unstored: set[str] = set()  # delivered, but the store could not be told yet
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        self.failures = 0
        self.refused_in: int | None = None  # the channel of a refusal under way (host told)
        self.calls = 0  # Discord requests made, for the benchmarks
        self._drawn_from: tuple[object, object] | None = None  # the row and game of the pass

    @property
    def thread_id(self) -> int | None:
        thread = (self.delivered or {}).get("thread")
        if thread is None or thread.message_id == self.session.row.channel_id:
            return None
        return thread.message_id

    async def load(self) -> None:
        """Read what was delivered (at restore, so that a thread's clicks find the table)."""
        if self.delivered is None:
            self.delivered = await self.store.delivered(self.session.row.id)
        if self.thread_id is not None:
            self.tables.link_channel(self.session, self.thread_id)

    def poke(self) -> None:
        self._wake.set()
        self._idle.clear()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"kachuful-publish-{self.session.row.id}"
            )

    async def flush(self) -> None:
        """Wait until everything committed so far has been delivered."""
        if self._task is None or self._task.done():
            return
        await self._idle.wait()

    def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()

    async def _run(self) -> None:
        while self._wake.is_set():
            self._wake.clear()
            try:
                complete = await self._pass()
                if complete and not self._wake.is_set():
                    await self._settle_if_closed()
            except asyncio.CancelledError:
                raise
            except Refused as refused:
                await self._refused(refused.channel_id)
                await self._back_off(refused)
                continue
            except (Retry, StoreError) as error:
                await self._back_off(error)
                continue
            except Exception:
                # A bug must not stop the table's publishing for good: log, and retry later.
                log.exception("table %s: publishing failed", self.session.row.id)
                await self._back_off(None)
                continue
            self.failures = 0
            if self.refused_in is not None:
                log.info(
                    "table %s: posting again in channel %s", self.session.row.id, self.refused_in
                )
                self.refused_in = None
        self._idle.set()

    async def _refused(self, channel_id: int) -> None:
        """The first refusal of an incident: logged, and the host told privately (a direct
        message, in the table's language) which permissions to grant; nothing is posted in
        the channel, where the bot may not post."""
        if self.refused_in is not None:
            return
        self.refused_in = channel_id
        row = self.session.row
        missing = lacking_in(self.client, channel_id)
        log.warning(
            "table %s: Discord refuses its messages in channel %s (missing: %s); kept, and "
            "tried again until allowed",
            row.id,
            channel_id,
            ", ".join(missing) or "unknown",
        )
        text = posts_refused(f"<#{channel_id}>", missing, for_table(row.options))
        try:
            host = self.client.get_user(row.host_id) or await self.client.fetch_user(row.host_id)
            await host.send(text)
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as error:
            # The host does not take direct messages: the log says it all.
            log.info("table %s: the host could not be told (%s)", row.id, type(error).__name__)

    async def _back_off(self, error: Exception | None) -> None:
        self.failures += 1
        delay = min(MAX_BACKOFF, 2.0 ** min(self.failures, 6))
        # A storage failure is logged once per incident by the store, a refusal by _refused.
        expected = error is not None and (is_expected(error) or isinstance(error, Refused))
        level = logging.DEBUG if expected else logging.WARNING
        log.log(
            level,
            "table %s: public messages not delivered (%s); trying again in %.0f s",
            self.session.row.id,
            type(error).__name__ if error else "error",
            delay,
        )
        await asyncio.sleep(delay)
        self._wake.set()

    async def _settle_if_closed(self) -> None:
        row = self.session.row
        if not self.session.closed:
            return
        if row.status in ("finished", "stopped") and not row.settled:
            await self.store.settle(row.id)
            row.settled = True
            for channel in {row.channel_id, self.thread_id}:
                if channel is not None and self.tables.session_in(channel) is None:
                    self.limits.forget(channel)
            log.debug("table %s: every public message delivered", row.id)
        self.tables.closing.pop(row.id, None)  # a stop owes this table nothing now

    # ------------------------------------------------------------------ one pass

    def _view(self) -> View:
        settings = self.timing.settings
        base = club_base(settings)
        return View(
            club=None if base is None else club_url(base, self.session.row.guild_id),
            table_link=table_link(settings, self.session.row.id),
            lobby_minutes=self.timing.lobby_minutes(),
            pace=self.timing.pace(self.session.row),
            idle_hours=settings.idle_hours,
            deadline=self.session.deadline,
            late=self.timing.late(self.session),
            thread_id=self.thread_id,
            delivered=frozenset(self.delivered or ()),
        )

    async def _pass(self) -> bool:
        """Bring Discord up to date; False when a newer commit came in meanwhile."""
        await self.load()
        assert self.delivered is not None
        for key in sorted(self.unstored):  # delivered while the database could not be written
            await self.store.mark_delivered(self.session.row.id, key, self.delivered[key])
            self.unstored.discard(key)
        async with self.session.lock:  # never the state of a change still being saved
            self._drawn_from = (self.session.row, self.session.game)
            posts = public_posts(self.session.row, self.session.game, self._view())
        keys = {post.key for post in posts}
        for key in [key for key in self.delivered if key not in keys]:
            await self._delete(key)
        for post in posts:
            done = self.delivered.get(post.key)
            if not post.final:
                self.checked.discard(post.key)  # e.g. "Your hand" kept until the next is out
            elif done is not None and post.key in self.checked:
                continue
            if done is None:
                await self._create(post)
            else:
                spec = await self._draw(post)
                if spec is None:
                    return False
                if digest(spec) != done.digest:
                    await self._edit(post.key, done, spec)
            if post.final and post.key in self.delivered:
                self.checked.add(post.key)
            if self._wake.is_set():
                return False
        return True

    async def _draw(self, post: Post) -> MessageSpec | None:
        """A message as the committed state shows it: drawn under the table's lock (released
        before any Discord call), so never from a change whose save is still under way. None
        when the table was reloaded after a failed save: the pass starts again from it."""
        async with self.session.lock:
            if self._drawn_from != (self.session.row, self.session.game):
                self._wake.set()
                return None
            return post.build()

    def _channel_id(self, post: Post) -> int:
        if post.where == "game" and self.thread_id is not None:
            return self.thread_id
        return self.session.row.channel_id

    async def _remember(self, key: str, delivered: Delivered) -> None:
        assert self.delivered is not None
        self.delivered[key] = delivered
        try:
            await self.store.mark_delivered(self.session.row.id, key, delivered)
        except StoreError:
            # Posted but not stored (the database cannot be written now): never posted again
            # by this process, and stored by the next pass that can.
            self.unstored.add(key)
            raise
        self.unstored.discard(key)

    async def _create(self, post: Post) -> None:
        row = self.session.row
        if post.key == "lobby" and row.message_id is not None:
            # Posted as the answer to /kachuful start: adopt it, and draw it as it should be.
            await self._remember("lobby", Delivered(row.channel_id, row.message_id, ""))
            spec = await self._draw(post)
            if spec is not None:
                await self._edit("lobby", Delivered(row.channel_id, row.message_id, ""), spec)
            return
        if post.key == "thread":
            await self._open_thread()
            return
        channel_id = self._channel_id(post)
        reserve = self._reserve(post)
        if not await self._slot(channel_id, reserve):
            return  # the game moved on meanwhile: plan again (a fast deal is folded)
        spec = await self._draw(post)
        if spec is None:
            return
        spec = await drawn(await self._with_chart(spec))
        if not self.limits.take(channel_id, reserve):
            self._wake.set()  # another table of the channel took the slot meanwhile
            return
        # Plan again after every new message: the one before it may have to give up "Your
        # hand", and what is still to post may be folded (bot.render.channel).
        self._wake.set()
        channel = channel_of(self.client, channel_id, row)
        message = await self._call(
            channel.send(**send_kwargs(spec), nonce=nonce(row.id, post.key)), channel_id
        )
        if message is None:
            # Refused for good (a message Discord will never take): do not try for ever.
            await self._remember(post.key, Delivered(channel_id, 0, digest(spec)))
            return
        await self._remember(post.key, Delivered(channel_id, message.id, digest(spec)))
        if post.key == "lobby":
            row.message_id = message.id
            await self.store.set_message_id(row.id, message.id)

    async def _slot(self, channel_id: int, reserve: int) -> bool:
        """Wait for a free slot of the channel; False as soon as the table changes meanwhile
        (the post waited for may be folded now, or the game over: plan again)."""
        await self.limits.wait(channel_id, reserve, self._wake)
        return not self._wake.is_set()

    def _reserve(self, post: Post) -> int:
        """Slots of the channel's window kept free: one, for the final standings, so that they
        are posted as soon as the last card is played, however fast the game went (what the
        channel still owes then is folded into them). The game's own messages take at most
        4 new messages in 5 s; what they cannot keep up with is folded too (bot.render.channel).
        """
        return 0 if post.key == FINAL_POST_KEY else 1

    async def _with_chart(self, spec: MessageSpec) -> MessageSpec:
        """The final standings' score chart, drawn off the event loop (its bytes are left
        empty by the render, which is pure and quick)."""
        if spec.attachment is None or spec.attachment[1] or self.session.game is None:
            return spec
        from bot.results import game_chart

        try:
            png = await game_chart(self.session.row, self.session.game)
        except Exception as error:
            log.warning("table %s: no score chart (%s)", self.session.row.id, type(error).__name__)
            return replace(spec, attachment=None)
        return replace(spec, attachment=(spec.attachment[0], png))

    async def _open_thread(self) -> None:
        """Thread mode: the game is played in a public thread opened from the lobby."""
        assert self.delivered is not None
        row = self.session.row
        lobby = self.delivered.get("lobby")
        if lobby is None or not lobby.message_id:
            await self._remember("thread", Delivered(row.channel_id, row.channel_id, "channel"))
            return
        message = channel_of(self.client, row.channel_id, row).get_partial_message(lobby.message_id)
        names = ", ".join(seat.name for seat in row.seats)
        try:
            thread = await self._call(
                message.create_thread(
                    name=notice("thread_name", for_table(row.options), game=row.id, names=names)[
                        :100
                    ],
                    auto_archive_duration=1440,
                ),
                row.channel_id,
            )
        except Refused:
            thread = None
        # Refused (permissions changed since /kachuful start): play in the channel instead.
        thread_id = row.channel_id if thread is None else thread.id
        await self._remember("thread", Delivered(row.channel_id, thread_id, "thread"))
        if thread is not None:
            self.tables.link_channel(self.session, thread.id)

    async def _edit(self, key: str, done: Delivered, spec: MessageSpec) -> None:
        if done.message_id:
            channel = channel_of(self.client, done.channel_id, self.session.row)
            message = channel.get_partial_message(done.message_id)
            kwargs = send_kwargs(await drawn(spec), edit=True)
            await self._call(message.edit(**kwargs), done.channel_id)
        # Also when refused for good (deleted by a moderator, too old): do not try again.
        await self._remember(key, Delivered(done.channel_id, done.message_id, digest(spec)))

    async def _delete(self, key: str) -> None:
        assert self.delivered is not None
        done = self.delivered[key]
        if done.message_id:
            channel = channel_of(self.client, done.channel_id, self.session.row)
            await self._call(channel.get_partial_message(done.message_id).delete(), done.channel_id)
        del self.delivered[key]
        self.unstored.discard(key)
        await self.store.forget_delivered(self.session.row.id, key)

    async def _call(self, request: Any, channel_id: int) -> Any:
        """One Discord request in ``channel_id``. Returns its result, or None when Discord
        refused it for good (4xx: nothing a retry would change); raises Retry when a retry
        may succeed, Refused when a permission is missing (it may be granted again)."""
        self.calls += 1
        try:
            return await request
        except discord.NotFound:
            return None
        except discord.HTTPException as error:
            if error.status >= 500 or error.status == 429:
                raise Retry(f"{error.status}") from None
            if error.status == 403 and error.code in NOT_ALLOWED:
                raise Refused(channel_id) from None
            level = logging.DEBUG if error.code == EDIT_TOO_OLD else logging.WARNING
            log.log(
                level,
                "table %s: Discord refused a message (%s %s)",
                self.session.row.id,
                error.status,
                error.code,
            )
            return None
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            raise Retry(type(error).__name__) from None


__all__ = ["Publisher", "RateLimits", "mode_of", "nonce"]
