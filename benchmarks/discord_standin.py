"""A stand-in for Discord in a process of its own, serving real ``python -m bot`` processes
over loopback, with the simulated players of a load run.

What runs
---------
This process is Discord: an aiohttp server on 127.0.0.1 answers the REST API
(``/api/v10/...``) and the gateway websocket. Behind both is SimCord's in-memory backend
(guilds, channels, members, every message with its components, interaction records and their
tokens, webhook follow-ups and edits), driven through SimCord's own REST router, so every
route the bot uses behaves as in the in-process tests and an unknown route or field fails
loudly (it is counted and fails the run). The gateway answers HELLO, IDENTIFY (READY with
the shard's guilds unavailable, then a GUILD_CREATE for each), heartbeats (ACK), and sends
each event the backend emits to the connection of the shard that owns its guild,
``(guild_id >> 22) % shard_count``, if that connection's intents ask for it (the bot asks for
guilds only: interactions, no message events).

The bots are real ``python -m bot`` processes (as ``tests/bot/process.py`` launches them:
``discord.http.Route.BASE`` and the gateway URL point here), configured only through the
environment: the store (``KACHUFUL_DB_PATH`` or ``KACHUFUL_DATABASE_URL``), the shards
(``KACHUFUL_SHARD_COUNT`` and ``KACHUFUL_SHARD_IDS``: process i of K with S shards each holds
shards i*S .. i*S+S-1 of K*S; one process with one shard runs unsharded), computer delay 0,
the turn clock at its maximum, the lobby time-out at its maximum, commands synced globally.
Everything else is production: post pacing (5 new messages per channel per 5 s), a watching
player's hand redrawn at most every few seconds, worker processes. Each process gets its own
(fake) token, so the stand-in knows which process identified each shard and made each
channel post. Deals are the bot's own (random seeds): games differ between runs; the
players' choices are seeded.

The players run in this process too, on the same event loop as the stand-in: a player is a
Discord user, on Discord's side of the wire, and reading the messages where they are stored
costs no copy or hop; their CPU is counted with the stand-in's (not the bots'). Guild ids are
made for shards: guild g is on shard g mod 4 of 4 (or of the run's shard count if that does
not divide 4), so 1, 2 and 4 shards all get the guilds evenly; table t is in guild
t mod ``--guilds``, in a channel of its own, with three human players.

Opening a table is what players do: ``/kachuful start`` by the host, Join by the two others,
"Start (host)", then each player clicks "Your hand" on the table's public message (so each
has a private hand message). Then all tables play at once, each driven by an agent that knows
only what Discord shows: the player whose hand message has enabled bid or card buttons at the
table's newest move version (``kf:b:<table>:<version>:...``) is to act; the agent thinks
(``--think-ms`` on average, uniform 0.5x-1.5x, seeded; the first pause a random part of one
think), clicks a random enabled bid or card, and waits for the answer. A click is a move if
afterwards a hand message of the table shows a newer version; otherwise it was refused
(stale, counted) and is tried again. Each table makes ``--moves`` moves.

Click latency: from just before the INTERACTION_CREATE frame is written to the shard's
websocket to the arrival of the bot's ``POST /interactions/{id}/{token}/callback`` at this
server. Every click of the timed phase must be answered, and within Discord's 3 s (SimCord's
backend runs on the wall clock here, so a later answer is refused as Discord would): a click
unanswered after 30 s, or answered late, fails the run.

CPU over the timed phase: each bot process's utime+stime (with its children, e.g. computer
workers) from /proc, and this process's own (the stand-in and the players). PostgreSQL's is
read by ``benchmarks/scale_out.py --standin`` (files ``ready-0`` and ``stopped-0`` in
``--barrier`` mark the timed phase).

    .venv/bin/python benchmarks/discord_standin.py --tables 4 --moves 20 --think-ms 0
    .venv/bin/python benchmarks/discord_standin.py --processes 2 --shards-per-process 2 \\
        --database-url postgresql://...  --tables 100 --moves 20 --think-ms 0

Prints one JSON object (``--json``) or a short report.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import io
import json
import logging
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for _path in (str(ROOT), str(ROOT / "benchmarks")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

import discord  # noqa: E402
from aiohttp import WSMsgType, web  # noqa: E402
from bot_load import (  # noqa: E402
    ACTION_PREFIXES,
    CALLBACK_PATH,
    FAKE_TOKEN,
    HAND_PREFIX,
    READY_POLL,
    Napper,
    _buttons,
    _Discard,
    latency_summary,
)
from bot_load import _kind as request_kind  # noqa: E402
from scale_out import _ticks, postgres_cpu_seconds  # noqa: E402
from simcord import intents as _sc_intents  # noqa: E402
from simcord import interactions as _sc_interactions  # noqa: E402
from simcord._clock import Clock  # noqa: E402
from simcord.backend import serializers as _sc_serializers  # noqa: E402
from simcord.backend.errors import BackendError  # noqa: E402
from simcord.backend.state import Backend  # noqa: E402
from simcord.enums import ComponentType, InteractionType  # noqa: E402
from simcord.http import router as _sc_router  # noqa: E402
from simcord.http import routes as _sc_routes  # noqa: E402, F401  (registers the routes)

from bot.registry import TURN_SECONDS  # noqa: E402
from tests.bot.process import _LAUNCH  # noqa: E402

log = logging.getLogger("standin")

ANSWER_TIMEOUT = 30.0  # seconds before a click counts as unanswered
DISCORD_DEADLINE = 3.0  # seconds Discord gives a bot to answer an interaction
MAX_REFUSED = 20  # refused clicks in a row before a table is declared stuck
CONNECT_TIMEOUT = 120.0  # seconds for every bot process to connect every shard
OPENING_AT_ONCE = 8  # tables being opened at the same time
EPHEMERAL = 64  # message flag
SHARD_BASE = 4  # guild ids are made for shards of 4 (also even on 2 and 1)
WEBHOOK_TOKEN = re.compile(r"^/webhooks/\d+/([^/]+)")


def process_token(index: int) -> str:
    """A fake token of the right shape, different for each bot process (the stand-in tells
    the processes apart by it); never printed."""
    return f"{FAKE_TOKEN[:-3]}{index:03d}"


# ---- the stand-in Discord ----------------------------------------------------------------------


class WallClock(Clock):
    """SimCord's backend clock on real time: snowflakes, timestamps and the interaction
    deadlines (3 s to answer, 15 min for the token) as Discord has them."""

    def now(self) -> datetime:
        return datetime.now(UTC)


@dataclass
class Connection:
    """One gateway connection: one shard of one bot process."""

    socket: web.WebSocketResponse
    shard: int = -1
    process: int = -1
    intents: discord.Intents | None = None
    sequence: int = 0
    queue: asyncio.Queue[tuple[str, int | None]] = field(default_factory=asyncio.Queue)
    events: Counter[str] = field(default_factory=Counter)


@dataclass
class Answer:
    at: float  # perf_counter when the callback arrived
    type: int  # the callback type (4 message, 5 deferred, 6 deferred update, 7 update)


class StandIn:
    """Discord's REST API and gateway over SimCord's backend (see the module docstring)."""

    def __init__(self, shard_count: int, tokens: list[str]) -> None:
        self.backend = Backend(clock=WallClock())
        # SimCord's request log and transcript keep a copy of everything for ever: not here
        # (and the router's copy of each body is for that log only).
        self.backend.http_requests = _Discard()
        self.backend.transcript = _Discard()
        _sc_router.copy = _NoCopy  # type: ignore[assignment,attr-defined]
        self.backend.subscribers.append(self._on_event)
        self.shard_count = shard_count
        self.process_of_token = {token: index for index, token in enumerate(tokens)}
        self.connections: dict[int, Connection] = {}
        self.identified = asyncio.Event()
        self.sent_at: dict[int, float] = {}  # interaction id -> INTERACTION_CREATE written
        self.interaction_shard: dict[int, int] = {}
        self.answers: dict[int, Answer] = {}
        self.waiting: dict[int, asyncio.Future[Answer]] = {}
        self.rest_calls: Counter[str] = Counter()
        self.posts_by_process: Counter[int] = Counter()
        self.wrong_posts: list[str] = []  # a channel post by a process not owning the guild
        self.unknown_routes: list[str] = []
        self.errors: Counter[str] = Counter()  # Discord error answers, by status and route kind
        self.dropped: Counter[str] = Counter()  # events for a shard with no connection
        self.agents: dict[int, TableAgent] = {}  # channel id -> its table's agent
        self.base = ""
        self.gateway = ""
        self._runner: web.AppRunner | None = None

    # -- the server

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway/", self.handle_gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self.handle_rest)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = self._runner.addresses[0][1]
        self.base = f"http://127.0.0.1:{port}/api/v10"
        self.gateway = f"ws://127.0.0.1:{port}/gateway/"

    async def close(self) -> None:
        for connection in list(self.connections.values()):
            with contextlib.suppress(Exception):
                await connection.socket.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def shard_of(self, guild_id: int) -> int:
        return (guild_id >> 22) % self.shard_count

    # -- the gateway

    async def handle_gateway(self, request: web.Request) -> web.StreamResponse:
        socket = web.WebSocketResponse(max_msg_size=0, heartbeat=None)
        await socket.prepare(request)
        connection = Connection(socket)
        await socket.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}}))
        sender = asyncio.create_task(self._send_loop(connection))
        try:
            async for message in socket:
                if message.type is not WSMsgType.TEXT:
                    continue
                payload = json.loads(message.data)
                op = payload.get("op")
                if op == 1:
                    await socket.send_str(json.dumps({"op": 11}))
                elif op == 2:
                    self._identify(connection, payload["d"])
                elif op == 6:
                    log.error("a shard tried to resume; the stand-in does not support it")
                    self.unknown_routes.append("gateway RESUME")
                    await socket.close()
        finally:
            sender.cancel()
            if self.connections.get(connection.shard) is connection:
                del self.connections[connection.shard]
        return socket

    def _identify(self, connection: Connection, data: dict[str, Any]) -> None:
        shard, count = data.get("shard") or [0, 1]
        if count != self.shard_count:
            raise ValueError(f"a bot identified with {count} shards, not {self.shard_count}")
        connection.shard = shard
        connection.process = self.process_of_token.get(data.get("token", ""), -1)
        connection.intents = discord.Intents._from_value(int(data.get("intents", 0)))
        self.connections[shard] = connection
        guilds = [g for g in self.backend.guilds.values() if self.shard_of(g.id) == shard]
        ready = {
            "v": 10,
            "user": dict(_sc_serializers.user_payload(self.backend.bot_user)),
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": f"standin-{shard}",
            "resume_gateway_url": self.gateway,
            "shard": [shard, count],
            "application": {"id": str(self.backend.application_id), "flags": 0},
        }
        self._queue(connection, "READY", ready)
        for guild in guilds:
            payload = dict(_sc_serializers.guild_create_payload(self.backend, guild))
            _sc_intents.prune_guild_create(payload, connection.intents, self.backend.bot_user.id)
            self._queue(connection, "GUILD_CREATE", payload)
        if len(self.connections) == self.shard_count:
            self.identified.set()

    def _queue(self, connection: Connection, event: str, payload: Mapping[str, Any]) -> None:
        connection.sequence += 1
        frame = {"op": 0, "t": event, "s": connection.sequence, "d": payload}
        interaction = int(payload["id"]) if event == "INTERACTION_CREATE" else None
        connection.queue.put_nowait((json.dumps(frame, default=_plain), interaction))
        connection.events[event] += 1

    async def _send_loop(self, connection: Connection) -> None:
        while True:
            text, interaction = await connection.queue.get()
            if interaction is not None:
                self.sent_at[interaction] = time.perf_counter()
            await connection.socket.send_str(text)

    def _on_event(self, event: str, payload: Mapping[str, Any]) -> None:
        """An event the backend emits: to the shard of its guild, if asked for."""
        guild = payload.get("id") if event == "GUILD_CREATE" else payload.get("guild_id")
        if guild is None:
            return  # no guild: not for a guilds-only bot
        shard = self.shard_of(int(guild))
        connection = self.connections.get(shard)
        if connection is None or connection.intents is None:
            self.dropped[event] += 1
            return
        gate = _sc_intents.required_intent(event, payload)
        if gate is not None and not getattr(connection.intents, gate):
            return
        if event == "INTERACTION_CREATE":
            self.interaction_shard[int(payload["id"])] = shard
        self._queue(connection, event, payload)

    # -- the REST API

    async def handle_rest(self, request: web.Request) -> web.StreamResponse:
        arrived = time.perf_counter()
        method = request.method
        path = "/" + request.match_info["tail"]
        if path == "/gateway/bot":
            limits = {"total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 16}
            body = {"url": self.gateway, "shards": self.shard_count, "session_start_limit": limits}
            return _json(body)
        kind = _kind(method, path)
        self.rest_calls[kind] += 1
        payload, files = await _read_body(request)
        callback = CALLBACK_PATH.match(path)
        if kind.startswith("channel message POST"):
            self._check_post(request, path)
        try:
            result = _sc_router.dispatch(
                self.backend,
                method,
                path,
                json=payload,
                params=dict(request.query),
                files=files,
                reason=request.headers.get("X-Audit-Log-Reason"),
            )
        except (_sc_router.RouteNotImplemented, _sc_router.UnsupportedField) as error:
            log.error("UNKNOWN %s %s: %s", method, path, error)
            self.unknown_routes.append(f"{method} {_shape(path)}: {error}")
            return _json({"message": str(error), "code": 0}, status=501)
        except BackendError as error:
            self.errors[f"{error.status} {kind}"] += 1
            return _json(error.to_json(), status=error.status)
        finally:
            if callback is not None:
                self._answered(int(callback.group(1)), arrived, payload)
            self._wake(path)
        if result is None:
            return web.Response(status=204)
        return _json(result)

    def _answered(self, interaction: int, arrived: float, payload: Any) -> None:
        answer = Answer(arrived, int((payload or {}).get("type", 0)))
        self.answers.setdefault(interaction, answer)
        future = self.waiting.pop(interaction, None)
        if future is not None and not future.done():
            future.set_result(answer)

    def _check_post(self, request: web.Request, path: str) -> None:
        """Which process posted in a channel: it must hold the shard of the channel's guild."""
        token = request.headers.get("Authorization", "").removeprefix("Bot ")
        process = self.process_of_token.get(token, -1)
        self.posts_by_process[process] += 1
        channel = self.backend.channels.get(int(path.split("/")[2]))
        if channel is None or channel.guild_id is None:
            return
        shard = self.shard_of(channel.guild_id)
        holder = next((c.process for c in self.connections.values() if c.shard == shard), None)
        if holder != process:
            self.wrong_posts.append(f"process {process} posted in shard {shard}'s guild")

    def _wake(self, path: str) -> None:
        """The bot called Discord about a table: wake its agent."""
        parts = path.split("/", 4)
        channel: int | None = None
        if len(parts) > 2 and parts[1] == "channels" and parts[2].isdigit():
            channel = int(parts[2])
        elif len(parts) > 3 and parts[1] in ("interactions", "webhooks"):
            record_id = self.backend.interaction_tokens.get(parts[3])
            record = self.backend.interactions.get(record_id) if record_id else None
            channel = record.channel_id if record is not None else None
        agent = self.agents.get(channel) if channel is not None else None
        if agent is not None:
            agent.wake()

    # -- what a user does

    def click(self, user_id: int, channel_id: int, message_id: int, custom_id: str) -> int:
        """Click a button as SimCord's MemberActor.click builds it; returns the interaction id."""
        backend = self.backend
        stored = backend.get_message(channel_id, message_id)
        button = next(b for b in _buttons(stored) if b.get("custom_id") == custom_id)
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": ComponentType.BUTTON}
        if button.get("id") is not None:
            data["id"] = button["id"]
        guild_id = backend.get_channel(channel_id).guild_id
        record, payload = _sc_interactions.base_payload(
            backend,
            type=InteractionType.MESSAGE_COMPONENT,
            channel_id=channel_id,
            guild_id=guild_id,
            user_id=user_id,
            data=data,
        )
        payload["message"] = dict(_sc_serializers.message_payload(backend, stored))
        record.source_message_id = stored.id
        backend.emit("INTERACTION_CREATE", payload)
        return int(record.id)

    def slash(self, user_id: int, channel_id: int, name: str) -> int:
        """A slash command without options (``kachuful start``) as SimCord builds it."""
        backend = self.backend
        parts = name.split()
        root = next(
            c
            for scope in backend.commands.values()
            for c in scope.values()
            if c["name"] == parts[0]
        )
        _leaf, nesting = _sc_interactions.walk_to_subcommand(root, parts[1:])
        data = {
            "id": root["id"],
            "name": root["name"],
            "type": root.get("type", 1),
            "options": _sc_interactions.nest_options(root, nesting, []),
        }
        record, payload = _sc_interactions.base_payload(
            backend,
            type=InteractionType.APPLICATION_COMMAND,
            channel_id=channel_id,
            guild_id=backend.get_channel(channel_id).guild_id,
            user_id=user_id,
            data=data,
        )
        backend.emit("INTERACTION_CREATE", payload)
        return int(record.id)

    async def answer(self, interaction: int) -> Answer | None:
        """The bot's answer to an interaction (None: none within ANSWER_TIMEOUT)."""
        if interaction in self.answers:
            return self.answers[interaction]
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        self.waiting[interaction] = future
        try:
            return await asyncio.wait_for(future, ANSWER_TIMEOUT)
        except TimeoutError:
            self.waiting.pop(interaction, None)
            return None


