"""Bot load: many simultaneous tables through SimCord, with click-to-answer latency.

Reports interactions answered per second, the time from a click to the bot's answer (median,
p95, p99, max), and the bot's memory per running table.

The issue's targets: 99th percentile under 100 ms with 100 tables running; under 200 KB of
memory per table.

What runs
---------
One SimCord environment (the real discord.py and the real bot, a simulated Discord in the
same process), one guild, one channel per table. Each table is opened the way players do it:
``/kachuful start`` by the host, a Join click per other human, "Add computer player" for a
computer seat, "Start (host)". By default every table has 3 humans; ``--computer-share F``
gives that share of the tables 2 humans + 1 computer. The store is a SQLite file in a temporary
folder, computer players act at once (delay 0) and the turn clock is an hour, so no time-out
fires. Game seeds and every choice the players make are fixed by ``--seed``: each table plays
the same game on every run, whatever the interleaving.

Then all tables play at once. Each table has a driver coroutine (a "table agent"), all of them
running concurrently on the bot's event loop. Each agent first waits a random part of one
think time (the tables' first players do not all click in the same millisecond), then:

1. wait until the table is ready for a human: the seat to act is a human and the table's
   lock is free (read from the bot's session, as the tests in tests/bot do to know whose
   turn it is), and that player's open hand message has been redrawn for the table's
   current move counter (the bot redraws open hand messages after every commit; a player
   clicks what their hand shows, whatever the public messages show by then);
2. if that player has no open hand message, or it shows no enabled bid or card, click "Your
   hand" on the table's newest public message that carries it and wait for the answer;
3. think, with the hand in view: sleep ``--think-ms`` on average (uniform 0.5x-1.5x, seeded;
   0 = click at once); ``--burst-start`` thinks before step 2 instead, so "Your hand" and the
   bid come back to back, and starts every table at the same instant: the worst case;
4. click a random enabled bid or card on the private hand message and wait for the answer;
5. repeat until the table has made ``--moves`` moves (bids and cards, computers' included).

Clicks are sent as SimCord sends them (the same INTERACTION_CREATE payload as
``MemberActor.click``: SimCord's own builders), but without SimCord's "settle" after each one:
SimCord allows one operation at a time and waits for the whole bot to go quiet before a click
returns, which would serialise the tables. So up to one click per table is in flight at once.

Click-to-answer latency
-----------------------
From just before the INTERACTION_CREATE is handed to the bot's gateway parser, to the moment
the bot's interaction callback (``POST /interactions/{id}/{token}/callback``: the private hand
message, or its in-place update after a bid or card) reaches SimCord's REST router: the time
the player waits for the bot's answer to their click. ``time.perf_counter`` (real time; SimCord
only virtualises ``time.monotonic`` and asyncio timers inside the bot). It includes the
bot's parsing of the interaction, waiting for the table lock, the engine, the SQLite commit
(aiosqlite thread), rendering, and any time the event loop spends on the other tables' work,
including SimCord's (the simulated Discord runs in the same process and on the same core:
this makes the figures pessimistic), such as the tables' publishers bringing the public
messages and the hand messages up to date after each commit (in their own tasks, after the
answer). New messages are not paced by default (``--post-limit 5`` paces them at Discord's
5 per 5 s per channel, as the bot does in production; in SimCord a paced post waits on a
real-time timer that its settling cannot account for, and at one click a second per table a
table makes more than one new message a second, its turn pings). Every interaction of the
timed phase must be answered.

``--think-ms`` sets the offered load: with 100 tables and 1000 ms, about 100 clicks per second
are offered (a human takes several seconds per move: this is a hard load). ``--think-ms 0``
saturates the bot: every table always has a click waiting, so latency is queueing (about
tables / throughput) and interactions per second is the bot's capacity.

Memory per running table
------------------------
``memory_per_table_kb`` is the bot's Python heap: the objects reachable from the bot object
and from the tasks SimCord saw the bot create (discord.py keeps some objects only in a task),
without entering SimCord's objects, modules, classes, functions or the event loop; their
sizes (``sys.getsizeof``) summed with the N tables running after the moves, minus the same
sum before any table was opened, divided by N. It is split into:

- ``sessions``: the TableSession graphs (stored row, engine game, the tokens of open hand
  messages, the publishers with what they delivered, driver task), not entering what is
  counted elsewhere; ``session_kb`` is one table's (the mean);
- ``message_cache``: discord.py's message cache (``max_messages``; the bot turns it off, and
  ``--max-messages N`` is a what-if);
- ``ephemeral_views``: views of private hand messages that discord.py would keep (with a
  task) for 15 minutes (the bot sends its buttons as plain components, so none);
- ``guild_cache``: members and channels discord.py caches;
- ``other``: the rest (may be slightly negative: objects freed since the start).

Also reported: GC-tracked objects per table (each full garbage collection visits them all),
and the process RSS growth per table, which includes the simulated Discord and overstates the
bot. ``--tracemalloc`` also traces every allocation from before the tables to the end and
splits what is still allocated by owner (the innermost frame in simcord/, benchmarks/, or
elsewhere = the bot): a cross-check, at the price of a much slower run (ignore its latency).

A game's memory grows as it goes on (the engine keeps every deal for the record):
``--warmup-moves W`` first plays W moves per table at full speed, unmeasured, to measure late
in a game (a 3-player game is 1,014 moves).

Keeping SimCord's costs out of the bot's figures
------------------------------------------------
SimCord runs in the same process. Its work on each request (validating and copying bodies,
building gateway payloads) stays in the measured latency (``--profile`` shows how much), but
what only happens because the tables run without SimCord's settles is undone:

- the request log and transcript keep nothing (a deep copy of every body, for ever);
- SimCord's list of the bot's pending callbacks is pruned of cancelled timers (one turn clock
  per move), their wall-clock fallbacks are cancelled (they would stay in the event loop for
  an hour), and a callback that ran is removed by identity from the end of the list instead
  of by a dataclass comparison from the start (which cost time proportional to the number of
  tables for every callback the bot runs);
- the simulated Discord forgets messages nobody will click again and answered interactions
  whose token the bot no longer holds (``--no-prune`` keeps them): its growing heap made each
  full garbage collection, which pauses the whole process, grow from 50 to 400 ms over a run.

- SimCord deep-copies every body it validates (``copy.deepcopy``, a third of the process's
  time in a profile); the run gives it ``json_copy``, the same copy for JSON data (dicts,
  lists and scalars; anything else still goes to ``copy.deepcopy``) at a fraction of the
  cost. ``--stock-copy`` keeps SimCord's own, for a side-by-side figure.

Garbage collections during the play are timed and reported.

REST calls per move are counted by kind: channel messages (posts, edits and deletes, which
count against Discord's global rate limit of 50 requests per second per bot) and interaction
webhooks (answers and hand redraws, which do not); ``rest_calls_per_move`` is all of them
over the moves of the timed phase. ``public_messages`` counts the table's public messages:
posted per move, and left in the channel per table at the end (a spent turn ping is deleted).
SimCord does not model rate limits; the bot paces its own new messages.

    .venv/bin/python benchmarks/bot_load.py                   # 100 tables x 60 moves
    .venv/bin/python benchmarks/bot_load.py --think-ms 0      # capacity (saturated)
    .venv/bin/python benchmarks/bot_load.py --quick --json    # smoke run, a few seconds
    .venv/bin/python benchmarks/bot_load.py --profile /tmp/load.prof   # cProfile the play
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import gc
import hashlib
import itertools
import json
import logging
import os
import platform
import random
import re
import signal
import statistics
import sys
import tempfile
import time
import types
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import discord  # noqa: E402
import simcord  # noqa: E402
from simcord import actors as _sc_actors  # noqa: E402
from simcord import enums as _sc_enums  # noqa: E402
from simcord import interactions as _sc_interactions  # noqa: E402
from simcord.actors import _find_component  # noqa: E402
from simcord.backend import serializers as _sc_serializers  # noqa: E402
from simcord.enums import ComponentType, InteractionType  # noqa: E402
from simcord.http import router as _sc_router  # noqa: E402

from bot.client import KachufulBot  # noqa: E402
from bot.config import Settings  # noqa: E402

FAKE_TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
ACTION_PREFIXES = ("kf:b:", "kf:p:", "kf:u:")
HAND_PREFIX = "kf:h:"
ANSWER_TIMEOUT = 30.0  # seconds of real time before a click counts as unanswered
MAX_REFUSED = 20  # refused clicks in a row before a table is declared stuck
END_TIMEOUT = 300.0  # seconds for every table to go after its /kachuful stop
STOP_AGAIN = 30.0  # seconds after which a table still open is stopped again
READY_POLL = 0.05  # seconds: re-check a table's readiness at least this often
KEEP_MESSAGES = 8  # latest messages kept per channel in the simulated Discord (see --no-prune)
EPHEMERAL = 64  # message flag
CPU_NOTE = (
    "process CPU time (time.process_time) over the timed phase divided by its interactions; "
    "the simulated Discord runs in the same process, so it includes SimCord's work"
)
CALLBACK_PATH = re.compile(r"^/interactions/(\d+)/[^/]+/callback$")


# ---- configuration ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Config:
    tables: int = 100
    moves: int = 60
    warmup_moves: int = 0  # moves each table makes first, at full speed, not measured
    think_ms: float = 1000.0
    computer_share: float = 0.0
    computer_level: str = "heuristic"  # the level of those computer seats (LEVELS)
    # New messages per channel in 5 s. The bot paces them at Discord's 5; here the default is
    # no pacing: SimCord has no rate limit to model, and a paced post's wait is a timer it
    # fires in real time, which its settling cannot account for (the run then fails to settle).
    post_limit: int = 10_000
    max_hand: int | None = None  # None: the bot's default (52 // players)
    max_messages: int | None = -1  # discord.py's message cache; -1: the bot's setting (off)
    seed: int = 1
    tracemalloc: bool = False
    prune: bool = True  # forget old messages of the simulated Discord during the run
    fast_copy: bool = True  # SimCord copies bodies with json_copy instead of copy.deepcopy
    freeze_gc: bool = True  # as bot/__main__.py does after start-up
    profile: str | None = None
    samples: str | None = None  # CSV of every timed click
    burst_start: bool = False  # every table's first click at once; Your hand, then at once a bid
    quick: bool = False
    # Scale-out (benchmarks/scale_out.py): the store at this PostgreSQL URL instead of a SQLite
    # file; ``processes`` bot processes share the ``tables`` (in total), this one plays guild
    # ``process_index``'s; with ``barrier`` (a folder), the timed phase starts once every
    # process has its tables open, and what follows it waits until every process has played.
    database_url: str | None = None
    process_index: int = 0
    processes: int = 1
    barrier: str | None = None


# ---- SimCord plumbing ------------------------------------------------------------------------


class _Discard(list):  # type: ignore[type-arg]
    """Stands in for SimCord's request log and transcript: keeps nothing (they hold a deep
    copy of every body for ever, which would grow the process and slow the run)."""

    def append(self, item: Any) -> None:
        pass


class AnswerClock:
    """Timestamps the bot's interaction callbacks as they reach SimCord's REST router, and
    counts every REST call by kind."""

    def __init__(self) -> None:
        self.waiting: dict[int, asyncio.Future[float]] = {}
        self.answered_at: dict[int, float] = {}
        self.calls: Counter[str] = Counter()
        self._original: Callable[..., Any] | None = None
        # Who to wake when the bot calls Discord about a table: its channel's agent (an
        # interaction's token or webhook path names no channel: the token is mapped to one).
        self.agents: dict[int, TableAgent] = {}
        self.token_channel: dict[str, int] = {}

    def install(self) -> None:
        self._original = _sc_router.dispatch
        original = self._original

        def timed_dispatch(backend: Any, method: str, path: str, *args: Any, **kwargs: Any) -> Any:
            now = time.perf_counter()
            self.calls[_kind(method, path)] += 1
            match = CALLBACK_PATH.match(path)
            if match is not None:
                interaction_id = int(match.group(1))
                future = self.waiting.pop(interaction_id, None)
                if future is None:
                    self.answered_at.setdefault(interaction_id, now)
                elif not future.done():
                    future.set_result(now)
            try:
                return original(backend, method, path, *args, **kwargs)
            finally:
                self._wake(path)

        _sc_router.dispatch = timed_dispatch  # type: ignore[assignment]

        # The router deep-copies every body for its request log only (the log is discarded).
        self._copy_module = _sc_router.copy
        _sc_router.copy = types.SimpleNamespace(deepcopy=lambda value, memo=None: value)  # type: ignore[assignment]

    def _wake(self, path: str) -> None:
        parts = path.split("/", 4)  # "", "channels", id, ... or "", kind, id/app, token, ...
        if len(parts) < 3:
            return
        if parts[1] == "channels":
            channel_id = int(parts[2]) if parts[2].isdigit() else None
        elif len(parts) > 3:
            channel_id = self.token_channel.get(parts[3])
        else:
            channel_id = None
        agent = self.agents.get(channel_id) if channel_id is not None else None
        if agent is not None:
            agent.wake()

    def uninstall(self) -> None:
        if self._original is not None:
            _sc_router.dispatch = self._original  # type: ignore[assignment]
            _sc_router.copy = self._copy_module  # type: ignore[assignment]
            self._original = None


class _CallbackList(list):  # type: ignore[type-arg]
    """SimCord's list of tracked callbacks, with ``remove`` by identity, newest first.

    A removed record is also unlinked from its handle: record -> handle -> SimCord's wrapper
    -> record is a reference cycle per callback the bot schedules (about ten objects), which
    only the garbage collector would free; SimCord no longer reads a record it removed.
    """

    def remove(self, item: Any) -> None:
        for index in range(len(self) - 1, -1, -1):
            if self[index] is item:
                del self[index]
                item.handle = None
                item.real_handle = None
                return
        raise ValueError("not in list")


def _kind(method: str, path: str) -> str:
    if path.startswith("/interactions/"):
        return "interaction callback"
    if path.startswith("/webhooks/"):
        return f"interaction webhook {method}"
    if path.startswith("/channels/") and "/messages" in path:
        return f"channel message {method}"
    return f"other {method}"


def emit_click(
    env: simcord.Env,
    member: simcord.MemberActor,
    channel_id: int,
    message_id: int,
    custom_id: str,
    token_channel: dict[str, int] | None = None,
) -> tuple[Any, float]:
    """Send the INTERACTION_CREATE of a click on an enabled button, as ``MemberActor.click``
    builds it, without settling; returns SimCord's interaction record and the send time."""
    backend = env.backend
    stored = backend.get_message(channel_id, message_id)
    button = _find_component(
        stored.components, types=(ComponentType.BUTTON,), custom_id=custom_id, label=None
    )
    data: dict[str, Any] = {
        "custom_id": button["custom_id"],
        "component_type": ComponentType.BUTTON,
    }
    if button.get("id") is not None:
        data["id"] = button["id"]
    record, payload = _sc_interactions.base_payload(
        backend,
        type=InteractionType.MESSAGE_COMPONENT,
        channel_id=channel_id,
        guild_id=member.guild.id,
        user_id=member.id,
        data=data,
    )
    payload["message"] = dict(_sc_serializers.message_payload(backend, stored))
    record.source_message_id = stored.id
    env._notify_dispatch_observers(record)
    if token_channel is not None:
        token_channel[record.token] = channel_id
    sent = time.perf_counter()
    backend.emit("INTERACTION_CREATE", payload)
    return record, sent


