"""Kill at any moment: the bot is SIGKILLed again and again while it plays, and nothing is lost,
doubled or posted twice.

The parent process starts a child (``kill_loop.py --child --db FILE``) that runs SimCord with
the real bot on a real SQLite file, opens ``--tables`` tables (one member clicking and two
computer seats each, small hands, computers at 0 s; a bot that asks which computer player
gets the plain one) and plays them: whenever it is the member's
turn the child clicks the first enabled bid or card of their hand message (opened with "Your
hand", or ``/kachuful hand`` when no public message carries the button), and when a game ends it
starts the next one in that channel. The parent SIGKILLs the child at random moments, starts a
new one on the same file, and so on ``--kills`` times; then a last child runs without being
killed until every game is finished and every public message delivered. Then it checks:

- ``PRAGMA integrity_check`` is ok;
- every public post the child reported (the moment SimCord took it) names a game and a key that
  exist in the stored game: a deal, trick or score the record has, ``final`` only for a finished
  game, ``ping.<move>`` only for a move the member had to make; its nonce is the publisher's
  ``nonce(game, key)``;
- no (game, key) was posted twice, except by a later process after the earlier one was killed
  (the post was taken, the process died before storing it as delivered, the next one posted it
  again with the same nonce: real Discord drops it; counted as ``nonce_retries``); every
  message a finished game should have was posted; its final standings exactly once (retries
  apart); one lobby message per game;
- no move applied twice or lost: each stored record replays with ``kachuful_core.load_game``,
  its move count equals its bids plus its cards, every move the child saw accepted is in the
  record at its move counter, by the member's seat, as clicked;
- every game is finished and settled; each counted once in the results (one row per seat, the
  scores of the replayed game) and in the leaderboard.

Besides its tables the child drives, unless ``--features=`` (empty), a score pad, practice
deals and an event, as their players would (``benchmarks/kill_features.py``: the pad's players
join, bid and enter their tricks on its public message; the practice player plays deal after
deal on their private message, which the journal keeps; the organiser opens an event, its
players register, the organiser starts it, and its tables are played in their threads, which
the journal keeps too, round after round); a third of the kills then land right after the
n-th click of one of them (for an event also after a post of its message, for a pad the moment
its message is out and its id not yet stored), and the checks of ``kill_features.check`` are
added: every committed pad entry, practice move and event result present once, no public
message doubled, the event's standings as its tables' records give them. The summary counts
what was in flight at each kill by kind (``in_flight_at_kill``: the kind of the click the
child had sent and not seen answered, or ``between clicks``).

Kills land at random moments: during start-up (the migrations, the restore of the tables, the
first publishing passes), anywhere in the play, right after the child announced a click (while
the bot handles it), right after SimCord took a post (before the bot could store it as
delivered), or right after a ``/kachuful start`` was answered with its lobby (before the bot
could store the lobby's message id). The children's log (``children.log`` in ``--workdir``)
must hold no error and no traceback of the bot. ``--fault`` injects a known bug (the final
standings posted twice, a post stored as delivered but never sent, a finished game without its
results) to see the checks fail.

With ``--computer-workers N`` each child's bot starts its computer players' pool (N workers,
their forkserver and multiprocessing's resource tracker) as soon as it is up, as a game with an
Expert seat would, and the check adds: no process a child started still runs 5 s after the
last child ended. Each child has a session of its own, which whatever it starts keeps wherever
it is re-parented (Linux: read from /proc; elsewhere this check finds nothing). The summary
counts the processes the killed children had started and gives the longest time from a kill
to the end of all of them.

Simulated Discord across processes
----------------------------------
SimCord lives in the child's memory, so each child would start with an empty Discord. Real
Discord keeps the bot's messages, so the child keeps the channels' public messages in a journal
beside the database (``FILE.discord``: each create, edit and delete appended as it happens) and
puts them back, with their ids, before the bot starts; a public message that answered an
interaction keeps that interaction, so its token still finds the message (as on Discord, for
15 minutes). The guild, channels and members are made
in the same order on every start: SimCord's ids are deterministic (a virtual clock that starts
at the same instant and a per-millisecond sequence), so they are the same in every child.
Private (ephemeral) hand messages and their interactions' tokens are not kept: after a restart the
bot's edits of old hand messages fail (as for an expired token) and the member opens a new
one. While the child imports Python it waits for a "go" from the parent, which starts it
while the previous child still runs and says "go" once that one is dead: the kill loop does not
wait for imports, and no two bots ever use the file at once.

    .venv/bin/python benchmarks/kill_loop.py                 # 300 kills
    .venv/bin/python benchmarks/kill_loop.py --kills 20 --max-delay 0.8 --seed 1
    .venv/bin/python benchmarks/kill_loop.py --kills 20 --computer-workers 1 --seed 1
    .venv/bin/python benchmarks/kill_loop.py --kills 5 --seed 29 --tables 1 --event-rounds 1

Prints one JSON summary; exits 1 on any violation. Prints no card of a hand not yet played and
no game seed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import dataclasses
import json
import os
import pickle
import queue
import random
import re
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
if str(REPO / "benchmarks") not in sys.path:
    sys.path.insert(0, str(REPO / "benchmarks"))

import kill_features  # noqa: E402  (beside this script)

# --database-url: the bot (and the checks) on this PostgreSQL database instead of the SQLite
# file; the children get it in their environment, never on their command line.
DATABASE_URL_ENV = "KACHUFUL_DATABASE_URL"


def query(
    target: Path | str, sql: str, params: dict[str, Any] | None = None, *, settled: bool = False
) -> list[Any]:
    """One statement (SQL both engines run, ``:name`` parameters) on the SQLite file or the
    PostgreSQL database. ``settled``: on SQLite, read under the write lock (BEGIN IMMEDIATE,
    then ROLLBACK), so that the log a killed writer left half indexed is recovered before the
    read; a plain read may see the state from before that writer's last commits, and a later
    read the commits themselves, as if something had written meanwhile."""
    import sqlalchemy as sa

    url = (
        sa.make_url(target).set(drivername="postgresql+psycopg")
        if isinstance(target, str)
        else sa.URL.create("sqlite", database=str(target))
    )
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    locked = settled and not isinstance(target, str)
    try:
        with engine.connect() as conn:
            if locked:
                conn.exec_driver_sql("PRAGMA busy_timeout = 30000")
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            try:
                result = conn.execute(sa.text(sql), params or {})
                return [tuple(row) for row in result] if result.returns_rows else []
            finally:
                if locked:
                    conn.exec_driver_sql("ROLLBACK")
    finally:
        engine.dispose()


FAKE_TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
HUMAN_SEAT = 0  # the member opens the table, so holds the first seat
KEEP_MESSAGES = 150  # per channel, in the journal: older messages are never touched again
THREAD_CREATED = 18  # Discord's message type of "… started a thread"


# ============================================================================ the child


def emit(**event: Any) -> None:
    """One JSON line to the parent; a single write(2) (atomic on a pipe), no buffering."""
    os.write(1, (json.dumps(event, separators=(",", ":")) + "\n").encode())


class Journal:
    """The channels' public messages, kept across processes (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None

    def load(self) -> tuple[dict[int, Any], dict[int, Any], dict[int, Any]]:
        """The messages as last written (a record cut short by a kill is dropped), by
        message id the interaction that each message answering one answered, and the threads
        the bot made (an event's tables)."""
        messages: dict[int, Any] = {}
        answers: dict[int, Any] = {}
        threads: dict[int, Any] = {}
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return messages, answers, threads
        at = 0
        while at + 4 <= len(data):
            (size,) = struct.unpack_from(">I", data, at)
            if at + 4 + size > len(data):
                break
            op, message_id, entry = pickle.loads(data[at + 4 : at + 4 + size])
            if op == "answer":  # the message and its interaction, in one record
                messages[message_id], answers[message_id] = entry
            elif op == "thread":
                threads[message_id] = entry
            elif op == "put":
                messages[message_id] = entry
            else:
                messages.pop(message_id, None)
                answers.pop(message_id, None)
            at += 4 + size
        return messages, answers, threads

    def compact(
        self, messages: dict[int, Any], answers: dict[int, Any], threads: dict[int, Any]
    ) -> dict[int, Any]:
        """Rewrite with the threads and the last KEEP_MESSAGES messages of each channel; open
        for appending."""
        by_channel: dict[int, list[Any]] = defaultdict(list)
        for message in messages.values():
            by_channel[message.channel_id].append(message)
        kept = {}
        for items in by_channel.values():
            for message in sorted(items, key=lambda m: m.id)[-KEEP_MESSAGES:]:
                kept[message.id] = message
        # Named after this journal: with_suffix would give every shard's journal
        # (kachuful.sqlite3.discord-0-1, …-2-3) the same kachuful.sqlite3.tmp.
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "wb") as out:
            for thread in threads.values():
                out.write(self._record("thread", thread.id, thread))
            for message in sorted(kept.values(), key=lambda m: m.id):
                answered = answers.get(message.id)
                if answered is None:
                    out.write(self._record("put", message.id, message))
                else:
                    out.write(self._record("answer", message.id, (message, answered)))
        os.replace(tmp, self.path)
        self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        return kept

    @staticmethod
    def _record(op: str, message_id: int, message: Any) -> bytes:
        blob = pickle.dumps((op, message_id, message))
        return struct.pack(">I", len(blob)) + blob

    def write(self, op: str, message_id: int, message: Any = None) -> None:
        assert self.fd is not None
        os.write(self.fd, self._record(op, message_id, message))


