"""Private hand messages kept up to date: the second publisher of a table.

A hand message is an answer to an interaction; the bot may edit it with that interaction's
token for 15 minutes. After every commit each open hand message is redrawn from the seat's
view if it shows something else; near the end of its token's life it says so and how to get
a fresh one; when the game ends it says that. The tokens are stored, so after a restart the
open hand messages are brought up to date too. Separate from the public publisher: hand
messages are not held back by the channel's limit on new messages.

A player who is only watching (not their turn, the same deal and phase as their message
shows) is redrawn at most every ``Timing.hand_delay`` seconds: the public live message shows
each card at once, and at a table playing briskly their next redraw comes with their own turn
anyway. That halves the edits of a three-seat table and keeps each hand's webhook well inside
Discord's rate limits. A player whose turn starts, a new deal or phase, a notice, the end of the
game: redrawn at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord.http import handle_message_parameters
from discord.utils import MISSING
from discord.webhook.async_ import async_context

from bot import render
from bot.i18n import translation
from bot.render.specs import MessageSpec, digest
from bot.store.failures import StoreError
from bot.ui.payloads import drawn, send_kwargs
from bot.web.links import table_link
from kachuful_core.views import view as seat_view

from .session import HandHandle

if TYPE_CHECKING:
    from bot.store.protocol import GameStore

    from .session import TableSession
    from .timing import Timing

log = logging.getLogger(__name__)

# An interaction token lives 15 minutes: say goodbye a minute before.
HAND_TOKEN_SECONDS = 14 * 60
RETRY_SECONDS = 5.0
# A watcher's hand message is redrawn at most this often.
HAND_WATCH_SECONDS = 2.0


def webhook_session(client: discord.Client) -> dict[str, Any]:
    """discord.py's own HTTP session and proxy (what an Interaction uses for webhook calls)."""
    http: Any = client.http
    return {
        "session": http._HTTPClient__session,
        "proxy": http.proxy,
        "proxy_auth": http.proxy_auth,
    }


async def edit_original(
    client: discord.Client,
    token: str,
    spec: MessageSpec,
    message_id: int | None = None,
    shown: Any = None,
) -> None:
    """Edit the message that answered an interaction, knowing only its token (as discord.py's
    ``Interaction.edit_original_response`` does), so that it works after a restart too; or,
    with ``message_id``, that follow-up message of the interaction. ``shown``: the picture the
    message has, not uploaded again (a watcher's hand is redrawn at every move, its cards
    are not)."""
    if spec.picture != shown:
        spec = await drawn(spec)
    kwargs = send_kwargs(spec, edit=True, shown=shown)
    with handle_message_parameters(
        content=kwargs["content"],
        embeds=kwargs["embeds"],
        view=kwargs["view"],
        attachments=kwargs.get("attachments", MISSING),
        allowed_mentions=kwargs["allowed_mentions"],
        previous_allowed_mentions=client.allowed_mentions,
    ) as params:
        adapter = async_context.get()
        common: dict[str, Any] = {
            **webhook_session(client),
            "payload": params.payload,
            "multipart": params.multipart,
            "files": params.files,
        }
        app = client.application_id or 0
        if message_id is None:
            await adapter.edit_original_interaction_response(app, token, **common)
        else:
            await adapter.edit_webhook_message(app, token, message_id, **common)