def emit_slash(env: simcord.Env, member: simcord.MemberActor, channel: Any, name: str) -> Any:
    """Send a slash command without options as ``MemberActor.slash`` builds it, without
    settling (SimCord's settle looks at every task of the bot: one per command, with hundreds
    of tables running, is quadratic)."""
    parts = name.split()
    root = _sc_actors._resolve_visible_command(
        member, channel.id, parts[0], _sc_enums.AppCommandType.CHAT_INPUT
    )
    _leaf, nesting = _sc_interactions.walk_to_subcommand(root, parts[1:])
    data: dict[str, Any] = {
        "id": root["id"],
        "name": root["name"],
        "type": root.get("type", _sc_enums.AppCommandType.CHAT_INPUT),
        "options": _sc_interactions.nest_options(root, nesting, []),
    }
    if root.get("guild_id"):
        data["guild_id"] = root["guild_id"]
    record, payload = _sc_interactions.base_payload(
        env.backend,
        type=InteractionType.APPLICATION_COMMAND,
        channel_id=channel.id,
        guild_id=member.guild.id,
        user_id=member.id,
        data=data,
    )
    env._notify_dispatch_observers(record)
    env.backend.emit("INTERACTION_CREATE", payload)
    return record


def _buttons(stored: Any) -> Iterable[dict[str, Any]]:
    for row in stored.components or ():
        yield from row.get("components", ())