CURRENT_POST: contextvars.ContextVar[tuple[int, str] | None] = contextvars.ContextVar(
    "kill_loop_post", default=None
)
_MESSAGES_PATH = re.compile(r"/channels/(\d+)/messages$")


def inject(fault: str) -> None:
    """A known bug, to show that the checks catch it (tests/bot/test_kill_loop.py)."""
    from bot.store.store import Store
    from bot.table import publisher

    if fault == "double-final":
        # The final standings posted twice by the same process.
        create = publisher.Publisher._create

        async def twice(self: Any, post: Any) -> None:
            await create(self, post)
            if post.key == "final":
                self._wake.clear()  # it would plan again after a new message: post at once
                await create(self, post)

        publisher.Publisher._create = twice  # type: ignore[method-assign]
    elif fault == "no-results":
        # A finished game without its result rows.
        save = Store.save_game

        async def save_game(self: Any, game: Any, **kwargs: Any) -> None:
            kwargs["results"] = ()
            await save(self, game, **kwargs)

        Store.save_game = save_game  # type: ignore[method-assign]
    elif fault in kill_features.FAULTS:
        kill_features.inject(fault)
    elif fault == "lost-post":
        # The first deal's scores stored as delivered without being posted.
        from bot.store.values import Delivered

        create = publisher.Publisher._create

        async def lose(self: Any, post: Any) -> None:
            if post.key == "d0.score":
                await self._remember(post.key, Delivered(self.session.row.channel_id, 1, ""))
                return
            await create(self, post)

        publisher.Publisher._create = lose  # type: ignore[method-assign]


def instrument(env: Any, journal: Journal, private: frozenset[int] = frozenset()) -> None:
    """Report each public post the moment SimCord takes it; journal every public message (and
    the private ones of the ``private`` channels), and every thread the bot makes."""
    from simcord.http.client import FakeHTTPClient

    from bot.table import publisher

    original_create = publisher.Publisher._create

    async def create(self: Any, post: Any) -> None:
        token = CURRENT_POST.set((self.session.row.id, post.key))
        try:
            await original_create(self, post)
        finally:
            CURRENT_POST.reset(token)

    publisher.Publisher._create = create  # type: ignore[method-assign]

    original_request = FakeHTTPClient.request

    async def request(self: Any, route: Any, **kwargs: Any) -> Any:
        result = await original_request(self, route, **kwargs)
        # No await between SimCord taking the post and the report.
        if route.method == "POST" and _MESSAGES_PATH.search(route.url.split("?")[0]):
            body = kwargs.get("json") or {}
            for part in kwargs.get("form") or ():  # a post with a file: the JSON is a part
                if isinstance(part, dict) and part.get("name") == "payload_json":
                    body = json.loads(part["value"])
            current = CURRENT_POST.get()
            area = kill_features.CURRENT_AREA.get()
            if area is not None and current is None:  # a score pad's or an event's message
                emit(ev="post", **area, nonce=body.get("nonce"), id=int(result["id"]))
            else:
                emit(
                    ev="post",
                    game=current[0] if current else None,
                    key=current[1] if current else None,
                    nonce=body.get("nonce"),
                    id=int(result["id"]),
                )
        return result

    FakeHTTPClient.request = request  # type: ignore[method-assign]

    backend = env.backend
    original_emit = backend.emit

    def hooked(event: str, payload: Any) -> None:
        if event in ("MESSAGE_CREATE", "MESSAGE_UPDATE"):
            stored = backend.messages.get(int(payload["channel_id"]), {}).get(int(payload["id"]))
            if (
                stored is not None
                and (not stored.is_ephemeral or stored.channel_id in private)
                and stored.author_id == backend.bot_user.id
                # Discord's own notice of a thread the bot made (an event's table) is no post
                # of the bot's and never touched again: kept, 122 of them pushed an event's
                # message out of the journal's last KEEP_MESSAGES of its channel.
                and stored.type != THREAD_CREATED
            ):
                answered = _answered(backend, stored) if event == "MESSAGE_CREATE" else None
                if answered is not None:
                    # Real Discord keeps the interaction: its token finds this message for
                    # 15 minutes (how a restarted bot finds a lobby it had no time to store).
                    journal.write("answer", stored.id, (stored, answered))
                else:
                    journal.write("put", stored.id, stored)
                if event == "MESSAGE_CREATE":
                    lobby = _lobby_table(stored)
                    if lobby is not None:
                        emit(ev="lobby_message", game=lobby, id=stored.id)
        elif event == "MESSAGE_DELETE":
            journal.write("del", int(payload["id"]))
        elif event == "THREAD_CREATE":
            thread = backend.channels.get(int(payload["id"]))
            if thread is not None:
                journal.write("thread", thread.id, thread)
        original_emit(event, payload)

    backend.emit = hooked

    from bot.store.store import Store

    original_save = Store.save_game

    async def save_game(self: Any, game: Any, **kwargs: Any) -> None:
        await original_save(self, game, **kwargs)
        if game.status == "finished" and kwargs.get("results"):
            emit(ev="finished", game=game.id)

    Store.save_game = save_game  # type: ignore[method-assign]