class _NoCopy:
    """SimCord's router copies each body for its request log, which is discarded here."""

    @staticmethod
    def deepcopy(value: Any, memo: Any = None) -> Any:
        return value


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def _json(body: Any, status: int = 200) -> web.Response:
    # discord.py reads a body as JSON only if its Content-Type is exactly application/json.
    text = json.dumps(body, default=_plain)
    return web.Response(
        body=text.encode(), status=status, headers={"Content-Type": "application/json"}
    )


@dataclass
class _Upload:
    fp: io.BytesIO
    filename: str | None
    description: str | None = None


async def _read_body(request: web.Request) -> tuple[Any, list[_Upload]]:
    """The JSON body, or a multipart body's payload_json and files."""
    if not request.can_read_body:
        return None, []
    if request.content_type.startswith("multipart/"):
        payload: Any = None
        files: list[_Upload] = []
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            data = await part.read()  # type: ignore[union-attr]
            if part.name == "payload_json":  # type: ignore[union-attr]
                payload = json.loads(data)
            elif part.filename:  # type: ignore[union-attr]
                files.append(_Upload(io.BytesIO(bytes(data)), part.filename))  # type: ignore[union-attr]
        for index, upload in enumerate(files):
            described = ((payload or {}).get("attachments") or [])[index : index + 1]
            if described:
                upload.description = described[0].get("description")
        return payload, files
    text = await request.text()
    return (json.loads(text) if text else None), []