# ---- one table -------------------------------------------------------------------------------


@dataclass
class Sample:
    kind: str  # "hand", "bid", "play"
    seconds: float
    table: int
    sent: float  # perf_counter when the click was sent


@dataclass
class Stats:
    samples: list[Sample] = field(default_factory=list)
    sent: int = 0
    unanswered: int = 0
    refused: int = 0  # a bid / card click that moved nothing (stale, not your turn, ...)
    reopened: int = 0  # "Your hand" clicked again because the open hand was not redrawn
    stuck: list[str] = field(default_factory=list)  # tables that waited 30 s: what for


class Napper:
    """A table's players wait for the bot: ``_nap`` until the bot next calls Discord about
    the table (``wake``), or READY_POLL at most. Polling every table on a short timer was a
    third of the process (the players' cost, not the bot's), and a table's state changes only
    with the bot's work on it."""

    _waiter: asyncio.Future[None] | None = None

    def wake(self) -> None:
        """The bot called Discord about this table: its state may have changed."""
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def _nap(self) -> None:
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = loop.call_later(READY_POLL, self.wake)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None


class TableAgent(Napper):
    """Plays one table: the human to act clicks, until the table has made ``moves`` moves."""

    def __init__(
        self,
        bench: LoadBench,
        index: int,
        channel: simcord.ChannelHandle,
        members: list[simcord.MemberActor],
        table_id: int,
    ) -> None:
        self.bench = bench
        self.index = index
        self.channel = channel
        self.members = {m.id: m for m in members}
        self.table_id = table_id
        self.rng = random.Random(f"{bench.config.seed}/table/{index}")
        self.hand_ids: dict[int, int] = {}  # member id -> their latest hand message
        self.start_moves = 0
        self.target = bench.config.moves
        self.moves = 0
        bench.clock.agents[channel.id] = self

    @property
    def session(self) -> Any:
        return self.bench.bot.tables.open.by_id.get(self.table_id)

    def _state(self) -> str | None:
        """'done', 'act' (a human may click now), or None (the bot is busy with the table)."""
        session = self.session
        if session is None or session.row.status != "running" or session.game is None:
            return "done"
        game = session.game
        self.moves = game.move_count - self.start_moves
        if self.moves >= self.target:
            return "done"
        if session.lock.locked():
            return None
        seat = game.turn
        if seat is None or session.row.seats[seat].computer_plays:
            return None
        user_id = session.row.seats[seat].user_id
        if user_id in session.hands and self._hand_version(user_id) != session.row.version:
            return None  # the bot is still redrawing that player's hand message
        return "act"

    def _why(self) -> str:
        """What the table is waiting for (no card or seed in it)."""
        session = self.session
        seat = session.game.turn
        user_id = session.row.seats[seat].user_id if seat is not None else None
        handle = session.hands.get(user_id)
        task = session.hand_publisher._task if session.hand_publisher else None
        return (
            f"locked={session.lock.locked()} turn={seat} version={session.row.version} "
            f"hand_version={self._hand_version(user_id) if user_id else None} "
            f"open_hand={handle is not None} due={handle.due if handle else None} "
            f"hand_task={'none' if task is None else ('done' if task.done() else 'running')}"
        )

    def _hand_version(self, member_id: int) -> int | None:
        """The move counter the member's latest hand message was drawn at (its buttons')."""
        message_id = self.hand_ids.get(member_id)
        if message_id is None:
            return None
        stored = self.bench.env.backend.get_message(self.channel.id, message_id)
        versions = [
            int(str(b["custom_id"]).split(":")[3])
            for b in _buttons(stored)
            if str(b.get("custom_id", "")).startswith(ACTION_PREFIXES)
        ]
        return max(versions) if versions else None

    async def _ready(self) -> str:
        started = time.perf_counter()
        while True:
            state = self._state()
            if state is not None:
                return state
            if time.perf_counter() - started > ANSWER_TIMEOUT:
                # Reported (and the run fails), but the other tables play on to be measured.
                self.bench.stats.stuck.append(f"table {self.index}: {self._why()}")
                return "done"
            await self._nap()

    async def _click(self, member: simcord.MemberActor, message_id: int, custom_id: str) -> Any:
        bench = self.bench
        loop = asyncio.get_running_loop()
        future: asyncio.Future[float] = loop.create_future()
        record, sent = emit_click(
            bench.env, member, self.channel.id, message_id, custom_id, bench.clock.token_channel
        )
        bench.stats.sent += 1
        # The bot answers from a task, so not before this coroutine yields; just in case:
        answered = bench.clock.answered_at.pop(record.id, None)
        if answered is None:
            bench.clock.waiting[record.id] = future
            try:
                answered = await asyncio.wait_for(future, ANSWER_TIMEOUT)
            except TimeoutError:
                bench.clock.waiting.pop(record.id, None)
                bench.stats.unanswered += 1
                return None
        kind = {"kf:h": "hand", "kf:b": "bid", "kf:p": "play", "kf:u": "play"}.get(
            custom_id[:4], custom_id
        )
        bench.stats.samples.append(Sample(kind, answered - sent, self.index, sent))
        return record

    def _enabled_actions(self, member_id: int) -> list[str]:
        message_id = self.hand_ids.get(member_id)
        if message_id is None:
            return []
        stored = self.bench.env.backend.get_message(self.channel.id, message_id)
        return [
            b["custom_id"]
            for b in _buttons(stored)
            if not b.get("disabled") and str(b.get("custom_id", "")).startswith(ACTION_PREFIXES)
        ]

    async def _latest_hand_button(self) -> int:
        """The table's newest public message with a "Your hand" button (only the newest live
        message carries it; while the publisher moves it to a new message, none may)."""
        backend = self.bench.env.backend
        wanted = f"{HAND_PREFIX}{self.table_id}"
        started = time.perf_counter()
        while time.perf_counter() - started <= ANSWER_TIMEOUT:
            for message in reversed(backend.messages.get(self.channel.id, {}).values()):
                if message.flags & EPHEMERAL:
                    continue
                if any(b.get("custom_id") == wanted for b in _buttons(message)):
                    return int(message.id)
            await self._nap()
        raise AssertionError(f"table {self.index}: no public message with a Your hand button")

    async def play(self, moves: int, think_ms: float) -> None:
        session = self.session
        if session is None or session.game is None:
            return
        self.start_moves = session.game.move_count
        self.target = moves
        think = think_ms / 1000
        refused = 0
        burst = self.bench.config.burst_start
        if think > 0 and not burst:
            # Tables were not all started in the same millisecond: each table's first player
            # notices within one think time.
            await asyncio.sleep(think * self.rng.random())
        while await self._ready() == "act":
            session = self.session
            member = self.members[session.row.seats[session.game.turn].user_id]
            if think > 0 and burst:  # the worst case: think before seeing the hand
                await asyncio.sleep(think * (0.5 + self.rng.random()))
            choices = self._enabled_actions(member.id)
            if not choices:
                if member.id in self.hand_ids:
                    self.bench.stats.reopened += 1
                record = await self._click(
                    member, await self._latest_hand_button(), f"{HAND_PREFIX}{self.table_id}"
                )
                if record is None or record.message_id is None:
                    raise AssertionError(f"table {self.index}: Your hand was not answered")
                self.hand_ids[member.id] = record.message_id
                choices = self._enabled_actions(member.id)
                if not choices:
                    raise AssertionError(
                        f"table {self.index}: {member.name}'s hand has no enabled bid or card"
                    )
            if think > 0 and not burst:  # a player decides with their cards in front of them
                await asyncio.sleep(think * (0.5 + self.rng.random()))
            choice = self.rng.choice(sorted(choices))
            version = int(choice.split(":")[3])
            record = await self._click(member, self.hand_ids[member.id], choice)
            if record is None:
                continue
            session = self.session
            if session is not None and session.row.version <= version:
                self.bench.stats.refused += 1
                refused += 1
                if refused > MAX_REFUSED:
                    raise AssertionError(f"table {self.index}: the bot refuses every click")
                await asyncio.sleep(READY_POLL)
            else:
                refused = 0


# ---- scale-out: several processes, one database ----------------------------------------------

BARRIER_TIMEOUT = 900.0  # seconds to wait for the other processes at a barrier
BARRIER_POLL = 0.005  # seconds