def _answered(backend: Any, message: Any) -> Any:
    """The interaction a new public message answers, as it stands once answered."""
    from simcord.backend.models.interaction import ResponseKind

    meta = message.interaction_metadata or {}
    record = backend.interactions.get(int(meta.get("id") or 0))
    if record is None:
        return None
    return dataclasses.replace(
        record, responded=True, response_kind=ResponseKind.MESSAGE, message_id=message.id
    )


def _buttons(message: Any) -> list[dict[str, Any]]:
    found = []
    stack = list(message.components)
    while stack:
        component = stack.pop(0)
        if component.get("type") == 2 and component.get("custom_id"):
            found.append(component)
        stack[0:0] = list(component.get("components") or [])
    return found


def _custom_ids(message: Any) -> list[tuple[str, bool]]:
    return [(b["custom_id"], bool(b.get("disabled"))) for b in _buttons(message)]


def _lobby_table(message: Any) -> int | None:
    for custom_id, _ in _custom_ids(message):
        match = re.fullmatch(r"kf:l:join:(\d+):\d+", custom_id)
        if match:
            return int(match[1])
    return None


class Child:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.db = Path(args.db)
        # Sharded: this child holds some shards of --shard-count; its simulated Discord keeps
        # the messages of its own shards' servers, in a journal of its own.
        self.shard_ids = [int(i) for i in args.shard_ids.split(",")] if args.shard_ids else []
        held = "-".join(str(i) for i in self.shard_ids)
        suffix = f".discord-{held}" if self.shard_ids else ".discord"
        # Where the bot's tables are: the PostgreSQL database when one was given.
        self.target: Path | str = os.environ.get(DATABASE_URL_ENV) or self.db
        self.journal = Journal(self.db.with_name(self.db.name + suffix))
        self.hands: dict[int, int] = {}  # member id -> their newest hand message id
        self.guild_ids: list[int] = []  # the servers this child plays in
        self.features: kill_features.Features | None = None  # pads, practice, an event

    async def run(self, finish: bool) -> None:
        import simcord

        from bot.client import create_bot
        from bot.config import Settings

        # The plain computer player needs no worker process; with --computer-workers N the
        # child starts a pool of N (see the stray-process check in parent_main).
        workers = (
            {"computer_workers": self.args.computer_workers}
            if "computer_workers" in Settings.model_fields
            else {}
        )
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            discord_token=FAKE_TOKEN,
            db_path=self.db,
            sync_global=True,
            bot_delay_seconds=0,
            turn_seconds=3600,  # no turn clock fires: the member always clicks
            lobby_timeout_seconds=7 * 24 * 3600,
            log_level="WARNING",
            **workers,
        )
        if self.shard_ids:
            # Built directly, not from the environment: the processes of the shards share the
            # SQLite file here, which an operator's settings refuse (one machine only).
            settings = settings.model_copy(
                update={"shard_count": self.args.shard_count, "shard_ids": tuple(self.shard_ids)}
            )
        bot = create_bot(settings, post_limit=10_000)
        env = simcord.Env(bot, settle_timeout=30.0)
        self.env, self.bot = env, bot
        if self.shard_ids:
            self._make_servers(env)
        else:
            # The same guild, channels and members (same ids) in every child.
            guild = env.create_guild("Kachuful Club")
            self.guild_ids = [guild.id]
            self.channels = [
                guild.create_text_channel(f"cards-{i}") for i in range(self.args.tables)
            ]
            self.members = [
                guild.add_member(env.create_user(f"player{i}")) for i in range(self.args.tables)
            ]
            if areas(self.args):
                # After the tables' channels and members: their ids stay as they were.
                self.features = kill_features.Features(self, env, guild, areas(self.args))
                self.guild_ids += self.features.guild_ids
        world = self.features.world() if self.features else {}
        emit(
            ev="world",
            guilds=self.guild_ids,
            channels=[c.id for c in self.channels],
            guild=self.guild_ids[0] if self.guild_ids else None,
            **world,
        )
        self._restore_discord()
        private = self.features.private_channels if self.features else set()
        instrument(env, self.journal, frozenset(private))
        for fault in self.args.fault or ():
            inject(fault)
        if self.features:
            kill_features.instrument()  # around a fault's code too: its posts are tagged
        emit(ev="boot")
        await env.start()
        if self.args.computer_workers:
            # The pool up from the start (as a game with an Expert seat would start it), so
            # that most kills find it there.
            bot.tables.thinker.start()
        emit(ev="ready")
        try:
            await self._play(finish)
        finally:
            if finish:
                await env.shutdown()
                await bot.store.close()
        emit(ev="done")

    def _make_servers(self, env: Any) -> None:
        """A server on each shard, ``--tables`` channels in each, made in the same order (so
        with the same ids) in every child; this child plays in its own shards' servers only
        (the simulated gateway delivers nothing of the others to its bot)."""
        self.channels, self.members = [], []
        for shard in range(self.args.shard_count):
            guild = env.create_guild(f"Kachuful Club {shard}", shard_id=shard)
            channels = [guild.create_text_channel(f"cards-{i}") for i in range(self.args.tables)]
            members = [
                guild.add_member(env.create_user(f"player{shard}-{i}"))
                for i in range(self.args.tables)
            ]
            if shard in self.shard_ids:
                self.guild_ids.append(guild.id)
                self.channels += channels
                self.members += members

    def _restore_discord(self) -> None:
        backend = self.env.backend
        messages, answers, threads = self.journal.load()
        messages = self.journal.compact(messages, answers, threads)
        last_ms = 0
        for thread in threads.values():
            # An event table's thread, as Discord keeps it (its messages follow).
            if thread.parent_id not in backend.channels or thread.id in backend.channels:
                continue
            backend.reserve_id(thread.id)
            backend.channels[thread.id] = thread
            backend.messages.setdefault(thread.id, {})
            backend.guilds[thread.guild_id].thread_ids.append(thread.id)
            last_ms = max(last_ms, thread.id >> 22)
        for message in messages.values():
            if message.channel_id not in backend.messages:
                continue
            lobby = _lobby_table(message)
            if lobby is not None:
                # Reported again by id: a kill between the simulated Discord's journal and the
                # event line of a new lobby would otherwise hide a lobby that exists.
                emit(ev="lobby_seen", game=lobby, id=message.id)
            backend.reserve_id(message.id)
            backend.messages[message.channel_id][message.id] = message
            answered = answers.get(message.id)
            if answered is not None:
                backend.interactions[answered.id] = answered
                backend.interaction_tokens[answered.token] = answered.id
            last_ms = max(last_ms, message.id >> 22)
        # New ids after the restored ones (history is in id order), as on real Discord.
        now_ms = backend.snowflake() >> 22
        if last_ms >= now_ms:
            backend.advance_clock((last_ms - now_ms + 1) / 1000)

    # ---------------------------------------------------------------- playing

    def _finished_games(self, channel_id: int) -> int:
        [row] = query(
            self.target,
            "SELECT COUNT(*) FROM games WHERE channel_id = :channel AND status = 'finished'",
            {"channel": channel_id},
        )
        return int(row[0])

    async def _play(self, finish: bool) -> None:
        env, tables = self.env, self.bot.tables
        while True:
            acted = False
            for channel, member in zip(self.channels, self.members, strict=True):
                session = tables.open.session_in(channel.id)
                if session is None:
                    # The last run only finishes what is open (and plays one game in a channel
                    # that has none, so that there is always something to check).
                    finished = self._finished_games(channel.id)
                    if (finish and finished > 0) or (
                        self.args.games and finished >= self.args.games
                    ):
                        continue
                    emit(ev="click", area="table", what="start", channel=channel.id)
                    started = await member.slash(
                        channel, "kachuful start", players=3, max_hand=self.args.max_hand
                    )
                    self.answered("table", started)
                    acted = True
                elif session.row.status == "lobby":
                    acted = await self._lobby(session, channel, member) or acted
                elif (
                    session.row.status == "running"
                    and session.game is not None
                    and session.game.turn == HUMAN_SEAT
                ):
                    await self._act(session, channel, member)
                    acted = True
            if self.features is not None:
                acted = await self.features.step(finish) or acted
            if acted:
                continue
            if finish:
                await env.settle()
                if (
                    not tables.open.by_id
                    and not self._unsettled()
                    and (self.features is None or await self.features.finished())
                ):
                    return
                await asyncio.sleep(0.05)
            elif self.args.games and all(
                self._finished_games(c.id) >= self.args.games for c in self.channels
            ):
                await env.settle()
                return
            else:
                await env.settle()
                await asyncio.sleep(0.01)

    def _unsettled(self) -> int:
        """The games of this child's servers not settled yet."""
        marks = ", ".join(f":g{i}" for i in range(len(self.guild_ids)))
        [row] = query(
            self.target,
            f"SELECT COUNT(*) FROM games WHERE settled = 0 AND guild_id IN ({marks})",
            {f"g{i}": guild for i, guild in enumerate(self.guild_ids)},
        )
        return int(row[0])

    # What kill_features drives with.
    emit = staticmethod(emit)

    def answered(self, area: str, result: Any) -> None:
        emit(ev="answered", area=area, ok=bool(result.acknowledged))

    def query_store(self, sql: str, params: dict[str, Any]) -> list[Any]:
        return query(self.target, sql, params)

    def stored(self, channel_id: int, message_id: int | None) -> Any:
        return self._stored(channel_id, message_id)

    custom_ids = staticmethod(_custom_ids)

    async def click(self, member: Any, stored: Any, custom_id: str) -> Any:
        return await self._click(member, stored, custom_id)

    def channel_handle(self, guild: Any, channel_id: int) -> Any:
        from simcord.builders import ChannelHandle

        channel = self.env.backend.channels.get(channel_id)
        return None if channel is None else ChannelHandle(self.env, guild, channel)

    async def act(self, session: Any, channel: Any, member: Any, *, seat: int, area: str) -> None:
        await self._act(session, channel, member, seat=seat, area=area)

    def _stored(self, channel_id: int, message_id: int | None) -> Any:
        if message_id is None:
            return None
        return self.env.backend.messages.get(channel_id, {}).get(message_id)

    def _newest_with(self, channel_id: int, custom_id: str) -> Any:
        messages = self.env.backend.messages.get(channel_id, {})
        for message_id in sorted(messages, reverse=True):
            message = messages[message_id]
            if not message.is_ephemeral and any(c == custom_id for c, _ in _custom_ids(message)):
                return message
        return None

    async def _click(self, member: Any, stored: Any, custom_id: str) -> Any:
        from simcord.results import ResponseMessage

        result = await member.click(ResponseMessage(self.env, stored), custom_id=custom_id)
        if not result.acknowledged:
            emit(ev="unanswered", what=custom_id.split(":")[1])
        return result

    async def _lobby(self, session: Any, channel: Any, member: Any) -> bool:
        row = session.row
        act = "cpu" if len(row.seats) < 3 else "start"
        custom_id = f"kf:l:{act}:{row.id}:{row.version}"
        stored = self._stored(channel.id, row.message_id)
        if stored is None or all(c != custom_id for c, _ in _custom_ids(stored)):
            stored = self._newest_with(channel.id, custom_id)
        if stored is None:
            # The lobby message was posted and not yet redrawn: wait for the publisher.
            return False
        emit(ev="click", area="table", what=act, game=row.id, version=row.version)
        result = await self._click(member, stored, custom_id)
        self.answered("table", result)
        if act == "cpu" and result.ephemeral and result.response is not None:
            await self._choose_level(channel, member, result.response.id)
        return True

    async def _choose_level(self, channel: Any, member: Any, message_id: int) -> None:
        """A bot that asks which computer player to add (a private chooser): the plain one."""
        stored = self._stored(channel.id, message_id)
        choices = [b for b in _buttons(stored) if not b.get("disabled")] if stored else []
        if not choices:
            return
        try:
            from bot.i18n import EN
            from bot.render.words import level_name

            wanted = level_name("heuristic", EN)
        except (ImportError, AttributeError, KeyError, ValueError):
            wanted = None
        chosen = next((b for b in choices if b.get("label") == wanted), choices[0])
        emit(ev="click", area="table", what="level")
        self.answered("table", await self._click(member, stored, chosen["custom_id"]))

    def _hand_action(self, session: Any, member: Any) -> tuple[Any, str] | None:
        """The first enabled bid or card of the member's hand message, at the current move."""
        stored = None
        message_id = self.hands.get(member.id)
        for channel_id in session.channel_ids:
            stored = self._stored(channel_id, message_id)
            if stored is not None:
                break
        if stored is None:
            return None
        from kachuful_core import Phase

        prefix = "kf:b:" if session.game.phase is Phase.BIDDING else "kf:p:"
        for custom_id, disabled in _custom_ids(stored):
            if disabled or not custom_id.startswith(prefix):
                continue
            parts = custom_id.split(":")
            if parts[2] == str(session.row.id) and parts[3] == str(session.row.version):
                return stored, custom_id
        return None

    async def _open_hand(
        self, session: Any, channel: Any, member: Any, area: str = "table"
    ) -> None:
        row = session.row
        stored = self._newest_with(channel.id, f"kf:h:{row.id}")
        emit(ev="click", area=area, what="hand", game=row.id, version=row.version)
        if stored is not None:
            result = await self._click(member, stored, f"kf:h:{row.id}")
        else:
            result = await member.slash(channel, "kachuful hand")
        self.answered(area, result)
        if result.response is not None and result.ephemeral:
            self.hands[member.id] = result.response.id

    async def _act(
        self,
        session: Any,
        channel: Any,
        member: Any,
        *,
        seat: int = HUMAN_SEAT,
        area: str = "table",
    ) -> None:
        action = self._hand_action(session, member)
        if action is None:
            await self._open_hand(session, channel, member, area)
            action = self._hand_action(session, member)
            if action is None:
                return
        stored, custom_id = action
        row = session.row
        game_id, version = row.id, row.version
        kind = "bid" if custom_id.startswith("kf:b:") else "play"
        emit(ev="click", area=area, what=kind, game=game_id, version=version)
        result = await self._click(member, stored, custom_id)
        self.answered(area, result)
        now = self.bot.tables.open.by_id.get(game_id)
        moved = now is None or now.row.version > version
        if moved:
            # Only now: the card is on the table for everyone to see.
            emit(
                ev="moved",
                game=game_id,
                version=version,
                kind=kind,
                arg=int(custom_id.split(":")[4]),
                seat=seat,
            )