def _kind(method: str, path: str) -> str:
    """bot_load's kinds of REST call, with the route's shape for the others."""
    kind = request_kind(method, path)
    return f"{kind} {_shape(path)}" if kind.startswith("other ") else kind


def _shape(path: str) -> str:
    return re.sub(r"/\d+", "/{id}", WEBHOOK_TOKEN.sub("/webhooks/{id}/{token}", path))


# ---- the players -------------------------------------------------------------------------------


@dataclass
class Sample:
    kind: str  # "hand", "bid", "play"
    seconds: float
    table: int


@dataclass
class Stats:
    samples: list[Sample] = field(default_factory=list)
    sent: int = 0
    unanswered: int = 0
    late: int = 0  # answered after Discord's 3 s
    refused: int = 0
    moves: int = 0
    stuck: list[str] = field(default_factory=list)


class TableAgent(Napper):
    """One table's three players, who see only what Discord shows them."""

    def __init__(
        self, standin: StandIn, index: int, channel_id: int, players: list[int], seed: int
    ) -> None:
        self.standin = standin
        self.index = index
        self.channel_id = channel_id
        self.players = players
        self.rng = random.Random(f"standin/{seed}/{index}")
        self.table = ""  # the bot's table id, read from its buttons
        self.hand_ids: dict[int, int] = {}  # player -> their private hand message
        self.done_version = -1  # newest version a move was made at
        self.moves = 0
        self.stats = Stats()
        standin.agents[channel_id] = self

    def _messages(self) -> dict[int, Any]:
        return self.standin.backend.messages.get(self.channel_id, {})

    async def _until(self, find: Any, what: str) -> Any:
        started = time.perf_counter()
        while time.perf_counter() - started < ANSWER_TIMEOUT:
            found = find()
            if found:
                return found
            await self._nap()
        raise AssertionError(f"table {self.index}: {what} never showed")

    async def _click(self, user: int, message_id: int, custom_id: str, kind: str) -> Answer:
        interaction = self.standin.click(user, self.channel_id, message_id, custom_id)
        return await self._answered(interaction, kind)

    async def _answered(self, interaction: int, kind: str, timed: bool = True) -> Answer:
        self.stats.sent += timed
        answer = await self.standin.answer(interaction)
        if answer is None:
            self.stats.unanswered += 1
            raise AssertionError(f"table {self.index}: a {kind} click was not answered")
        sent = self.standin.sent_at.get(interaction, answer.at)
        seconds = answer.at - sent
        if timed:
            self.stats.samples.append(Sample(kind, seconds, self.index))
            self.stats.late += seconds > DISCORD_DEADLINE
        return answer

    def _public_button(self, prefix: str, label: str | None = None) -> tuple[int, str] | None:
        """The newest public message with a button whose custom id starts with ``prefix`` (or
        whose label is ``label``): its id and the button's custom id."""
        for message in reversed(list(self._messages().values())):
            if message.flags & EPHEMERAL:
                continue
            for button in _buttons(message):
                custom = str(button.get("custom_id", ""))
                if (label is not None and button.get("label") == label) or (
                    label is None and custom.startswith(prefix)
                ):
                    return int(message.id), custom
        return None

    async def open(self) -> None:
        """/kachuful start, Join, Join, Start (host), then each player's "Your hand"."""
        standin = self.standin
        host, *others = self.players
        await self._answered(standin.slash(host, self.channel_id, "kachuful start"), "start", False)
        for player in others:
            lobby, custom = await self._until(lambda: self._public_button("", "Join"), "Join")
            await self._answered(
                standin.click(player, self.channel_id, lobby, custom), "join", False
            )
        lobby, custom = await self._until(lambda: self._public_button("", "Start (host)"), "Start")
        await self._answered(standin.click(host, self.channel_id, lobby, custom), "start", False)
        for player in self.players:
            message, custom = await self._until(
                lambda: self._public_button(HAND_PREFIX), "Your hand"
            )
            self.table = custom.removeprefix(HAND_PREFIX)
            interaction = standin.click(player, self.channel_id, message, custom)
            await self._answered(interaction, "hand", False)
            record = standin.backend.interactions[interaction]
            if record.message_id is None:
                raise AssertionError(f"table {self.index}: Your hand gave no message")
            self.hand_ids[player] = int(record.message_id)

    def _actions(self, player: int) -> tuple[int, list[str]]:
        """The version a player's hand message was drawn at, and its enabled bids/cards."""
        message = self._messages().get(self.hand_ids[player])
        if message is None:
            return -1, []
        version = -1
        enabled = []
        for button in _buttons(message):
            custom = str(button.get("custom_id", ""))
            if custom.startswith(ACTION_PREFIXES):
                version = max(version, int(custom.split(":")[3]))
                if not button.get("disabled"):
                    enabled.append(custom)
        return version, enabled

    def _turn(self) -> tuple[int, int, list[str]] | None:
        """Whose turn Discord shows: the player whose hand message has enabled buttons at the
        newest version of the table (newer than the last move made)."""
        best: tuple[int, int, list[str]] | None = None
        for player in self.players:
            version, enabled = self._actions(player)
            if enabled and version > self.done_version and (best is None or version > best[0]):
                best = (version, player, enabled)
        return best

    def _newest_version(self) -> int:
        return max(self._actions(p)[0] for p in self.players)

    async def play(self, moves: int, think_ms: float) -> None:
        think = think_ms / 1000
        if think > 0:
            await asyncio.sleep(think * self.rng.random())
        refused = 0
        while self.moves < moves:
            turn = await self._until(self._turn, "a player's turn")
            if think > 0:
                await asyncio.sleep(think * (0.5 + self.rng.random()))
                turn = self._turn() or turn  # what the hand shows when the player clicks
            version, player, enabled = turn
            choice = self.rng.choice(sorted(enabled))
            kind = "bid" if choice.startswith("kf:b:") else "play"
            answer = await self._click(player, self.hand_ids[player], choice, kind)
            if await self._moved(version, player, answer):
                self.moves += 1
                self.stats.moves += 1
                self.done_version = version
                refused = 0
            else:
                self.stats.refused += 1
                refused += 1
                if refused > MAX_REFUSED:
                    raise AssertionError(f"table {self.index}: the bot refuses every click")
                await asyncio.sleep(READY_POLL)

    async def _moved(self, version: int, player: int, answer: Answer) -> bool:
        """Whether a click at ``version`` made a move. A player's hand message has bid or card
        buttons only on their turn; after a move the next player's is redrawn at once, at the
        next version: a move shows as a hand at a newer version. A refusal (the move was not
        allowed) redraws the clicked hand in place with its buttons still at ``version``."""
        started = time.perf_counter()
        while True:
            if self._newest_version() > version:
                return True
            if answer.type == 7:
                shown, enabled = self._actions(player)
                if shown == version and enabled:
                    return False
            if time.perf_counter() - started > ANSWER_TIMEOUT:
                return False
            await self._nap()