def guild_tables(config: Config, guild: int) -> range:
    """The indices of guild ``guild``'s tables: the ``tables`` split into ``processes``
    contiguous parts, as even as can be."""
    total, parts = config.tables, config.processes
    return range(guild * total // parts, (guild + 1) * total // parts)


def layout_digest(guilds: list[Any], channels: list[Any]) -> str:
    """A digest of the guild and channel ids in creation order: equal in every process of a
    scale-out run (checked by benchmarks/scale_out.py), or their tables could collide."""
    ids = [g.id for g in guilds] + [c.id for c in channels]
    return hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()[:16]


async def barrier(config: Config, name: str) -> float:
    """Say this process reached ``name`` (a file in the barrier folder) and wait until every
    process has; returns the wall-clock time (``time.time``) it waited until. Without a
    barrier folder (one process on its own), at once."""
    if config.barrier is None:
        return time.time()
    folder = Path(config.barrier)
    mine = folder / f"{name}-{config.process_index}"
    mine.write_text(str(os.getpid()), encoding="ascii")
    wanted = [folder / f"{name}-{i}" for i in range(config.processes)]
    deadline = time.perf_counter() + BARRIER_TIMEOUT
    while not all(path.exists() for path in wanted):
        if time.perf_counter() > deadline:
            raise TimeoutError(f"barrier {name!r}: not every process arrived")
        await asyncio.sleep(BARRIER_POLL)
    return time.time()


def mark(config: Config, name: str) -> None:
    """Say this process reached ``name`` without waiting for the others (for an observer:
    benchmarks/scale_out.py reads PostgreSQL's CPU time when every process has stopped)."""
    if config.barrier is not None:
        path = Path(config.barrier) / f"{name}-{config.process_index}"
        path.write_text(str(os.getpid()), encoding="ascii")


# ---- the benchmark ---------------------------------------------------------------------------


class LoadBench:
    def __init__(self, config: Config, folder: Path) -> None:
        self.config = config
        counter = itertools.count()

        # Each process of a scale-out run deals its own games (one process: as before).
        prefix = f"bot_load/{config.seed}" + (
            f"/process-{config.process_index}" if config.processes > 1 else ""
        )

        def new_seed() -> str:
            text = f"{prefix}/{next(counter)}"
            return hashlib.sha256(text.encode()).hexdigest()

        self.settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            discord_token=FAKE_TOKEN,
            db_path=folder / "kachuful.sqlite3",
            database_url=config.database_url,  # None: the SQLite file above
            sync_global=True,
            bot_delay_seconds=0,  # computer players act at once
            turn_seconds=3600,  # the longest turn clock: no time-out during the run
            lobby_timeout_seconds=7 * 24 * 3600,
        )
        options: dict[str, Any] = {}
        if config.max_messages != -1:  # a what-if: the bot passes no max_messages
            options["max_messages"] = config.max_messages
        options["post_limit"] = config.post_limit
        # Watchers' hands are redrawn at every move (the pessimistic case): the bot's own pause
        # between a watcher's redraws is a timer that SimCord fires in real time by settling
        # the whole bot, which a run of unsettled tables never does.
        options["hand_delay"] = 0.0
        self.bot = KachufulBot(self.settings, new_seed=new_seed, **options)
        self.bot.freeze_gc_after_setup = config.freeze_gc  # as the entry point does
        self.env = simcord.Env(self.bot, settle_timeout=30.0)
        self.clock = AnswerClock()
        self.stats = Stats()
        self.setup_stats = {"interactions": 0, "answered": 0}
        self.agents: list[TableAgent] = []
        self.layout = ""

    async def start(self) -> None:
        backend = self.env.backend
        backend.http_requests = _Discard()
        backend.transcript = _Discard()
        self.clock.install()
        await self.env.start()

    async def close(self) -> None:
        try:
            await self.env.shutdown()
        finally:
            self.clock.uninstall()
            store = getattr(self.bot, "store", None)
            if store is not None:
                await store.close()

    async def _add_computer(self, host: Any, channel: Any, lobby: Any) -> None:
        """ "Add computer player", then the level on the private chooser it answers with."""
        from bot.i18n import EN
        from bot.render.words import level_name

        offered = await self._setup_click(
            host, await host.click(lobby, label="Add computer player")
        )
        chooser = next(m for m in channel.history(viewer=host) if m.id == offered.response.id)
        label = level_name(self.config.computer_level, EN)
        await self._setup_click(host, await host.click(chooser, label=label))

    async def _setup_click(self, member: simcord.MemberActor, result: Any) -> Any:
        self.setup_stats["interactions"] += 1
        self.setup_stats["answered"] += bool(result.acknowledged)
        return result

    async def open_tables(self) -> None:
        """Open this process's tables. Every process of a scale-out run first creates the same
        guilds with the same channels in the same order (SimCord's ids are deterministic, so
        they agree across processes and no two processes' tables share a channel or a guild
        in the database), then opens the tables of its own guild only."""
        config = self.config
        env = self.env
        if config.processes == 1:
            guilds = [env.create_guild("Kachuful load")]
        else:
            guilds = [env.create_guild(f"Kachuful load {g}") for g in range(config.processes)]
        channels = [
            guilds[g].create_text_channel(f"table-{index}")
            for g in range(config.processes)
            for index in guild_tables(config, g)
        ]
        self.layout = layout_digest(guilds, channels)
        guild = guilds[config.process_index]
        rng = random.Random(f"{config.seed}/mix")
        with_computer = set(
            rng.sample(range(config.tables), round(config.tables * config.computer_share))
        )
        options: dict[str, Any] = {"players": 3}
        if config.max_hand is not None:
            options["max_hand"] = config.max_hand
        mine = guild_tables(config, config.process_index)
        for index in mine:
            channel = channels[index]
            humans = 2 if index in with_computer else 3
            members = [guild.add_member(env.create_user(f"t{index}p{j}")) for j in range(humans)]
            host = members[0]
            started = await self._setup_click(
                host, await host.slash(channel, "kachuful start", **options)
            )
            lobby = started.response
            assert lobby is not None and not lobby.ephemeral, "the lobby was not posted"
            for member in members[1:]:
                await self._setup_click(member, await member.click(lobby, label="Join"))
            if humans < 3:
                await self._add_computer(host, channel, lobby)
            await self._setup_click(host, await host.click(lobby, label="Start (host)"))
            session = self.bot.tables.open.session_in(channel.id)
            assert session is not None and session.row.status == "running", "table not started"
            agent = TableAgent(self, index, channel, members, session.row.id)
            agent.start_moves = session.game.move_count
            self.agents.append(agent)

    async def end_all(self, before: Heap) -> dict[str, Any]:
        return await _end_all(self, before)

    async def play(self, moves: int, think_ms: float) -> None:
        janitor = asyncio.create_task(self._prune_timers())
        try:
            await asyncio.gather(*(agent.play(moves, think_ms) for agent in self.agents))
        finally:
            janitor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await janitor

    async def _prune_timers(self) -> None:
        """Undo SimCord costs that only exist because the tables run unsettled (each settle
        prunes SimCord's bookkeeping), so that they are not charged to the bot:

        - drop the records of cancelled timers from SimCord's list of the bot's callbacks
          (the bot cancels a turn clock at every move) and cancel their wall-clock fallback
          timers, which SimCord leaves in the event loop (a no-op when they fire, but one
          more per move held for an hour);
        - remove a callback that ran from that list by identity, newest first (SimCord's
          ``list.remove`` compares dataclasses from the start: with a timer per table, every
          callback the bot runs would cost time proportional to the number of tables);
        - forget old messages of the simulated Discord (see :meth:`_prune_messages`).
        """
        work = self.env._work
        while True:
            live = _CallbackList()
            for record in work.callbacks:
                if record.handle is not None and record.handle.cancelled():
                    if record.real_handle is not None:
                        record.real_handle.cancel()
                    record.handle = record.real_handle = None  # see _CallbackList
                    continue
                live.append(record)
            work.callbacks = live
            if self.config.prune:
                self._prune_messages()
            await asyncio.sleep(0.1)

    def _prune_messages(self) -> None:
        """SimCord keeps every message of every channel (Discord's storage, not the bot's
        memory); its growing heap made Python's full garbage collections, which pause the
        whole process, grow from 50 to 400 ms over a run, charged to the bot's latency.
        Messages nobody will click any more are dropped quietly (no event: as if scrolled
        away): all but the last few messages of each channel (the newest live message, the
        only one with "Your hand", is among them), except the lobby and each player's latest
        hand message; and the records of answered interactions whose token the bot no longer
        holds for redrawing a hand message."""
        messages = self.env.backend.messages
        for agent in self.agents:
            stored = messages.get(agent.channel.id)
            if not stored or len(stored) <= KEEP_MESSAGES:
                continue
            session = agent.session
            keep = set(agent.hand_ids.values())
            if session is not None and session.row.message_id is not None:
                keep.add(session.row.message_id)
            keep.update(list(stored)[-KEEP_MESSAGES:])  # includes a hand message just sent
            for message_id in [mid for mid in stored if mid not in keep]:
                del stored[message_id]
        # Interaction records: keep the ones whose token the bot still holds for redrawing a
        # hand, and the recent ones (in flight).
        backend = self.env.backend
        records = backend.interactions
        if len(records) <= 4 * len(self.agents) + 100:
            return
        tokens = {
            handle.token
            for agent in self.agents
            if agent.session is not None
            for handle in agent.session.hands.values()
        }
        recent = set(list(records)[-(4 * len(self.agents) + 100) :])
        for interaction_id in [i for i in records if i not in recent]:
            if records[interaction_id].token in tokens:
                continue
            record = records.pop(interaction_id)
            backend.interaction_tokens.pop(record.token, None)