def child_main(args: argparse.Namespace) -> None:
    import logging

    # Imported before waiting for "go": the parent starts the next child early for this.
    import simcord  # noqa: F401

    import bot.client  # noqa: F401
    import kachuful_core  # noqa: F401

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    go = sys.stdin.readline().strip() if args.wait_go else "go"
    if go not in ("go", "finish"):
        return  # the parent did not need this child
    asyncio.run(Child(args).run(finish=go == "finish"))


# ============================================================================ the parent


class Run:
    """One child process, its events read by a thread as they come."""

    def __init__(
        self, args: argparse.Namespace, db: Path, log: Any, shard_ids: list[int] | None = None
    ) -> None:
        sharded = ["--shard-count", str(args.shard_count)] if shard_ids else []
        if shard_ids:
            sharded += ["--shard-ids", ",".join(str(i) for i in shard_ids)]
        self.shard_ids = shard_ids or []
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--child",
            "--wait-go",
            "--db",
            str(db),
            "--tables",
            str(args.tables),
            "--max-hand",
            str(args.max_hand),
            "--games",
            str(args.games),
            "--computer-workers",
            str(args.computer_workers),
            f"--features={getattr(args, 'features', '')}",
            f"--event-rounds={getattr(args, 'event_rounds', 2)}",
            *[f"--fault={fault}" for fault in args.fault or ()],
            *sharded,
        ]
        env = dict(os.environ)
        env.pop(DATABASE_URL_ENV, None)
        if getattr(args, "child_tmp", None):
            env["TMPDIR"] = args.child_tmp
        if args.database_url:
            env[DATABASE_URL_ENV] = args.database_url
        self.process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=REPO,
            # Its own session: whatever the child starts (a worker pool) stays in it, wherever
            # it is re-parented, and can be found after the child is dead.
            start_new_session=True,
        )
        self.events: queue.Queue[tuple[float, dict[str, Any] | None]] = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.started = 0  # processes it had started when it was killed
        self.gone_after: float | None = None  # seconds from the kill until they had all ended
        self.timer: threading.Thread | None = None

    def time_the_end(self, killed_at: float, limit: float = 10.0) -> None:
        """Watch (in a thread) for the end of every process of the killed child's session."""

        def watch() -> None:
            while time.monotonic() < killed_at + limit:
                if not session_processes(self.process.pid):
                    self.gone_after = time.monotonic() - killed_at
                    return
                time.sleep(0.01)

        self.timer = threading.Thread(target=watch, daemon=True)
        self.timer.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            self.events.put((time.monotonic(), event))
        self.events.put((time.monotonic(), None))

    def go(self, word: str = "go") -> None:
        """Start the child. One that died meanwhile (killed, or failed at import) closed its
        pipe: nothing to start, and its exit status tells the caller what happened."""
        assert self.process.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.write(f"{word}\n".encode())
            self.process.stdin.flush()

    def kill(self) -> bool:
        """SIGKILL (only this child, by its id); True if it was still running."""
        alive = self.process.poll() is None
        if alive:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()
        return alive

    def drain(self) -> list[dict[str, Any]]:
        """Every event the child wrote (after it is dead). A process the child started holds
        its output too: if one outlives it, the output stays open; given up on after 10 s."""
        self.reader.join(timeout=10)
        events = []
        while True:
            try:
                _, event = self.events.get_nowait()
            except queue.Empty:
                return events
            if event is not None:
                events.append(event)