# ---- the bot processes -------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    tables: int = 4
    moves: int = 20
    think_ms: float = 0.0
    processes: int = 1
    shards_per_process: int = 1
    guilds: int = 8
    database_url: str | None = None
    seed: int = 1
    barrier: str | None = None
    keep: str | None = None  # a folder to keep the bots' logs in
    idle_seconds: float = 0.0  # measure the bots' CPU with nobody clicking this long first

    @property
    def shard_count(self) -> int:
        return self.processes * self.shards_per_process

    @property
    def sharded(self) -> bool:
        return self.shard_count > 1


def shard_ids(config: Config, process: int) -> list[int]:
    first = process * config.shards_per_process
    return list(range(first, first + config.shards_per_process))


def bot_environment(config: Config, process: int, work: Path) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(ROOT),
        "TMPDIR": str(work),
        "DISCORD_TOKEN": process_token(process),
        "KACHUFUL_DB_PATH": str(work / "kachuful.sqlite3"),
        "KACHUFUL_BOT_DELAY_SECONDS": "0",
        "KACHUFUL_TURN_SECONDS": str(TURN_SECONDS[1]),
        "KACHUFUL_LOBBY_TIMEOUT_SECONDS": str(7 * 24 * 3600),
        "KACHUFUL_SYNC_GLOBAL": "true",
    }
    if config.database_url is not None:
        env["KACHUFUL_DATABASE_URL"] = config.database_url
    if config.sharded:
        env["KACHUFUL_SHARD_COUNT"] = str(config.shard_count)
        env["KACHUFUL_SHARD_IDS"] = ",".join(map(str, shard_ids(config, process)))
    return env