# ---- memory ----------------------------------------------------------------------------------

_NO_ENTRY = (
    types.ModuleType,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.CodeType,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
    asyncio.AbstractEventLoop,
    logging.Logger,
)


def _enterable(obj: Any) -> bool:
    if isinstance(obj, _NO_ENTRY):
        return False
    module = type(obj).__module__ or ""
    return not module.startswith(("simcord", "threading", "concurrent"))


@dataclass
class Heap:
    ids: set[int]
    bytes: int
    tracked: int  # objects the garbage collector tracks (each full collection visits them)


def heap_graph(roots: Iterable[Any], stop: set[int] | None = None) -> Heap:
    """The objects reachable from ``roots``: ids, summed ``sys.getsizeof``, and how many the
    garbage collector tracks. Objects in ``stop`` and objects :func:`_enterable` refuses
    are neither counted nor entered."""
    seen: set[int] = set()
    total = 0
    tracked = 0
    stack = list(roots)
    stop = stop or set()
    is_tracked = gc.is_tracked
    while stack:
        obj = stack.pop()
        key = id(obj)
        if key in seen or key in stop or not _enterable(obj):
            continue
        seen.add(key)
        with contextlib.suppress(TypeError):
            total += sys.getsizeof(obj)
        if is_tracked(obj):
            tracked += 1
        stack.extend(gc.get_referents(obj))
    return Heap(seen, total, tracked)


async def _end_all(bench: LoadBench, before: Heap) -> dict[str, Any]:
    """Every host stops their table (/kachuful stop), then what the bot still holds: its
    sessions, tasks and locks, and its heap against the one before any table was opened
    (discord.py's cache of the members and channels the run created aside)."""
    for agent in bench.agents:
        host = next(iter(agent.members.values()))
        emit_slash(bench.env, host, agent.channel, "kachuful stop")
        await asyncio.sleep(0)
    # The stops' last posts and hand messages take a while at hundreds of tables, longer
    # than one settle allows: wait for the tables to go, then let the bot go quiet.
    started = time.perf_counter()
    tables = bench.bot.tables
    work = bench.env._work
    stops_again = 0
    last_stop = started
    while time.perf_counter() - started < END_TIMEOUT and (
        tables.open.by_id or any(not task.done() for task in work.tasks)
    ):
        await asyncio.sleep(0.2)
        if time.perf_counter() - last_stop > STOP_AGAIN:
            # A stop that came while the table was busy is answered "try again": a host
            # would stop it again.
            last_stop = time.perf_counter()
            for agent in bench.agents:
                if tables.open.session_in(agent.channel.id) is not None:
                    stops_again += 1
                    host = next(iter(agent.members.values()))
                    emit_slash(bench.env, host, agent.channel, "kachuful stop")
    settled = True
    try:
        await bench.env.settle()
    except TimeoutError:
        settled = False
    gc.collect()
    after = heap_graph(bot_roots(bench))
    state = bench.bot._connection
    guilds = heap_graph(list(state._guilds.values()), set(before.ids))
    running = [t for t in bench.env._work.tasks if not t.done()]
    grown = after.bytes - before.bytes - guilds.bytes
    return {
        "seconds_to_end": round(time.perf_counter() - started, 1),
        "stops_sent_again": stops_again,
        "settled": settled,
        "sessions": len(tables.open.by_id),
        "channels_with_a_table": len(tables.open.by_channel),
        "bot_tasks_running": len(running),
        "bot_tasks_running_names": sorted({t.get_name().rsplit("-", 1)[0] for t in running})[:10],
        "heap_growth_kb": round(grown / 1024, 1),
        "heap_growth_per_table_kb": round(grown / len(bench.agents) / 1024, 2),
        "guild_cache_kb": round(guilds.bytes / 1024, 1),
        "gc_tracked_growth": after.tracked - before.tracked - guilds.tracked,
    }


def bot_roots(bench: LoadBench) -> list[Any]:
    """The bot object and the tasks SimCord saw the bot create (some objects, like the
    views discord.py keeps for 15 minutes, are only held by a task)."""
    return [bench.bot, *list(bench.env._work.tasks)]


def memory_breakdown(bench: LoadBench, before: Heap) -> dict[str, Any]:
    """Where the bot's memory for the running tables is (see the module docstring)."""
    tables = len(bench.agents)
    after = heap_graph(bot_roots(bench))
    state = bench.bot._connection
    stop = set(before.ids)
    guilds = heap_graph(list(state._guilds.values()), stop)
    stop |= guilds.ids
    cache = heap_graph(list(state._messages or ()), stop)
    stop |= cache.ids
    sessions = [a.session for a in bench.agents if a.session is not None]
    graphs = []
    for session in sessions:
        graph = heap_graph([session], stop)
        graphs.append(graph)
    for graph in graphs:
        stop |= graph.ids
    view_tasks = [
        task
        for task in bench.env._work.tasks
        if "__timeout_task_impl" in getattr(task.get_coro(), "__qualname__", "")
    ]
    views = heap_graph(view_tasks, stop)

    def kb(value: float) -> float:
        return round(value / tables / 1024, 1)

    grown = after.bytes - before.bytes
    parts = {
        "sessions": sum(g.bytes for g in graphs),
        "guild_cache": guilds.bytes,
        "message_cache": cache.bytes,
        "ephemeral_views": views.bytes,
    }
    tracked = {
        "sessions": sum(g.tracked for g in graphs),
        "guild_cache": guilds.tracked,
        "message_cache": cache.tracked,
        "ephemeral_views": views.tracked,
    }
    return {
        "bot_heap_per_table_kb": kb(grown),
        "per_table_kb": {
            **{name: kb(size) for name, size in parts.items()},
            "other": kb(grown - sum(parts.values())),
        },
        "session_kb": round(statistics.mean(g.bytes for g in graphs) / 1024, 1) if graphs else 0,
        "session_kb_max": round(max(g.bytes for g in graphs) / 1024, 1) if graphs else 0,
        "message_cache": {"messages": len(state._messages or ()), "max": state.max_messages},
        "ephemeral_views": len(view_tasks),
        "gc_tracked_objects_per_table": round((after.tracked - before.tracked) / tables),
        "gc_tracked_objects_per_table_by_part": {
            name: round(count / tables) for name, count in tracked.items()
        },
    }


def rss_bytes() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tracemalloc_split(snapshot: Any) -> dict[str, int]:
    """Bytes still allocated, by owner: the innermost frame of the allocation that is in
    simcord/ (the simulated Discord), in benchmarks/ (this driver) or in other code outside
    the standard library (the bot: bot/, cogs/, kachuful_core/, discord.py, aiosqlite, ...)
    decides; allocations made by the standard library alone (the event loop) are the bot's."""
    owners: Counter[str] = Counter()
    root = str(ROOT)
    for trace in snapshot.traces:
        owner = "bot"
        for frame in reversed(trace.traceback):  # from the most recent call
            name = frame.filename
            if f"{os.sep}simcord{os.sep}" in name:
                owner = "simcord"
                break
            if name.startswith(os.path.join(root, "benchmarks")):
                owner = "benchmark"
                break
            if f"{os.sep}site-packages{os.sep}" in name or name.startswith(root):
                break
        owners[owner] += trace.size
    return dict(owners)