class HandPublisher:
    """Keeps each player's open private hand message in line with the committed state, while
    its interaction token lives."""

    def __init__(
        self,
        session: TableSession,
        *,
        client: discord.Client,
        store: GameStore,
        timing: Timing,
    ) -> None:
        self.client = client
        self.store = store
        self.timing = timing
        self.session = session
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.Task[None] | None = None

    async def load(self) -> None:
        """After a restart: the hand messages whose tokens still live."""
        stored = await self.store.open_hands(self.session.row.id)
        for user_id, (token, opened_at, message_id, language) in stored.items():
            self.session.hands.setdefault(
                user_id,
                HandHandle(token, opened_at, message_id=message_id, language=language or "en"),
            )

    def poke(self) -> None:
        self._wake.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"kachuful-hands-{self.session.row.id}"
            )

    def opened(self) -> None:
        """A hand message was opened: time its goodbye (also when no commit follows)."""
        if self._task is None or self._task.done():
            self._schedule_expiry()

    def stop(self) -> None:
        for task in (self._task, self._timer):
            if task is not None and not task.done():
                task.cancel()

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self._pass()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("table %s: hand messages not updated", self.session.row.id)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            if not self._wake.is_set():
                self._schedule_expiry()
                return

    def _schedule_expiry(self) -> None:
        """Wake up when the oldest open hand message is about to stop being editable, or a
        watcher's redraw is due."""
        if self._timer is not None and not self._timer.done():
            self._timer.cancel()
        wait = self._next_expiry()
        dues = [h.due for h in self.session.hands.values() if h.due is not None]
        if dues:
            due = max(0.0, min(dues) - asyncio.get_running_loop().time())
            wait = due if wait is None else min(wait, due)
        if wait is not None:
            self._timer = asyncio.get_running_loop().create_task(
                self._poke_after(wait), name=f"kachuful-hands-timer-{self.session.row.id}"
            )

    async def _poke_after(self, delay: float) -> None:
        await asyncio.sleep(delay)
        self.poke()

    def _next_expiry(self) -> float | None:
        now = self.timing.clock()
        ages = [
            HAND_TOKEN_SECONDS - (now - h.opened_at).total_seconds()
            for h in self.session.hands.values()
        ]
        return max(0.0, min(ages)) if ages else None

    async def _pass(self) -> None:
        over = self.session.row.status != "running" or self.session.game is None
        for user_id, handle in list(self.session.hands.items()):
            age = (self.timing.clock() - handle.opened_at).total_seconds()
            if age >= HAND_TOKEN_SECONDS:
                async with self.session.lock:  # never the state of a change being saved
                    spec = self._spec(user_id, handle, expired=True)
                await self._edit(handle, spec)
                await self._drop(user_id, handle)
                continue
            async with self.session.lock:  # released before the Discord call
                stage, urgent = self._stage(user_id, handle)
                if not (urgent or over) and self._held(handle):
                    continue  # drawn when due (the timer wakes this publisher then)
                spec = self._spec(user_id, handle)
            if spec is None:
                await self._drop(user_id, handle)
                continue
            if digest(spec) == handle.digest:
                handle.due = None
            elif urgent or over or self._due(handle):
                await self._edit(handle, spec)
                handle.stage, handle.due = stage, None
            if over:
                await self._drop(user_id, handle)
            if self._wake.is_set():
                return

    def _stage(self, user_id: int, handle: HandHandle) -> tuple[tuple[int, str] | None, bool]:
        """What the seat's message should show (deal, phase), and whether it must be redrawn
        at once rather than at the watchers' pace."""
        stage = hand_stage(self.session, user_id)
        game, seat = self.session.game, self.session.row.seat_of(user_id)
        my_turn = game is not None and seat is not None and game.turn == seat
        noticed = handle.notice is not None and handle.notice_version == self.session.row.version
        return stage, my_turn or noticed or stage != handle.stage

    def _held(self, handle: HandHandle) -> bool:
        """A watcher's redraw already held back and not yet due: not even drawn (at a table
        of quick computer players, most commits would draw it only to hold it back)."""
        return handle.due is not None and asyncio.get_running_loop().time() < handle.due

    def _due(self, handle: HandHandle) -> bool:
        """A watcher's redraw: due ``hand_delay`` seconds after it was first held back."""
        now = asyncio.get_running_loop().time()
        if handle.due is None:
            handle.due = now + self.timing.hand_delay
        return now >= handle.due

    def _spec(
        self, user_id: int, handle: HandHandle, *, expired: bool = False
    ) -> MessageSpec | None:
        row, game = self.session.row, self.session.game
        tr = translation(handle.language)
        seat = row.seat_of(user_id)
        if seat is None or game is None:
            if row.status == "stopped":
                return MessageSpec(content=render.notice("hand_game_stopped", tr))
            return None
        spec = render.hand_message(
            row,
            seat_view(game, seat),
            tr,
            version=row.version,
            notice=handle.notice if handle.notice_version == row.version else None,
            deadline=self.session.deadline,
            stopped=row.status == "stopped",
            undo=self.session.undo_for(user_id, row.version),
            table_link=table_link(self.timing.settings, row.id),
        )
        if expired:
            return render.hand_expired(spec, row.id, tr)
        return spec

    async def _edit(self, handle: HandHandle, spec: MessageSpec | None) -> None:
        if spec is None:
            return
        try:
            await edit_original(
                self.client, handle.token, spec, handle.message_id, shown=handle.picture
            )
        except (discord.HTTPException, aiohttp.ClientError, OSError) as error:
            # An expired token or a dismissed message: the player can open a fresh one.
            log.debug(
                "table %s: a hand message could not be edited (%s)",
                self.session.row.id,
                type(error).__name__,
            )
            handle.opened_at -= timedelta(seconds=HAND_TOKEN_SECONDS)
            return
        handle.digest = digest(spec)
        handle.picture = spec.picture

    async def _drop(self, user_id: int, handle: HandHandle) -> None:
        if self.session.hands.get(user_id) is handle:
            del self.session.hands[user_id]
        with contextlib.suppress(StoreError):
            await self.store.drop_hand(self.session.row.id, user_id)


def hand_stage(session: TableSession, user_id: int) -> tuple[int, str] | None:
    """The deal and phase a seat's hand message shows once drawn now."""
    game = session.game
    if game is None or session.row.seat_of(user_id) is None:
        return None
    return game.deal_number, game.phase.value