def start_bots(config: Config, standin: StandIn, work: Path) -> list[subprocess.Popen[bytes]]:
    bots = []
    for process in range(config.processes):
        home = work / f"bot-{process}"
        home.mkdir()
        log_file = open(home / "bot.log", "wb")  # noqa: SIM115  (closed with the process)
        bots.append(
            subprocess.Popen(
                [sys.executable, "-c", _LAUNCH, standin.base, standin.gateway],
                cwd=home,  # no .env there; the heartbeat file goes there
                env=bot_environment(config, process, home),
                stdout=log_file,
                stderr=subprocess.STDOUT,
            )
        )
        log_file.close()
    return bots


def stop_bots(bots: list[subprocess.Popen[bytes]]) -> list[int | None]:
    for bot in bots:
        if bot.poll() is None:
            bot.send_signal(signal.SIGTERM)
    codes: list[int | None] = []
    for bot in bots:
        try:
            codes.append(bot.wait(timeout=30))
        except subprocess.TimeoutExpired:
            bot.kill()
            bot.wait()
            codes.append(None)
    return codes


def cpu_seconds(pid: int) -> float:
    """A bot process's CPU time so far, with its live and reaped children (its workers)."""
    return postgres_cpu_seconds(pid)


async def idle_cpu(bots: list[subprocess.Popen[bytes]], seconds: float) -> list[float] | None:
    """Each bot process's CPU milliseconds a second with its tables open and nobody clicking:
    its fixed cost (timers, the database pool), which the timed phase's figure includes."""
    if seconds <= 0:
        return None
    before = [cpu_seconds(bot.pid) for bot in bots]
    await asyncio.sleep(seconds)
    return [
        round((cpu_seconds(bot.pid) - b) * 1000 / seconds, 1)
        for bot, b in zip(bots, before, strict=True)
    ]


