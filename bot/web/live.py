"""The web table's socket (``GET /ws``, set as ``WebServer.socket``): the second front of the
change path, beside the Discord responder (docs/web.md, the protocol).

A socket says ``hello`` for one table, and gets its view (bot/web/views.py): its seat's, or a
watcher's if the user has no seat and may see the table's channel. After each committed change
of that table (``Changes.on_published``) every socket open on it gets its own new view. A
``move`` becomes a plain request (bot/table/requests.py) whose actor is the session's user,
proven by Discord's login, never a field of the message: it goes down ``Moves.handle`` as a
click does, and every other field is a claim the change path checks as it checks a forged
button. A move id already answered is answered the same way again and counts once (a page
that reconnects sends its unanswered move again).

Each socket has its own writer: frames are queued in the order they were made (a move's answer
before the view the move produced) and a slow browser never holds the table up.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, WSMsgType, web

from bot import render
from bot.i18n import N_, Translations, language_of, translation
from bot.table.requests import (
    CHOICES,
    Bid,
    Choose,
    Claim,
    Look,
    Move,
    PlayCard,
    Request,
    SetChoice,
    TakeBack,
)
from bot.table.session import TableSession, game_from_record

from .heartbeat import Heartbeat
from .views import TableState, Viewer, table_view
from .words import words

if TYPE_CHECKING:
    import discord

    from bot.store.protocol import GameStore
    from bot.table.changes import Changes
    from bot.table.moves import Moves
    from bot.table.open_tables import OpenTables
    from bot.table.outcome import Step

    from .sessions import Identity

log = logging.getLogger(__name__)
T = TypeVar("T")

# A socket silent this long is pinged, and closed if it does not answer (a phone that lost its
# network): the page then reconnects and says hello again (bot/web/heartbeat.py).
HEARTBEAT_SECONDS = 20.0
# A client's frame is a few dozen bytes: anything larger is not one of ours.
MAX_FRAME = 2048
# Move ids remembered per process for a second sending of the same move.
REMEMBERED_MOVES = 20_000
MAX_MOVE_ID = 64
# Whether a user may see a table's channel, remembered this long (one request to Discord).
WATCH_SECONDS = 60.0

MALFORMED = N_("That message could not be read: nothing was changed.")
NO_HELLO = N_("Open a table first: nothing was changed.")
NOT_WATCHER = N_("Only the players and those who can see the table's channel may watch it.")


@dataclass(eq=False)
class Peer:
    """One open socket: who it is (proven), which table it shows, what it was last sent."""

    ws: web.WebSocketResponse
    user_id: int
    language: str
    table: int | None = None
    chosen: int | None = None
    chosen_at: int | None = None
    last_view: str | None = None
    outbox: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)

    def push(self, frame: dict[str, Any] | str) -> None:
        self.outbox.put_nowait(frame if isinstance(frame, str) else _dump(frame))

    async def write(self) -> None:
        """Send queued frames in order until told to stop (None) or the socket closes."""
        while (text := await idle(self.outbox.get())) is not None:
            if self.ws.closed:
                return
            try:
                await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return


async def idle(waiting: Awaitable[T]) -> T:
    """Where a socket waits for its browser, or for something to send: the one place the
    tests declare to the simulated Discord as an outside input (it settles otherwise)."""
    return await waiting


class BadFrame(ValueError):
    """A frame that is not a message of the protocol."""


class Live:
    """Every socket of this process, by table."""

    def __init__(
        self,
        tables: OpenTables,
        moves: Moves,
        changes: Changes,
        store: GameStore,
        *,
        base_url: str,
        read_session: Callable[[str | None], Identity | None],
        client: discord.Client | None = None,
        clock: Callable[[], float] = time.monotonic,
        heartbeat: float | None = None,
    ) -> None:
        self.beats = Heartbeat(heartbeat or HEARTBEAT_SECONDS)
        self.sockets: set[web.WebSocketResponse] = set()
        self.tables = tables
        self.moves = moves
        self.store = store
        self.client = client
        self.clock = clock
        self.origin = _origin(base_url)
        self.read_session = read_session
        self.peers: dict[int, set[Peer]] = {}
        self.answered: OrderedDict[tuple[int, str], asyncio.Future[dict[str, Any]]] = OrderedDict()
        self._watchers: dict[tuple[int, int], tuple[bool, float]] = {}
        changes.on_published.append(self.published)

    # ---- the socket ----

    async def socket(self, request: web.Request, who: Identity | None) -> web.StreamResponse:
        """``GET /ws``: a logged-in user's socket. A browser's cookie must come with this
        site's own origin (another site's page cannot borrow it); an Activity, whose frame may
        refuse cookies, passes its session token as ``?session=`` instead."""
        token = request.query.get("session")
        if token is not None:  # never sent by a browser by itself: no other site can borrow it
            who = self.read_session(token)
        elif who is not None and request.headers.get("Origin") not in (None, self.origin):
            raise web.HTTPForbidden(text="another site's page")
        if who is None:
            raise web.HTTPUnauthorized(text="not logged in")
        # Pings and pongs are the heartbeat's (one timer for every socket), not aiohttp's.
        ws = web.WebSocketResponse(autoping=False, max_msg_size=MAX_FRAME)
        await ws.prepare(request)
        # The reader's language: the one Discord's client reports inside an Activity (the
        # SDK's, passed as ?locale=; a claim that only chooses words), else the login's.
        peer = Peer(ws, who.user_id, language_of(request.query.get("locale") or who.locale))
        writer = asyncio.create_task(peer.write())
        self.sockets.add(ws)
        self.beats.add(ws)
        try:
            while True:
                message = await idle(ws.receive())
                self.beats.heard(ws)
                if message.type is WSMsgType.PING:
                    with contextlib.suppress(ConnectionError, RuntimeError):  # closing now
                        await ws.pong(message.data)
                elif message.type is WSMsgType.TEXT:
                    await self.receive(peer, message.data)
                elif message.type is WSMsgType.BINARY:  # no message of ours
                    peer.push(_answer(None, False, self._say(peer, MALFORMED)))
                elif message.type is not WSMsgType.PONG:
                    break  # closed, closing or failed
        finally:
            self.sockets.discard(ws)
            self.beats.discard(ws)
            self._leave(peer)
            peer.outbox.put_nowait(None)
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        return ws

    async def receive(self, peer: Peer, data: str) -> None:
        """One frame from the client: every field a claim, checked here or by the change path.
        A frame that is not one of the protocol's is refused; the socket stays open."""
        try:
            frame = json.loads(data)
        except ValueError:
            frame = None
        move_id = frame.get("id") if isinstance(frame, dict) else None
        try:
            if not isinstance(frame, dict):
                raise BadFrame
            kind = frame.get("t")
            if kind == "ping":
                peer.push({"t": "pong"})
            elif kind == "hello":
                await self.hello(peer, frame)
            elif kind == "move":
                await self.move(peer, frame)
            else:
                raise BadFrame
        except BadFrame:
            peer.push(
                _answer(
                    move_id if _is_move_id(move_id) else None, False, self._say(peer, MALFORMED)
                )
            )

    async def hello(self, peer: Peer, frame: dict[str, Any]) -> None:
        table = frame.get("table")
        if isinstance(table, str) and table.isdigit():
            table = int(table)
        if not isinstance(table, int) or isinstance(table, bool) or not 0 < table < 2**63:
            raise BadFrame
        state = await self._state(table)
        if state is None:
            peer.push(_answer(None, False, render.refusal("no_table", self._tr(peer))))
            return
        if state.row.seat_of(peer.user_id) is None and not await self.may_watch(state, peer):
            peer.push(_answer(None, False, self._say(peer, NOT_WATCHER)))
            return
        self._leave(peer)
        peer.table = table
        peer.last_view = None
        self.peers.setdefault(table, set()).add(peer)
        self._send_view(peer, state)

    async def move(self, peer: Peer, frame: dict[str, Any]) -> None:
        move_id = frame.get("id")
        if not _is_move_id(move_id):
            raise BadFrame
        assert isinstance(move_id, str)
        key = (peer.user_id, move_id)
        known = self.answered.get(key)
        if known is not None:
            # The same move again (a page that reconnected, a double tap): its first answer.
            peer.push(await asyncio.shield(known))
            return
        if peer.table is None:
            peer.push(_answer(move_id, False, self._say(peer, NO_HELLO)))
            return
        move = parse_move(frame.get("move"))
        version = frame.get("version")
        if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
            raise BadFrame
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._remember(key, future)
        try:
            answer = await self._act(peer, move_id, move, version)
        except BaseException:
            self.answered.pop(key, None)
            future.cancel()
            raise
        future.set_result(answer)

    async def _act(
        self, peer: Peer, move_id: str, move: Move, version: int | None
    ) -> dict[str, Any]:
        assert peer.table is not None
        request = Request(
            user_id=peer.user_id,  # the login's, never the message's
            table=peer.table,
            move=move,
            version=version,
            language=peer.language,
            channel_id=None,
        )
        answered: dict[str, Any] = {}

        async def answer(step: Step) -> None:
            # Queued before the publishers are told: the mover hears first, then sees.
            reply = step.reply
            chosen = reply.chosen if reply is not None else None
            ok = step.counted or chosen is not None
            if chosen is not None:
                peer.chosen, peer.chosen_at = chosen, step.version
            text = None if step.counted or reply is None else reply.text
            answered.update(_answer(move_id, ok, text))
            peer.push(answered)
            if chosen is not None:
                session = self.tables.by_id.get(peer.table or 0)
                if session is not None:
                    self._send_view(peer, _live_state(session))

        try:
            await self.moves.handle(request, answer=answer)
        except Exception:
            # A bug on the path (the change itself was undone by the path): the page is told,
            # as a click would be, and the socket stays open.
            log.exception("table %s: a web move failed", peer.table)
            if not answered:
                answered.update(
                    _answer(move_id, False, render.notice("click_failed", self._tr(peer)))
                )
                peer.push(answered)
        return answered

    async def close_all(self, app: web.Application | None = None) -> None:
        """The web server stops (the bot restarts): every socket is told it is going away, and
        its page reconnects (to this process once it is back)."""
        self.beats.stop()
        for ws in list(self.sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=WSCloseCode.GOING_AWAY, message=b"restarting")

    # ---- after each committed change ----

    def published(self, session: TableSession) -> None:
        """A change of this table is committed: each of its sockets gets its own view (built
        now, in this turn of the event loop: every socket sees the same state)."""
        peers = self.peers.get(session.row.id)
        if not peers:
            return
        state = _live_state(session)
        for peer in peers:
            self._send_view(peer, state)

    def _send_view(self, peer: Peer, state: TableState) -> None:
        viewer = Viewer(peer.user_id, peer.language, peer.chosen, peer.chosen_at)
        view = table_view(state, viewer)
        del view["words"]  # the same in every view of a language: encoded once (below)
        text = f'{{"t":"view",{_dump(view)[1:-1]},"words":{_words_json(peer.language)}}}'
        if text != peer.last_view:  # a change another seat cannot see (a look) sends nothing
            peer.last_view = text
            peer.push(text)

    # ---- who may watch ----

    async def may_watch(self, state: TableState, peer: Peer) -> bool:
        """Whether an unseated user may see the table's channel (asked of Discord by the bot,
        remembered a minute either way)."""
        key = (state.row.id, peer.user_id)
        now = self.clock()
        known = self._watchers.get(key)
        if known is not None and known[1] > now:
            return known[0]
        allowed = await self._sees_channel(state.row.guild_id, state.row.channel_id, peer.user_id)
        if len(self._watchers) > 10_000:
            self._watchers = {k: v for k, v in self._watchers.items() if v[1] > now}
        self._watchers[key] = (allowed, now + WATCH_SECONDS)
        return allowed

    async def _sees_channel(self, guild_id: int, channel_id: int, user_id: int) -> bool:
        import discord

        guild = self.client.get_guild(guild_id) if self.client is not None else None
        channel = guild.get_channel_or_thread(channel_id) if guild is not None else None
        if guild is None or channel is None:
            return False
        try:
            member = await guild.fetch_member(user_id)
        except discord.HTTPException:
            return False
        return bool(channel.permissions_for(member).view_channel)

    # ---- helpers ----

    async def _state(self, table: int) -> TableState | None:
        """The table as it stands: open here, or (a game that ended) as the store keeps it."""
        session = self.tables.by_id.get(table) or self.tables.closing.get(table)
        if session is not None:
            return _live_state(session)
        row = await self.store.load_game(table)
        if row is None or row.status not in ("finished", "stopped"):
            return None
        game = None
        if row.record is not None:
            try:
                game = game_from_record(row.record, row.seed)
            except Exception:
                log.warning("table %s: its record could not be read for the web", table)
        return TableState(row, game)

    def _leave(self, peer: Peer) -> None:
        if peer.table is not None:
            peers = self.peers.get(peer.table)
            if peers is not None:
                peers.discard(peer)
                if not peers:
                    del self.peers[peer.table]

    def _remember(self, key: tuple[int, str], future: asyncio.Future[dict[str, Any]]) -> None:
        self.answered[key] = future
        while len(self.answered) > REMEMBERED_MOVES:
            self.answered.popitem(last=False)

    def _tr(self, peer: Peer) -> Translations:
        return translation(peer.language)

    def _say(self, peer: Peer, text: str) -> str:
        return "⚠️ " + self._tr(peer).gettext(text)

    def open_sockets(self) -> int:
        return sum(len(peers) for peers in self.peers.values())