class GcPauses:
    """Times Python's garbage collections (they stop the whole process)."""

    def __init__(self) -> None:
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.full: list[tuple[float, float]] = []  # (start, end) of each full collection
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            now = time.perf_counter()
            self.pauses[info["generation"]].append(now - self._started)
            if info["generation"] == 2:
                self.full.append((self._started, now))

    def overlapping(self, sample: Sample) -> bool:
        """Whether a full collection ran while this click waited for its answer."""
        end = sample.sent + sample.seconds
        return any(start < end and stop > sample.sent for start, stop in self.full)

    def summary(self) -> dict[str, Any]:
        full = self.pauses[2]
        return {
            "collections": {f"gen{g}": len(p) for g, p in self.pauses.items()},
            "total_ms": round(sum(sum(p) for p in self.pauses.values()) * 1000, 1),
            "full_max_ms": round(max(full) * 1000, 1) if full else 0.0,
            "full_median_ms": round(statistics.median(full) * 1000, 1) if full else 0.0,
            "tracked_objects": len(gc.get_objects()),
        }


# ---- report ----------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of ``values`` (not empty)."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-len(ordered) * q // 100)))
    return ordered[int(rank) - 1]


def latency_summary(seconds: list[float]) -> dict[str, float]:
    if not seconds:
        return {"median": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0, "n": 0}
    ms = [s * 1000 for s in seconds]
    return {
        "median": round(statistics.median(ms), 2),
        "p95": round(percentile(ms, 95), 2),
        "p99": round(percentile(ms, 99), 2),
        "max": round(max(ms), 2),
        "n": len(ms),
    }


class _RealTimerLoop:
    """The running loop as psycopg's waits see it: the same loop, but ``call_later`` schedules
    a real-time timer (the event loop's own, not SimCord's)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loop, name)

    def call_later(self, delay: float, callback: Any, *args: Any) -> asyncio.TimerHandle:
        loop = self._loop
        base = type(loop)
        return base.call_at(loop, base.time(loop) + delay, callback, *args)  # type: ignore[attr-defined]


def use_real_psycopg_timers() -> Callable[[], None]:
    """psycopg waits for the server on the socket and, as a safety net, on a 0.1 s timer. In
    the bot's tasks SimCord makes every timer virtual, and a virtual timer's real-time fallback
    makes SimCord settle the whole bot before it fires: a query slower than 0.1 s under load
    then waits for every table to go quiet, which they never do (the run hung). Its timer is
    made a real one, as in production; returns the undo."""
    import psycopg.waiting as waiting

    saved = waiting.get_running_loop
    waiting.get_running_loop = lambda: _RealTimerLoop(saved())  # type: ignore[assignment]

    def undo() -> None:
        waiting.get_running_loop = saved  # type: ignore[assignment]

    return undo


def dump_tasks(bench: LoadBench | None = None) -> None:
    """Every asyncio task's stack on stderr (SIGUSR1), and the tables still open: where a run
    that does not finish waits."""
    for task in asyncio.all_tasks():
        print(f"--- {task.get_name()}", file=sys.stderr)
        task.print_stack(limit=12, file=sys.stderr)
    if bench is not None and getattr(bench, "bot", None) is not None:
        tables = bench.bot.tables.open
        print("open:", {i: s.row.status for i, s in tables.by_id.items()}, file=sys.stderr)
        print("closing:", {i: s.row.status for i, s in tables.closing.items()}, file=sys.stderr)
    sys.stderr.flush()


async def run(config: Config) -> dict[str, Any]:
    logging.getLogger("discord").setLevel(logging.WARNING)
    logging.getLogger("bot").setLevel(logging.WARNING)
    undo_timers = use_real_psycopg_timers() if config.database_url else (lambda: None)
    undo = use_json_copy() if config.fast_copy else (lambda: None)
    try:
        with tempfile.TemporaryDirectory(prefix="kachuful-load-") as folder:
            bench = LoadBench(config, Path(folder))
            asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, dump_tasks, bench)
            await bench.start()
            try:
                result = await _measure(bench)
            finally:
                await bench.close()
    finally:
        undo()
        undo_timers()
    result["simcord_copy"] = "json_copy" if config.fast_copy else "copy.deepcopy"
    return result


def json_copy(value: Any, memo: Any = None) -> Any:
    """``copy.deepcopy`` for JSON data: new dicts and lists all the way down, scalars shared
    (they are immutable); anything else is handed to ``copy.deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {key: json_copy(item) for key, item in value.items()}
    if kind is list:
        return [json_copy(item) for item in value]
    if kind in (str, int, float, bool) or value is None:
        return value
    return copy.deepcopy(value, memo)


def use_json_copy() -> Callable[[], None]:
    """SimCord copies bodies with :func:`json_copy`; returns the undo."""
    import simcord.backend.serializers as serializers
    import simcord.components as components
    import simcord.gateway as gateway

    saved = (components.deepcopy, serializers.deepcopy, gateway.copy)
    components.deepcopy = json_copy  # type: ignore[assignment]
    serializers.deepcopy = json_copy  # type: ignore[assignment]
    gateway.copy = types.SimpleNamespace(deepcopy=json_copy)  # type: ignore[assignment]

    def undo() -> None:
        components.deepcopy, serializers.deepcopy, gateway.copy = saved

    return undo