def own_cpu_seconds() -> float:
    """This process's own CPU time (the bots, its children, not included)."""
    return _ticks(os.getpid(), False) / os.sysconf("SC_CLK_TCK")


def mark(config: Config, name: str) -> None:
    """For benchmarks/scale_out.py: PostgreSQL's CPU is read when these files appear."""
    if config.barrier is not None:
        (Path(config.barrier) / f"{name}-0").write_text(str(os.getpid()), encoding="ascii")


# ---- the run -----------------------------------------------------------------------------------


async def migrate(config: Config) -> None:
    """PostgreSQL's schema first: several processes migrating a new database at once would
    race (a SQLite file is the one process's own)."""
    from bot.store.store import Store

    if config.database_url is not None:
        await (await Store.open(config.database_url)).close()


def layout(config: Config, standin: StandIn) -> list[TableAgent]:
    """Guilds made for shards, one channel and three players a table (see the docstring)."""
    backend = standin.backend
    base = SHARD_BASE if SHARD_BASE % config.shard_count == 0 else config.shard_count
    guilds = [
        backend.create_guild(f"Kachuful load {g}", shard_id=g % base, shard_count=base)
        for g in range(config.guilds)
    ]
    agents = []
    for index in range(config.tables):
        guild = guilds[index % len(guilds)]
        channel = backend.create_channel(guild.id, f"table-{index}", announce=False)
        players = []
        for seat in range(3):
            user = backend.make_user(f"t{index}p{seat}")
            backend.add_member(guild.id, user.id)
            players.append(user.id)
        agents.append(TableAgent(standin, index, channel.id, players, config.seed))
    return agents


async def run(config: Config) -> dict[str, Any]:
    # A short folder: it is the bots' TMPDIR, where their computer workers' forkserver makes a
    # unix socket (at most 107 bytes; a deep TMPDIR failed every start of a worker).
    short = "/tmp" if os.path.isdir("/tmp") else None
    with tempfile.TemporaryDirectory(prefix="kachuful-standin-", dir=short) as folder:
        work = Path(folder)
        try:
            return await _run(config, work)
        finally:
            if config.keep is not None:
                keep = Path(config.keep)
                keep.mkdir(parents=True, exist_ok=True)
                for process in range(config.processes):
                    log_file = work / f"bot-{process}" / "bot.log"
                    if log_file.exists():
                        (keep / f"bot-{process}.log").write_bytes(log_file.read_bytes())