KILL_AFTER = {"click": "click", "post": "post", "lobby": "lobby_message"}


def kill_point(mode: str, event: dict[str, Any]) -> bool:
    """Whether ``event`` is one of those a kill of ``mode`` counts: for a pad, practice or
    event mode, a click of that kind (for an event also a post of its message, for a pad
    the moment its message is out and its id about to be stored)."""
    if mode in kill_features.AREAS:
        return event.get("area") == mode and event.get("ev") in ("click", "post", "pad_shown")
    return event.get("ev") == KILL_AFTER.get(mode)


def in_flight(events: list[dict[str, Any]]) -> str:
    """What the child was doing when it was killed: the kind of the click it had sent and
    not seen answered, else ``between clicks`` (the bot's own work: publishing, computer
    players, an event's conductor)."""
    pending = None
    for event in events:
        if event.get("ev") == "click":
            pending = event.get("area", "table")
        elif event.get("ev") == "answered":
            pending = None
    return pending or "between clicks"


def supervise(run: Run, plan: tuple[str, float, int], timeout: float) -> list[dict[str, Any]]:
    """Follow the child's events and SIGKILL it as planned; its events, in order."""
    mode, delay, count = plan
    seen: list[dict[str, Any]] = []
    started = time.monotonic()
    deadline = started + delay if mode in ("random", "startup") else started + timeout
    hits = 0
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        try:
            _, event = run.events.get(timeout=remaining)
        except queue.Empty:
            break
        if event is None:
            run.events.put((time.monotonic(), None))
            break
        seen.append(event)
        if kill_point(mode, event):
            hits += 1
            if hits >= count:
                if delay:
                    time.sleep(delay)
                break
    run.started = len(session_processes(run.process.pid)) - 1
    if run.kill():
        run.time_the_end(time.monotonic())
    # Events already taken from the queue come first; drain() returns what remained.
    return seen + run.drain()