async def _measure(bench: LoadBench) -> dict[str, Any]:
    config = bench.config
    env = bench.env

    # Memory before any table.
    gc.collect()
    rss_before = rss_bytes()
    heap_before = heap_graph(bot_roots(bench))
    if config.tracemalloc:
        import tracemalloc

        tracemalloc.start(25)

    # Every process restores the open games of the shared database when it starts (it is
    # not told about shards): none may open a table before all have started, or another
    # process would take that table into its memory too, and wait for ever for it to end.
    await barrier(config, "started")
    setup_started = time.perf_counter()
    await bench.open_tables()
    setup_seconds = time.perf_counter() - setup_started
    await env.settle()

    if config.warmup_moves:
        measured = bench.stats
        bench.stats = Stats()
        warmup_started = time.perf_counter()
        await bench.play(config.warmup_moves, 0.0)
        warmup_seconds = time.perf_counter() - warmup_started
        await env.settle()
        warmup = {"interactions": bench.stats.sent, "seconds": round(warmup_seconds, 1)}
        warmup["unanswered"] = bench.stats.unanswered
        bench.stats = measured
    else:
        warmup = {"interactions": 0, "seconds": 0.0, "unanswered": 0}

    calls_before = Counter(bench.clock.calls)
    moves_before = sum(a.session.game.move_count for a in bench.agents)
    await barrier(config, "ready")  # every process has its tables open: play together

    profiler = None
    if config.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    pauses = GcPauses()
    gc.callbacks.append(pauses)
    cpu_started = time.process_time()
    started_at = time.time()
    started = time.perf_counter()
    try:
        await bench.play(config.moves, config.think_ms)
    finally:
        gc.callbacks.remove(pauses)
    seconds = time.perf_counter() - started
    ended_at = time.time()
    cpu_seconds = time.process_time() - cpu_started
    mark(config, "stopped")
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(config.profile)
    # Past capacity the publishers are still catching up when the clicks stop: wait for them
    # (and say how long it took) rather than give up after SimCord's default 30 s.
    catch_up_started = time.perf_counter()
    await env.settle(timeout=END_TIMEOUT)
    catch_up_seconds = time.perf_counter() - catch_up_started
    # The memory walk and the stops below are heavy: not while another process still plays.
    await barrier(config, "played")

    moves = sum(a.session.game.move_count for a in bench.agents if a.session) - moves_before
    calls = Counter(bench.clock.calls)
    calls.subtract(calls_before)

    # Memory with the tables running.
    gc.collect()
    rss_after = rss_bytes()
    tables = len(bench.agents)
    memory = memory_breakdown(bench, heap_before)
    memory["rss_per_table_kb"] = round((rss_after - rss_before) / tables / 1024, 1)
    if config.tracemalloc:
        import tracemalloc

        split = tracemalloc_split(tracemalloc.take_snapshot())
        tracemalloc.stop()
        memory["tracemalloc_per_table_kb"] = {
            owner: round(size / tables / 1024, 1) for owner, size in sorted(split.items())
        }

    errors = list(env.errors)

    stats = bench.stats
    samples = stats.samples
    if config.samples:
        write_samples(config.samples, samples, started)
    by_kind: dict[str, list[float]] = {}
    for sample in samples:
        by_kind.setdefault(sample.kind, []).append(sample.seconds)
    hit = [s.seconds for s in samples if pauses.overlapping(s)]
    clear = [s.seconds for s in samples if not pauses.overlapping(s)]
    interactions = stats.sent
    answered = len(samples)
    channel_calls = sum(n for k, n in calls.items() if k.startswith("channel message"))
    rest_calls = sum(n for n in calls.values() if n > 0)
    sessions = [a.session for a in bench.agents if a.session is not None]
    left = [
        sum(1 for key, done in s.publisher.delivered.items() if key != "thread" and done.message_id)
        for s in sessions
        if s.publisher is not None and s.publisher.delivered is not None
    ]
    ended = await bench.end_all(heap_before)  # after counting what the tables left
    errors = list(env.errors)
    result: dict[str, Any] = {
        "tables": tables,
        "moves_per_table": config.moves,
        "warmup_moves_per_table": config.warmup_moves,
        "think_ms": config.think_ms,
        "computer_share": config.computer_share,
        "computer_level": config.computer_level,
        "interactions": interactions,
        "answered": answered,
        "unanswered": stats.unanswered + warmup["unanswered"],
        "stuck_tables": stats.stuck,
        "seconds_to_catch_up": round(catch_up_seconds, 1),
        "refused": stats.refused,
        "hand_reopened": stats.reopened,
        "moves": moves,
        "seconds": round(seconds, 3),
        "interactions_per_sec": round(interactions / seconds, 1) if seconds else 0.0,
        "moves_per_sec": round(moves / seconds, 1) if seconds else 0.0,
        "cpu_ms_per_interaction": round(cpu_seconds * 1000 / interactions, 2)
        if interactions
        else 0.0,
        "cpu_seconds": round(cpu_seconds, 3),
        "cpu_note": CPU_NOTE,
        "backend": "postgresql" if config.database_url else "sqlite",
        "process_index": config.process_index,
        "processes": config.processes,
        "tables_in_all_processes": config.tables,
        "layout": bench.layout,
        "started_at": round(started_at, 4),
        "ended_at": round(ended_at, 4),
        "latency_ms": latency_summary([s.seconds for s in samples]),
        "latency_ms_by_kind": {k: latency_summary(v) for k, v in sorted(by_kind.items())},
        "memory_per_table_kb": memory["bot_heap_per_table_kb"],
        "memory": memory,
        "after_every_game_ended": ended,
        "gc": {
            **pauses.summary(),
            "clicks_during_full_collection": round(len(hit) / len(samples), 3) if samples else 0,
            "latency_ms_other_clicks": latency_summary(clear),
        },
        "rest_calls": {k: n for k, n in sorted(calls.items()) if n},
        "channel_calls_per_move": round(channel_calls / moves, 2) if moves else 0.0,
        "rest_calls_per_move": round(rest_calls / moves, 2) if moves else 0.0,
        "public_messages": {
            "posted_per_move": round(calls["channel message POST"] / moves, 2) if moves else 0.0,
            "deleted_per_move": round(calls["channel message DELETE"] / moves, 2) if moves else 0.0,
            "left_per_table": round(statistics.mean(left), 1) if left else 0.0,
        },
        "setup": {
            **bench.setup_stats,
            "seconds": round(setup_seconds, 2),
        },
        "warmup": warmup,
        "bot_errors": [f"{type(e).__name__}: {e}" for e in errors][:10],
        "computer_decisions": {
            "by_level": dict(bench.bot.tables.thinker.levels),
            "in_workers": bench.bot.tables.thinker.decisions,
            "heuristic_fallbacks": bench.bot.tables.thinker.fallbacks,
        },
        "tracemalloc": config.tracemalloc,
        "max_messages": config.max_messages if config.max_messages != -1 else "bot setting (off)",
        "commit": _commit(),
        "python": platform.python_version(),
        "discord.py": discord.__version__,
        "simcord": getattr(simcord, "__version__", "?"),
        "cpus": os.cpu_count(),
    }
    return result


def write_samples(path: str, samples: list[Sample], started: float) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write("kind,table,sent_s,latency_ms\n")
        for s in samples:
            out.write(f"{s.kind},{s.table},{s.sent - started:.4f},{s.seconds * 1000:.2f}\n")


def _commit() -> str | None:
    """The repository's commit, with "+dirty" if the bot's code has local changes."""
    import subprocess

    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "bot", "cogs", "kachuful_core"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return None
    return (head + ("+dirty" if dirty else "")) or None


def print_report(result: dict[str, Any]) -> None:
    lat = result["latency_ms"]
    mem = result["memory"]
    warm = (
        f" after {result['warmup_moves_per_table']} warm-up moves"
        if result["warmup_moves_per_table"]
        else ""
    )
    print(
        f"{result['tables']} tables x {result['moves_per_table']} moves{warm}, think "
        f"{result['think_ms']:g} ms, computer share {result['computer_share']:g}"
    )
    print(
        f"  {result['interactions']} interactions ({result['answered']} answered, "
        f"{result['unanswered']} unanswered, {result['refused']} refused) and "
        f"{result['moves']} moves in {result['seconds']:.1f} s: "
        f"{result['interactions_per_sec']:.1f} interactions/s, "
        f"{result['cpu_ms_per_interaction']:.2f} ms CPU per interaction (the process's: the "
        "simulated Discord runs in it too)"
    )
    if result["processes"] > 1 or result["backend"] != "sqlite":
        print(
            f"  store {result['backend']}; process {result['process_index']} of "
            f"{result['processes']}, playing guild {result['process_index']}'s tables "
            f"({result['tables']} of {result['tables_in_all_processes']})"
        )
    print(
        f"  click to answer: median {lat['median']:.1f} ms, p95 {lat['p95']:.1f} ms, "
        f"p99 {lat['p99']:.1f} ms, max {lat['max']:.1f} ms"
    )
    for kind, summary in result["latency_ms_by_kind"].items():
        print(
            f"    {kind:5} n={summary['n']:6}  median {summary['median']:.1f}  "
            f"p99 {summary['p99']:.1f}  max {summary['max']:.1f} ms"
        )
    parts = ", ".join(f"{k} {v:.1f}" for k, v in mem["per_table_kb"].items())
    print(
        f"  memory per table: {result['memory_per_table_kb']:.1f} KB of bot heap ({parts} KB); "
        f"one TableSession {mem['session_kb']:.1f} KB (max {mem['session_kb_max']:.1f}); "
        f"{mem['gc_tracked_objects_per_table']} GC-tracked objects per table "
        f"({', '.join(f'{k} {v}' for k, v in mem['gc_tracked_objects_per_table_by_part'].items())})"
    )
    print(
        f"    message cache {mem['message_cache']['messages']}/{mem['message_cache']['max']} "
        f"messages; {mem['ephemeral_views']} views kept for 15 min by discord.py; RSS "
        f"{mem['rss_per_table_kb']:.1f} KB per table (includes the simulated Discord)"
    )
    for stuck in result["stuck_tables"]:
        print(f"  STUCK {stuck}")
    end = result["after_every_game_ended"]
    print(
        f"  after every game ended: {end['sessions']} sessions, {end['bot_tasks_running']} bot "
        f"tasks running, heap {end['heap_growth_kb']:+.1f} KB against before the tables "
        f"({end['heap_growth_per_table_kb']:+.2f} KB a table; discord.py's cache of the run's "
        f"members and channels, {end['guild_cache_kb']:.0f} KB, aside); "
        f"{end['seconds_to_end']} s to end them"
        f"{'' if end['settled'] else ' (SimCord did not settle)'}"
    )
    gcs = result["gc"]
    print(
        f"  garbage collection during play: {gcs['collections']}, {gcs['total_ms']:.0f} ms in "
        f"all; full collections median {gcs['full_median_ms']:.0f} ms, max "
        f"{gcs['full_max_ms']:.0f} ms ({gcs['tracked_objects']} objects tracked at the end)"
    )
    other = gcs["latency_ms_other_clicks"]
    print(
        f"    {gcs['clicks_during_full_collection']:.1%} of the clicks waited through a full "
        f"collection; the others: median {other['median']:.1f} ms, p99 {other['p99']:.1f} ms"
    )
    if "tracemalloc_per_table_kb" in mem:
        print(f"  tracemalloc per table: {mem['tracemalloc_per_table_kb']}")
    public = result["public_messages"]
    print(
        f"  REST calls {result['rest_calls']}; per move {result['rest_calls_per_move']}, of "
        f"which channel messages {result['channel_calls_per_move']}; public messages posted "
        f"per move {public['posted_per_move']}, deleted per move {public['deleted_per_move']}, "
        f"left per table {public['left_per_table']}"
    )
    computers = result["computer_decisions"]
    if computers["by_level"]:
        print(
            f"  computer decisions {computers['by_level']}: {computers['in_workers']} in worker "
            f"processes, {computers['heuristic_fallbacks']} taken by the heuristic (too slow)"
        )
    if result["bot_errors"]:
        print(f"  bot errors: {result['bot_errors']}")