def _live_state(session: TableSession) -> TableState:
    return TableState(session.row, session.game, session.deadline, session.taken_by)


def parse_move(value: Any) -> Move:
    """A move of the protocol (WEB.md); BadFrame for anything else. Its legality is the change
    path's to check."""
    if not isinstance(value, dict) or len(value) > 2:
        raise BadFrame
    if "bid" in value:
        n, blind = value["bid"], value.get("blind", False)
        if _int(n) and isinstance(blind, bool) and set(value) <= {"bid", "blind"}:
            return Bid(n, blind)
    elif "card" in value and len(value) == 1:
        card = value["card"]
        if card is None or _int(card):
            return PlayCard(card)
    elif value == {"look": True}:
        return Look()
    elif "choose" in value and len(value) == 1 and _int(value["choose"]):
        return Choose(value["choose"])
    elif value == {"claim": True}:
        return Claim()
    elif value == {"takeback": True}:
        return TakeBack()
    elif set(value) == {"set", "on"} and value["set"] in CHOICES and isinstance(value["on"], bool):
        return SetChoice(value["set"], value["on"])
    raise BadFrame


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -(2**31) < value < 2**31


def _is_move_id(value: Any) -> bool:
    return isinstance(value, str) and 0 < len(value) <= MAX_MOVE_ID and value.isprintable()


def _answer(move_id: str | None, ok: bool, text: str | None) -> dict[str, Any]:
    return {"t": "answer", "id": move_id, "ok": ok, "text": text}


@functools.cache
def _words_json(language: str) -> str:
    return _dump(words(language))


def _dump(frame: dict[str, Any]) -> str:
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


def _origin(base_url: str) -> str:
    parts = urlsplit(base_url)
    return f"{parts.scheme}://{parts.netloc}"