def session_processes(session: int) -> list[int]:
    """The running processes of a session (Linux: from /proc; elsewhere none are found)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # ended meanwhile
        # fields[0] is the state (Z: ended, its exit status not yet read), fields[3] the session.
        if fields[0] not in ("Z", "X") and int(fields[3]) == session:
            found.append(int(stat.parent.name))
    return found


def strays(sessions: list[int], wait: float = 5.0) -> list[int]:
    """The processes of the children's sessions still running ``wait`` seconds from now: what a
    child started and left behind (every child is dead by then)."""
    deadline = time.monotonic() + wait
    while True:
        left = [pid for session in sessions for pid in session_processes(session)]
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


def areas(args: argparse.Namespace) -> tuple[str, ...]:
    """The kinds of play besides online tables that the children drive (--features)."""
    chosen = {a.strip() for a in (getattr(args, "features", "") or "").split(",") if a.strip()}
    return tuple(a for a in kill_features.AREAS if a in chosen)


def choose(
    rng: random.Random, max_delay: float, features: tuple[str, ...] = ()
) -> tuple[str, float, int]:
    draw = rng.random()
    if features and draw < 0.3:
        # Right after the n-th click of a score pad, a practice deal or an event (or the
        # n-th post of an event's message): the bot is handling it.
        area = rng.choice(features)
        return (area, rng.choice([0.0, 0.0, rng.uniform(0.0, 0.01)]), rng.randint(1, 6))
    if features:
        draw = rng.random()
    if draw < 0.1:
        # During start-up: the migrations, the restore, the first publishing passes.
        return ("startup", rng.uniform(0.0, 0.3), 0)
    if draw < 0.4:
        return ("random", rng.uniform(0.0, max_delay), 0)
    if draw < 0.75:
        # Right after the child announced its n-th click: the bot is handling it.
        return ("click", rng.choice([0.0, 0.0, rng.uniform(0.0, 0.01)]), rng.randint(1, 8))
    if draw < 0.9:
        # Right after SimCord took the n-th post: before the bot stores it as delivered.
        return ("post", rng.choice([0.0, rng.uniform(0.0, 0.003)]), rng.randint(1, 12))
    # Right after /kachuful start was answered with a lobby: before the bot stores its id.
    return ("lobby", rng.choice([0.0, rng.uniform(0.0, 0.003)]), rng.randint(1, 2))


def parent_main(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    started = time.monotonic()
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="kill_loop_"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "kachuful.sqlite3"
    for stale in workdir.glob("kachuful.sqlite3*"):
        stale.unlink()
    if args.database_url and query(
        args.database_url,
        "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema()",
    ):
        print("kill_loop: --database-url must name an empty database", file=sys.stderr)
        return 2
    log = open(workdir / "children.log", "wb")  # noqa: SIM115
    runs: list[list[dict[str, Any]]] = []
    killed_runs: set[int] = set()
    modes: Counter[str] = Counter()
    flights: Counter[str] = Counter()  # what was in flight at each kill, by kind
    kills = 0
    sessions: list[int] = []  # each child's session: its process id
    started_processes = 0  # seen in a child's session just before it was killed, the child apart
    killed: list[Run] = []
    pending = Run(args, db, log)
    early_exit = None
    for _ in range(args.kills):
        current = pending
        sessions.append(current.process.pid)
        current.go()
        pending = Run(args, db, log)  # imports while the current one plays
        plan = choose(rng, args.max_delay, areas(args))
        events = supervise(current, plan, timeout=args.max_delay * 4 + 5)
        index = len(runs)
        runs.append(events)
        if current.process.returncode == -signal.SIGKILL:
            kills += 1
            flights[in_flight(events)] += 1
            started_processes += max(0, current.started)
            killed.append(current)
            modes[plan[0]] += 1
            killed_runs.add(index)
        elif current.process.returncode != 0:
            early_exit = f"child {index} exited with {current.process.returncode}"
            break
        elif any(e.get("ev") == "done" for e in events):
            break  # every channel played its --games
    # The last child: nobody kills it; it finishes every game and delivers every message.
    sessions.append(pending.process.pid)
    pending.go("finish")
    final_events: list[dict[str, Any]] = []
    try:
        pending.process.wait(timeout=args.finish_timeout)
    except subprocess.TimeoutExpired:
        pending.kill()
        early_exit = early_exit or "the final run did not finish in time"
    final_events = pending.drain()
    runs.append(final_events)
    if pending.process.returncode != 0 and early_exit is None:
        early_exit = f"the final run exited with {pending.process.returncode}"
    if not any(e.get("ev") == "done" for e in final_events) and early_exit is None:
        early_exit = "the final run did not report done"
    log.close()
    left = strays(sessions)
    for pid in left:  # counted: now ended, one by one by its id, rather than left running
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for run in killed:
        if run.timer is not None:
            run.timer.join()
    ends = [run.gone_after for run in killed if run.started > 0]

    # Every event, by run, for a post-mortem (no hidden card: see the child's reports).
    with open(workdir / "events.jsonl", "w", encoding="utf-8") as out:
        for index, events in enumerate(runs):
            for event in events:
                line = {"run": index, "killed": index in killed_runs, **event}
                out.write(json.dumps(line) + "\n")
    summary, violations = check(args.database_url or db, runs, killed_runs)
    world = next((e for run in runs for e in run if e.get("ev") == "world"), {})
    if areas(args) and "pad_channel" in world:
        messages, _, threads = Journal(db.with_name(db.name + ".discord")).load()
        more, found = kill_features.check(
            args.database_url or db, runs, killed_runs, messages, threads, world, query
        )
        summary.update(more)
        violations += found
    if early_exit:
        violations.insert(0, early_exit)
    if left:
        violations.append(f"{len(left)} processes the children started still run after them")
    # What the children logged: an error or a traceback of the bot is a failure.
    logged = (workdir / "children.log").read_text(encoding="utf-8", errors="replace")
    errors = [line for line in logged.splitlines() if line.startswith(("ERROR", "CRITICAL"))]
    tracebacks = logged.count("Traceback (most recent call last)")
    if errors or tracebacks:
        violations.append(
            f"the bot logged {len(errors)} errors, {tracebacks} tracebacks: {errors[:3]}"
        )
    summary["warnings_logged"] = sum(
        1 for line in logged.splitlines() if line.startswith("WARNING")
    )
    summary.update(
        backend="postgresql" if args.database_url else "sqlite",
        kills=kills,
        kill_modes=dict(modes),
        in_flight_at_kill=dict(flights),
        features=list(areas(args)),
        computer_workers=args.computer_workers,
        processes_started_by_killed_children=started_processes,
        stray_processes=len(left),
        # Over the kills that found processes the child had started: the longest time from the
        # SIGKILL until all of them had ended (None: one lasted over 10 s).
        slowest_end_after_kill_s=(
            None if None in ends else round(max((e for e in ends if e), default=0.0), 3)
        ),
        child_runs=len(runs),
        seconds=round(time.monotonic() - started, 1),
        seed=args.seed,
        tables=args.tables,
        max_hand=args.max_hand,
        workdir=str(workdir),
        violations=violations[:100],
        violation_count=len(violations),
        ok=not violations,
    )
    print(json.dumps(summary, indent=2))
    return 0 if not violations else 1


# ---------------------------------------------------------------------------- the checks


def replay(record: dict[str, Any]) -> tuple[Any, list[tuple[int, str, int]], int]:
    """The stored record replayed, with its moves in order: (seat, "bid"|"play", n or card),
    and how many cards were forced.

    A move counter counts changes, not cards: the cards of a deal's forced ending are played in
    the change of the move that left them forced, so they are left out of the list (whose
    index is then the move counter) and counted apart."""
    from kachuful_core import load_game
    from kachuful_core.claims import all_forced
    from kachuful_core.game import Game

    moves: list[tuple[int, str, int]] = []
    forced: list[tuple[int, str, int]] = []  # the cards of the change being replayed
    bid, play = Game.bid, Game.play

    def logged_bid(self: Any, seat: int, n: int, blind: bool = False) -> Any:
        events = bid(self, seat, n, blind)
        moves.append((seat, "bid", n))
        return events

    def logged_play(self: Any, seat: int, card: int) -> Any:
        was_forced = all_forced(self)
        events = play(self, seat, card)
        (forced if was_forced else moves).append((seat, "play", card))
        return events

    Game.bid, Game.play = logged_bid, logged_play  # type: ignore[method-assign]
    try:
        game = load_game(record)
    finally:
        Game.bid, Game.play = bid, play  # type: ignore[method-assign]
    return game, moves, len(forced)


def expected_keys(row: Any, game: Any, posted: set[str]) -> set[str]:
    """The messages the game should have, given those posted (a deal the channel fell behind
    on is folded into fewer messages, and stays so)."""
    from bot.render.channel import View, public_posts

    view = View(lobby_minutes=1, idle_hours=1.0, delivered=frozenset(posted))
    posts = public_posts(row, game, view)
    return {post.key for post in posts if not post.key.startswith("ping.")}


def check(
    db: Path | str, runs: list[list[dict[str, Any]]], killed_runs: set[int]
) -> tuple[dict[str, Any], list[str]]:
    import asyncio as _asyncio

    from bot.results import game_results
    from bot.store.store import Store
    from bot.table.publisher import nonce
    from kachuful_core import Phase

    violations: list[str] = []
    if isinstance(db, Path):
        if not db.exists():
            return {}, ["no database was made"]
        tables = "SELECT 1 FROM sqlite_master WHERE name = 'results'"
        integrity = query(db, "PRAGMA integrity_check")[0][0]
    else:
        # PostgreSQL has no integrity_check; its own checksums and WAL guard its pages.
        tables = "SELECT 1 FROM information_schema.tables WHERE table_name = 'results'"
        integrity = "ok"
    if not query(db, tables):
        return {}, ["the database has no tables"]
    event_games = {
        int(row[0]) for row in query(db, "SELECT game_id FROM event_tables") if row[0] is not None
    }
    result_rows = [
        tuple(row)
        for row in query(
            db, "SELECT game_id, seat, user_id, score, won, bids_exact, bids FROM results"
        )
    ]
    guild_ids = [row[0] for row in query(db, "SELECT DISTINCT guild_id FROM games")]
    if integrity != "ok":
        violations.append(f"integrity_check: {integrity}")

    async def load() -> tuple[list[Any], dict[int, Any]]:
        store = await Store.open(db)
        try:
            rows = await store.games_with_status("lobby", "running", "finished", "stopped")
            boards: dict[Any, Any] = {}
            reads = store.reads  # leaderboards are read on the read-only connection
            channel_of = {}
            for row in rows:
                key = (row.guild_id, row.channel_id)
                channel_of[row.channel_id] = row.guild_id
                if key not in boards:
                    boards[key] = await reads.leaderboard(
                        guild_id=row.guild_id, channel_id=row.channel_id, sort="wins"
                    )
            for guild_id in guild_ids:
                any_channel = next(c for c, g in channel_of.items() if g == guild_id)
                boards[(guild_id, None)] = await reads.leaderboard(
                    guild_id=guild_id, channel_id=any_channel, scope="server", sort="wins"
                )
            return rows, boards
        finally:
            await store.close()

    rows, boards = _asyncio.run(load())
    games = {row.id: row for row in rows}
    results: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for result in result_rows:
        results[result[0]].append(result)

    # ---- the stored games
    replayed: dict[int, tuple[Any, list[tuple[int, str, int]], int]] = {}
    moves_total = 0
    finished_per_channel: Counter[int] = Counter()
    for row in rows:
        if row.status != "finished":
            violations.append(f"game {row.id}: {row.status} at the end (ended={row.ended})")
            continue
        finished_per_channel[row.channel_id] += 1
        if not row.settled:
            violations.append(f"game {row.id}: finished but not settled")
        try:
            game, moves, forced = replay(row.record or {})
        except Exception as error:
            violations.append(f"game {row.id}: the record does not replay ({type(error).__name__})")
            continue
        bids = sum(
            1
            for deal in (row.record or {})["deals"]
            for bid in deal.get("bids") or []
            if bid is not None
        )
        cards = sum(
            len(trick) for deal in (row.record or {})["deals"] for trick in deal.get("tricks") or []
        )
        if not (game.move_count == len(moves) + forced == bids + cards):
            violations.append(
                f"game {row.id}: move count {game.move_count}, replayed {len(moves)}, "
                f"bids + cards {bids + cards}"
            )
        if game.phase is not Phase.FINISHED:
            violations.append(f"game {row.id}: finished in the store, not in its record")
        moves_total += len(moves)
        start_version = row.version - len(moves)
        replayed[row.id] = (game, moves, start_version)
        # results: one row per seat, as the replayed game scores them
        stored = sorted(results.get(row.id, []), key=lambda r: r[1])
        want = [
            (row.id, r.seat, r.user_id, r.score, int(r.won), r.bids_exact, r.bids)
            for r in game_results(row, game)
        ]
        if len(stored) != len(row.seats):
            violations.append(
                f"game {row.id}: {len(stored)} result rows for {len(row.seats)} seats"
            )
        elif [tuple(r) for r in stored] != want:
            violations.append(f"game {row.id}: result rows differ from the replayed game's")
    for game_id in results:
        if game_id not in games or games[game_id].status != "finished":
            violations.append(f"game {game_id}: results without a finished game")

    # leaderboard: each finished game once, for each member seated in it
    played: dict[tuple[int, int | None], Counter[int]] = defaultdict(Counter)
    for row in rows:
        if row.status != "finished":
            continue
        for seat in row.seats:
            if seat.user_id is not None:
                played[(row.guild_id, row.channel_id)][seat.user_id] += 1
                played[(row.guild_id, None)][seat.user_id] += 1
    for (guild_id, channel_id), board in boards.items():
        counted = {r.user_id: r.games for r in board.rows}
        want = dict(played[(guild_id, channel_id)])
        if counted != want:
            violations.append(
                f"leaderboard {guild_id}/{channel_id}: games by player {counted}, want {want}"
            )

    # ---- the posts
    posts: dict[tuple[int, str], list[tuple[int, str | None]]] = defaultdict(list)
    lobby_ids: dict[int, set[int]] = defaultdict(set)
    moved: list[tuple[int, dict[str, Any]]] = []
    clicks: Counter[int] = Counter()
    unanswered = 0
    reported_finished: Counter[int] = Counter()
    for index, events in enumerate(runs):
        for event in events:
            kind = event.get("ev")
            if kind == "post" and event.get("area") in kill_features.AREAS:
                continue  # a score pad's or an event's message: kill_features checks it
            if kind == "post":
                if event.get("game") is None:
                    violations.append(f"run {index}: a post not made by a table's publisher")
                    continue
                posts[(event["game"], event["key"])].append((index, event.get("nonce")))
            elif kind in ("lobby_message", "lobby_seen"):
                lobby_ids[event["game"]].add(int(event["id"]))
            elif kind == "moved":
                moved.append((index, event))
            elif kind == "click" and event.get("what") in ("bid", "play") and "game" in event:
                clicks[event["game"]] += 1
            elif kind == "unanswered":
                unanswered += 1
            elif kind == "finished":
                reported_finished[event["game"]] += 1
    if unanswered:
        violations.append(f"{unanswered} clicks not answered")
    retries: Counter[str] = Counter()
    for (game_id, key), made in sorted(posts.items()):
        row = games.get(game_id)
        if row is None:
            violations.append(f"post {key} of game {game_id}, which is not stored")
            continue
        for _, sent in made:
            if sent != nonce(game_id, key):
                violations.append(f"post {key} of game {game_id}: nonce {sent!r}")
        if len(made) > 1:
            by_run = Counter(index for index, _ in made)
            if max(by_run.values()) > 1:
                violations.append(f"post {key} of game {game_id}: twice in one process {made}")
            elif any(index not in killed_runs for index, _ in made[:-1]):
                violations.append(f"post {key} of game {game_id}: again after a clean exit")
            else:
                retries[key.split(".")[-1] if key.startswith("d") else key.split(".")[0]] += (
                    len(made) - 1
                )
        if game_id not in replayed:
            continue
        game, moves, start_version = replayed[game_id]
        if key.startswith("ping."):
            index = int(key.split(".", 1)[1]) - start_version
            if not (0 <= index < len(moves)) or row.seats[moves[index][0]].user_id is None:
                violations.append(f"post {key} of game {game_id}: no move of the member there")
        elif key not in expected_keys(row, game, {k for g, k in posts if g == game_id}):
            violations.append(f"post {key} of game {game_id}: not a message of that game")
    for game_id, (game, _, _) in replayed.items():
        row = games[game_id]
        posted = {k for g, k in posts if g == game_id}
        for key in sorted(expected_keys(row, game, posted) - {"lobby"}):
            if not posts.get((game_id, key)):
                violations.append(f"game {game_id}: {key} never posted")
        if len(posts.get((game_id, "final"), [])) == 0:
            violations.append(f"game {game_id}: final standings not posted")
        lobbies = len(lobby_ids[game_id])
        # An event's table starts at once: its lobby may never be shown.
        if lobbies != 1 and not (game_id in event_games and lobbies == 0):
            violations.append(
                f"game {game_id}: {lobbies} lobby messages "
                f"({len(posts.get((game_id, 'lobby'), []))} posted by the publisher)"
            )

    # ---- the member's moves: each one seen accepted is in the record, where it was clicked
    seen_versions: Counter[tuple[int, int]] = Counter()
    for _, event in moved:
        game_id, version = event["game"], event["version"]
        seen_versions[(game_id, version)] += 1
        if game_id not in replayed:
            continue
        _, moves, start_version = replayed[game_id]
        at = version - start_version
        want = (event.get("seat", HUMAN_SEAT), event["kind"], event["arg"])
        if not (0 <= at < len(moves)) or moves[at] != want:
            violations.append(
                f"game {game_id}: the member's move at {version} is not in the record"
            )
    for (game_id, version), count in seen_versions.items():
        if count > 1:
            violations.append(f"game {game_id}: move counter {version} accepted {count} times")
    for game_id, (_, moves, _) in replayed.items():
        seats = games[game_id].seats
        human = sum(1 for seat, _, _ in moves if seats[seat].user_id is not None)
        if human > clicks[game_id]:
            violations.append(
                f"game {game_id}: {human} moves of the member, {clicks[game_id]} clicks sent"
            )

    if sum(finished_per_channel.values()) < len({row.channel_id for row in rows}) or not rows:
        violations.append("a channel without a finished game: nothing to check")
    summary = {
        "integrity_check": integrity,
        "games": len(rows),
        "games_finished": sum(finished_per_channel.values()),
        "moves": moves_total,
        "member_clicks": sum(clicks.values()),
        "member_moves_seen_accepted": len(moved),
        "posts_reported": sum(len(v) for v in posts.values()),
        "distinct_posts": len(posts),
        "nonce_retries": sum(retries.values()),
        "nonce_retries_by_key": dict(retries),
        "finished_reports": sum(reported_finished.values()),
    }
    return summary, violations


# ============================================================================ entry point


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tables", type=int, default=3)
    parser.add_argument("--max-hand", type=int, default=2)
    parser.add_argument("--games", type=int, default=0, help="games per channel (0: no limit)")
    parser.add_argument(
        "--max-delay", type=float, default=1.5, help="longest random life of a child (s)"
    )
    parser.add_argument("--finish-timeout", type=float, default=120.0)
    parser.add_argument(
        "--computer-workers",
        type=int,
        default=0,
        help="each child starts a pool of N workers for its computer players (0: none)",
    )
    parser.add_argument("--workdir", default=None)
    parser.add_argument(
        "--features",
        default="pad,practice,event",
        help="also drive a score pad, practice deals and an event ('' for online tables only)",
    )
    parser.add_argument("--event-rounds", type=int, default=2, help="rounds of each event")
    parser.add_argument(
        "--fault",
        choices=["double-final", "no-results", "lost-post", *kill_features.FAULTS],
        action="append",
        help="inject a known bug into the bot, to see the checks fail (repeatable)",
    )
    # A child of benchmarks/shard_loop.py: the shards of all processes, and this one's.
    parser.add_argument("--shard-count", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--shard-ids", default="", help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--wait-go", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--db", default=None, help=argparse.SUPPRESS)
    parser.add_argument(
        "--database-url",
        default=None,
        help="run the bot on this PostgreSQL database (it must be empty) instead of SQLite",
    )
    args = parser.parse_args()
    if args.child:
        child_main(args)
        return 0
    # The children's temporary folder: short (a computer worker's forkserver makes a unix
    # socket there, at most 107 bytes) and removed at the end, with what the forkserver of a
    # SIGKILLed child leaves in it.
    short = "/tmp" if os.path.isdir("/tmp") else None
    with tempfile.TemporaryDirectory(prefix="kachuful-kill-", dir=short) as scratch:
        args.child_tmp = scratch
        return parent_main(args)


if __name__ == "__main__":
    sys.exit(main())