def profile_shares(path: str) -> dict[str, float]:
    """Share of the profiled time by package. Time spent in the standard library and in
    built-ins (``copy.deepcopy``, ``dict.get``, ...) is charged to the packages that called
    them, in proportion to the time of each call site; what only the event loop calls is
    "asyncio"."""
    import pstats

    raw = pstats.Stats(path).stats  # type: ignore[attr-defined]
    owners: dict[Any, dict[str, float]] = {}

    def owner_of(func: Any, visiting: frozenset[Any]) -> dict[str, float]:
        if func in owners:
            return owners[func]
        package = _package_of(func[0], func[2])
        if package is not None:
            result = {package: 1.0}
        else:
            callers = {c: v[3] for c, v in raw[func][4].items() if c not in visiting and c != func}
            weight = sum(callers.values())
            if not callers or weight <= 0:
                result = {"asyncio (event loop)": 1.0}
            else:
                mixed: Counter[str] = Counter()
                for caller, ct in callers.items():
                    for pkg, share in owner_of(caller, visiting | {func}).items():
                        mixed[pkg] += share * ct / weight
                result = dict(mixed)
        if not visiting:
            owners[func] = result
        return result

    by_package: Counter[str] = Counter()
    for func, entry in raw.items():
        for package, share in owner_of(func, frozenset()).items():
            by_package[package] += entry[2] * share
    total = sum(by_package.values()) or 1.0
    return {k: round(v / total, 3) for k, v in by_package.most_common()}


def _package_of(filename: str, name: str) -> str | None:
    """The package a profiled function belongs to; None for the standard library and
    built-ins (charged to their callers)."""
    path = filename.replace(os.sep, "/")
    if "/site-packages/" in path:
        return path.split("/site-packages/", 1)[1].split("/", 1)[0].removesuffix(".py")
    root = str(ROOT).replace(os.sep, "/")
    if path.startswith(root + "/"):
        return path[len(root) + 1 :].split("/", 1)[0]
    if filename == "~" and "poll" in name:
        return "waiting (epoll)"
    return None


def parse_args(argv: list[str] | None = None) -> Config:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=None, help="tables at once (100)")
    parser.add_argument("--moves", type=int, default=None, help="moves per table (60)")
    parser.add_argument(
        "--think-ms",
        type=float,
        default=None,
        help="mean pause before each human click (1000; 0 saturates the bot)",
    )
    parser.add_argument(
        "--post-limit",
        type=int,
        default=10_000,
        help="new messages per channel in 5 s (10000: unpaced; the bot's own default is 5)",
    )
    parser.add_argument(
        "--computer-level",
        default="heuristic",
        help="level of the computer seats: random, heuristic or search (heuristic)",
    )
    parser.add_argument(
        "--computer-share",
        type=float,
        default=0.0,
        help="share of tables with 2 humans + 1 computer instead of 3 humans (0)",
    )
    parser.add_argument(
        "--warmup-moves",
        type=int,
        default=0,
        help="moves each table first makes at full speed, not measured (0): to measure late in "
        "a game (a 3-player game is 1,014 moves)",
    )
    parser.add_argument(
        "--max-messages",
        type=int,
        default=-1,
        help="what-if: discord.py's message cache size passed to the bot (0: none; default: "
        "the bot's own setting, off)",
    )
    parser.add_argument("--max-hand", type=int, default=None, help="largest hand (bot default)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="smoke run: a few seconds")
    parser.add_argument("--json", action="store_true", help="one JSON line at the end")
    parser.add_argument("--tracemalloc", action="store_true", help="split memory by owner")
    parser.add_argument(
        "--no-prune",
        action="store_true",
        help="keep every message in the simulated Discord (its heap slows garbage collection)",
    )
    parser.add_argument(
        "--stock-copy",
        action="store_true",
        help="let SimCord copy every body with copy.deepcopy (its own), not json_copy",
    )
    parser.add_argument(
        "--no-freeze-gc",
        action="store_true",
        help="do not freeze start-up objects out of the garbage collector (the entry point does)",
    )
    parser.add_argument("--profile", metavar="FILE", help="cProfile the play phase to FILE")
    parser.add_argument(
        "--burst-start",
        action="store_true",
        help="worst case: every table's first player clicks at the same instant, and a player "
        "thinks before opening their hand, then bids or plays at once",
    )
    parser.add_argument(
        "--samples",
        metavar="FILE",
        help="write every timed click to FILE as CSV (kind, table, sent_s, latency_ms)",
    )
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="the bot's store on this PostgreSQL database (default: a SQLite file in a "
        "temporary folder)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="scale-out: this many bot processes share the --tables, one guild each (1)",
    )
    parser.add_argument(
        "--process-index",
        type=int,
        default=0,
        help="scale-out: which of the --processes this is; it plays that guild's tables (0)",
    )
    parser.add_argument(
        "--barrier",
        metavar="DIR",
        help="scale-out: a folder shared by the processes; each starts its timed phase when "
        "every one has opened its tables",
    )
    args = parser.parse_args(argv)
    quick = args.quick
    config = Config(
        tables=args.tables if args.tables is not None else (4 if quick else 100),
        moves=args.moves if args.moves is not None else (12 if quick else 60),
        think_ms=args.think_ms if args.think_ms is not None else (5.0 if quick else 1000.0),
        computer_share=args.computer_share,
        computer_level=args.computer_level,
        post_limit=args.post_limit,
        warmup_moves=args.warmup_moves,
        max_messages=(None if args.max_messages == 0 else args.max_messages),
        max_hand=args.max_hand,
        seed=args.seed,
        tracemalloc=args.tracemalloc,
        prune=not args.no_prune,
        fast_copy=not args.stock_copy,
        freeze_gc=not args.no_freeze_gc,
        profile=args.profile,
        samples=args.samples,
        burst_start=args.burst_start,
        quick=quick,
        database_url=args.database_url,
        process_index=args.process_index,
        processes=args.processes,
        barrier=args.barrier,
    )
    if config.processes < 1 or not 0 <= config.process_index < config.processes:
        parser.error("--processes must be positive and --process-index in 0..processes-1")
    if config.tables < config.processes:
        parser.error("--tables is the total over the processes: at least one per process")
    if config.processes > 1 and config.database_url is None:
        parser.error("several processes share one database: give --database-url")
    if config.tables < 1 or config.moves < 1 or config.think_ms < 0 or config.warmup_moves < 0:
        parser.error(
            "--tables and --moves must be positive, --think-ms and --warmup-moves not negative"
        )
    if not 0 <= config.computer_share <= 1:
        parser.error("--computer-share is a share: 0 to 1")
    config.__dict__["json"] = args.json  # printing only
    return config


def main(argv: list[str] | None = None) -> int:
    config = parse_args(argv)
    result = asyncio.run(run(config))
    if config.__dict__.get("json"):
        print(json.dumps(result))
    else:
        print_report(result)
    if config.profile:
        import pstats

        print(f"\ncProfile of the play phase ({config.profile}): own time by package")
        for package, share in profile_shares(config.profile).items():
            if share >= 0.005:
                print(f"  {share:6.1%}  {package}")
        print("\ntop 25 functions by own time:")
        stats = pstats.Stats(config.profile, stream=sys.stdout)
        stats.sort_stats("tottime").print_stats(25)
    ok = (
        result["unanswered"] == 0
        and not result["bot_errors"]
        and not result["stuck_tables"]
        and not result["after_every_game_ended"]["sessions"]
    )
    return 0 if ok else 1


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