async def _run(config: Config, work: Path) -> dict[str, Any]:
    tokens = [process_token(i) for i in range(config.processes)]
    standin = StandIn(config.shard_count, tokens)
    await standin.start()
    agents = layout(config, standin)
    await migrate(config)
    setup_started = time.perf_counter()
    bots = start_bots(config, standin, work)
    codes: list[int | None] = []
    result: dict[str, Any] = {}
    try:
        await _connected(standin, bots)
        opening = asyncio.Semaphore(OPENING_AT_ONCE)

        async def open_one(agent: TableAgent) -> None:
            async with opening:
                await agent.open()

        opened = await asyncio.gather(*(open_one(a) for a in agents), return_exceptions=True)
        failed = [f"{type(e).__name__}: {e}" for e in opened if isinstance(e, BaseException)]
        if failed:
            raise SetupFailed("; ".join(failed[:3]))
        setup_seconds = time.perf_counter() - setup_started
        gc.collect()
        gc.freeze()  # the layout and the opened tables: out of the collector's way
        idle = await idle_cpu(bots, config.idle_seconds)

        creates_before = _creates(standin)
        callbacks_before = _callbacks_by_process(standin)
        bot_cpu = [cpu_seconds(bot.pid) for bot in bots]
        own_cpu = own_cpu_seconds()
        mark(config, "ready")
        started = time.perf_counter()
        started_wall = time.time()
        outcomes = await asyncio.gather(
            *(agent.play(config.moves, config.think_ms) for agent in agents),
            return_exceptions=True,
        )
        seconds = time.perf_counter() - started
        mark(config, "stopped")
        bot_cpu = [cpu_seconds(bot.pid) - before for bot, before in zip(bots, bot_cpu, strict=True)]
        own_cpu = own_cpu_seconds() - own_cpu
        creates = _creates(standin) - creates_before
        callbacks = _callbacks_by_process(standin) - callbacks_before
        alive = [bot.poll() is None for bot in bots]
        result = summarise(
            config, standin, agents, outcomes, seconds, bot_cpu, own_cpu, creates, callbacks
        )
        result.update(
            {
                "started_at": started_wall,
                "setup_seconds": round(setup_seconds, 1),
                "bots_alive_at_end": all(alive),
                "idle_seconds": config.idle_seconds,
                "bot_idle_cpu_ms_per_second": idle,
            }
        )
    except (SetupFailed, TimeoutError, RuntimeError) as error:
        result = {"problems": [f"setting up: {error}"]}
    finally:
        codes = stop_bots(bots)
        await standin.close()
    result["bot_exit_codes"] = codes
    if any(code != 0 for code in codes) or result["problems"]:
        result["problems"].append(f"bot exit codes {codes}")
        for process in range(config.processes):
            tail = (work / f"bot-{process}" / "bot.log").read_text(errors="replace")
            result["problems"].append(f"bot {process} log tail: {tail[-1500:]}")
    result["ok"] = not result["problems"]
    return result


class SetupFailed(Exception):
    """A table could not be opened as players open one."""


async def _connected(standin: StandIn, bots: list[subprocess.Popen[bytes]]) -> None:
    """Until every shard has identified and had its guilds, and the bots are ready."""
    deadline = time.perf_counter() + CONNECT_TIMEOUT
    while not standin.identified.is_set():
        if any(bot.poll() is not None for bot in bots):
            raise RuntimeError("a bot process ended before connecting")
        if time.perf_counter() > deadline:
            raise TimeoutError("the bot processes did not connect every shard")
        await asyncio.sleep(0.05)
    while any(not c.queue.empty() for c in standin.connections.values()):
        await asyncio.sleep(0.05)
    await asyncio.sleep(1.0)  # discord.py's guild-ready wait is 2 s at most with none pending


def _creates(standin: StandIn) -> Counter[str]:
    """INTERACTION_CREATE sent so far, by "process i / shard s"."""
    return Counter(
        {
            f"process {c.process} / shard {c.shard}": c.events["INTERACTION_CREATE"]
            for c in standin.connections.values()
        }
    )


def _callbacks_by_process(standin: StandIn) -> Counter[str]:
    """Callbacks received so far, by the process holding the shard the interaction went to."""
    holder = {c.shard: c.process for c in standin.connections.values()}
    return Counter(
        f"process {holder.get(standin.interaction_shard.get(i, -1), -1)}" for i in standin.answers
    )


def summarise(
    config: Config,
    standin: StandIn,
    agents: list[TableAgent],
    outcomes: list[Any],
    seconds: float,
    bot_cpu: list[float],
    own_cpu: float,
    creates: Counter[str],
    callbacks: Counter[str],
) -> dict[str, Any]:
    problems = [f"{type(o).__name__}: {o}" for o in outcomes if isinstance(o, BaseException)]
    samples = [s for a in agents for s in a.stats.samples]
    sent = sum(a.stats.sent for a in agents)
    unanswered = sum(a.stats.unanswered for a in agents)
    late = sum(a.stats.late for a in agents)
    moves = sum(a.stats.moves for a in agents)
    if unanswered:
        problems.append(f"{unanswered} interactions unanswered")
    if late:
        problems.append(f"{late} interactions answered after Discord's 3 s")
    if moves != config.tables * config.moves:
        problems.append(f"{moves} moves made, not {config.tables * config.moves}")
    problems += [f"unknown route: {r}" for r in standin.unknown_routes[:5]]
    problems += standin.wrong_posts[:5]
    interactions = len(samples)
    by_kind: dict[str, list[float]] = {}
    for sample in samples:
        by_kind.setdefault(sample.kind, []).append(sample.seconds)
    holders = {p: shard_ids(config, p) for p in range(config.processes)}
    for connection in standin.connections.values():
        if connection.shard not in holders.get(connection.process, []):
            problems.append(f"process {connection.process} holds shard {connection.shard}")
    total_cpu = sum(bot_cpu)
    return {
        "configuration": (
            f"{config.processes} x {config.shards_per_process} shards"
            if config.sharded
            else "1 process, unsharded"
        ),
        "backend": "postgresql" if config.database_url else "sqlite",
        "processes": config.processes,
        "shards_per_process": config.shards_per_process,
        "shard_count": config.shard_count,
        "tables": config.tables,
        "moves_per_table": config.moves,
        "think_ms": config.think_ms,
        "guilds": config.guilds,
        "interactions": interactions,
        "sent": sent,
        "answered": interactions,
        "unanswered": unanswered,
        "late": late,
        "refused": sum(a.stats.refused for a in agents),
        "moves": moves,
        "seconds": round(seconds, 3),
        "interactions_per_sec": round(interactions / seconds, 1) if seconds > 0 else 0.0,
        "latency_ms": latency_summary([s.seconds for s in samples]),
        "latency_ms_by_kind": {k: latency_summary(v) for k, v in by_kind.items()},
        "cpu_seconds_bots": round(total_cpu, 3),
        "cpu_seconds_bot_processes": [round(c, 3) for c in bot_cpu],
        "cpu_seconds_standin": round(own_cpu, 3),
        "cpu_ms_per_interaction_bots": round(total_cpu * 1000 / interactions, 3)
        if interactions
        else None,
        "cpu_ms_per_interaction_standin": round(own_cpu * 1000 / interactions, 3)
        if interactions
        else None,
        "interaction_creates": dict(sorted(creates.items())),
        "callbacks_by_process": dict(sorted(callbacks.items())),
        "channel_posts_by_process": {
            f"process {p}": n for p, n in sorted(standin.posts_by_process.items())
        },
        "posts_in_another_process_guild": len(standin.wrong_posts),
        "rest_calls": dict(standin.rest_calls.most_common()),
        "discord_errors": dict(standin.errors),
        "unknown_routes": standin.unknown_routes[:20],
        "stuck_tables": [a.index for a in agents if a.moves < config.moves],
        "problems": problems,
    }


def parse_args(argv: list[str] | None = None) -> tuple[Config, bool]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--moves", type=int, default=20, help="moves per table (20)")
    parser.add_argument("--think-ms", type=float, default=0.0, help="mean pause before a click")
    parser.add_argument("--processes", type=int, default=1, help="bot processes (1)")
    parser.add_argument(
        "--shards-per-process", type=int, default=1, help="gateway shards each process holds (1)"
    )
    parser.add_argument("--guilds", type=int, default=8, help="servers the tables are in (8)")
    parser.add_argument("--database-url", help="PostgreSQL (default: a SQLite file)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--barrier", help="a folder: files mark the timed phase (scale_out.py)")
    parser.add_argument("--keep-logs", metavar="DIR", help="copy the bots' logs here")
    parser.add_argument(
        "--idle-seconds",
        type=float,
        default=0.0,
        help="first measure the bots' CPU this long with the tables open and no click (0)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args(argv)
    config = Config(
        tables=args.tables,
        moves=args.moves,
        think_ms=args.think_ms,
        processes=args.processes,
        shards_per_process=args.shards_per_process,
        guilds=args.guilds,
        database_url=args.database_url,
        seed=args.seed,
        barrier=args.barrier,
        keep=args.keep_logs,
        idle_seconds=args.idle_seconds,
    )
    if min(config.tables, config.moves, config.processes, config.shards_per_process) < 1:
        parser.error("--tables, --moves, --processes and --shards-per-process must be positive")
    if config.processes > 1 and config.database_url is None:
        parser.error("several processes share one database: give --database-url")
    if config.guilds < config.shard_count:
        parser.error("at least one guild per shard")
    return config, args.json


def main(argv: list[str] | None = None) -> int:
    config, as_json = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # still stop the bots (finally)
    result = asyncio.run(run(config))
    if as_json:
        print(json.dumps(result))
    else:
        lat = result.get("latency_ms", {})
        print(
            f"{result.get('configuration')} on {result.get('backend')}: "
            f"{result.get('interactions')} interactions in {result.get('seconds')} s = "
            f"{result.get('interactions_per_sec')}/s; click p50 {lat.get('median')} ms, "
            f"p99 {lat.get('p99')} ms; CPU ms per interaction: bots "
            f"{result.get('cpu_ms_per_interaction_bots')}, stand-in "
            f"{result.get('cpu_ms_per_interaction_standin')}"
        )
        for problem in result["problems"]:
            print(f"  PROBLEM {problem}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
