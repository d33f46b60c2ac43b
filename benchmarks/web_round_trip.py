"""The web table's move round trip beside the Discord button click, in the same run.

Many tables of four play at once through the real bot in SimCord (benchmarks/bot_load.py's
machinery: the same SQLite store, unpaced posts, a think time per move): at each table three
players play in browsers, each with the table's socket open (bot/web/live.py), and the fourth
clicks buttons in Discord, with the table open in a browser too (four sockets a table). Each
human moves after thinking ``--think-ms`` on average (uniform 0.5x-1.5x), so 100 tables offer
about 100 moves a second.

Measured, on loopback, in real time (``time.perf_counter``):

- **web move round trip**: from just before the move's frame is sent on the socket to the
  moment the same socket receives its own new view (the one the move made): what a player
  waits between a tap and the table redrawn. It includes the socket both ways, the change
  path (table lock, engine, the SQLite commit), building every socket's view of that table,
  and whatever else the event loop does meanwhile: the other tables, the publishers bringing
  Discord up to date, and SimCord itself (the simulated Discord, and the browsers' side of
  the sockets, run in the same process and on the same core: pessimistic figures).
- **Discord click to answer**: bot_load.py's measure, from the INTERACTION_CREATE handed to
  the bot to its interaction callback reaching SimCord (bids and cards; "Your hand" apart).

The issue's target: a web move's p99 under 100 ms with 100 tables of four open.

    .venv/bin/python benchmarks/web_round_trip.py                 # 100 tables, 40 moves each
    .venv/bin/python benchmarks/web_round_trip.py --heartbeat 3600   # no heartbeat round in
                                                                     # the run
    .venv/bin/python benchmarks/web_round_trip.py --tables 4 --moves 8 --json   # smoke run
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import faulthandler
import json
import logging
import random
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp
from pydantic import SecretStr

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bot_load import (  # noqa: E402
    ANSWER_TIMEOUT,
    HAND_PREFIX,
    Config,
    LoadBench,
    Sample,
    TableAgent,
    latency_summary,
    use_json_copy,
)
from bot.client import KachufulBot  # noqa: E402
from bot.web.sessions import Identity  # noqa: E402

TARGET_P99_MS = 100.0


class Refused(Exception):
    """The bot refused a web move (its answer says why)."""


class Browser:
    """One browser's socket: every view it is sent, and who waits for one."""

    def __init__(self, agent: MixedAgent, user_id: int) -> None:
        self.agent = agent
        self.user_id = user_id
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.version = -1  # the version of the newest view
        self.view: dict[str, Any] = {}
        self.waiting: tuple[int, asyncio.Future[float]] | None = None
        self.frames = 0
        self.reader: asyncio.Task[None] | None = None

    async def open(self, http: aiohttp.ClientSession, url: str, token: str, base: str) -> None:
        headers = {"Authorization": f"Bearer {token}", "Origin": base}
        self.ws = await http.ws_connect(url, headers=headers, max_msg_size=0)
        self.reader = asyncio.create_task(self._read())
        await self.ws.send_str(
            json.dumps({"t": "hello", "table": self.agent.table_id, "version": None})
        )

    async def _read(self) -> None:
        assert self.ws is not None
        async for message in self.ws:
            if message.type is not aiohttp.WSMsgType.TEXT:
                continue
            now = time.perf_counter()
            frame = json.loads(message.data)
            self.frames += 1
            waiting = self.waiting
            if frame["t"] == "answer" and not frame["ok"] and waiting is not None:
                self.agent.bench.refusals.append(str(frame["text"]))
                if not waiting[1].done():
                    waiting[1].set_exception(Refused(frame["text"]))
                continue
            if frame["t"] != "view":
                continue
            self.view, self.version = frame, frame["version"]
            waiting = self.waiting
            if waiting is not None and self.version > waiting[0] and not waiting[1].done():
                waiting[1].set_result(now)
            self.agent.wake()

    async def move(self, move: dict[str, Any], version: int, move_id: str) -> float | None:
        """Send a move; seconds until this socket's own new view, or None (no view came)."""
        assert self.ws is not None
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting = (version, future)
        frame = {"t": "move", "id": move_id, "version": version, "move": move}
        sent = time.perf_counter()
        await self.ws.send_str(json.dumps(frame))
        try:
            return await asyncio.wait_for(future, ANSWER_TIMEOUT) - sent
        except TimeoutError:
            return None
        except Refused:
            return -1.0
        finally:
            self.waiting = None

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await self.reader


class MixedAgent(TableAgent):
    """A table whose browsers' players move on the socket; its Discord player clicks as in
    bot_load.py."""

    bench: WebBench

    def __init__(self, *args: Any, web_ids: list[int], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.browsers = {user_id: Browser(self, user_id) for user_id in web_ids}
        self.watching: Browser | None = None  # the Discord player's own browser
        self.web_moves = 0
        self.web_refused = 0

    def _state(self) -> str | None:
        state = super()._state()
        if state != "act":
            return state
        session = self.session
        user_id = session.row.seats[session.game.turn].user_id
        browser = self.browsers.get(user_id)
        if browser is not None and browser.version != session.row.version:
            return None  # that player's page has not shown the move before yet
        return "act"

    def _why(self) -> str:
        """What the table waits for, with the page of the seat to act: the newest view it
        got, and what the server holds for that socket."""
        why = super()._why()
        session = self.session
        user_id = session.row.seats[session.game.turn].user_id
        browser = self.browsers.get(user_id)
        if browser is None:
            return why
        live = self.bench.bot.live
        peers = [p for p in live.peers.get(self.table_id, ()) if p.user_id == user_id]
        sent = [
            (json.loads(p.last_view)["version"] if p.last_view else None, p.outbox.qsize())
            for p in peers
        ]
        return f"{why} page_version={browser.version} server_sent(version, queued)={sent}"

    async def play(self, moves: int, think_ms: float) -> None:
        session = self.session
        if session is None or session.game is None:
            return
        self.start_moves = session.game.move_count
        self.target = moves
        think = think_ms / 1000
        if think > 0:
            await asyncio.sleep(think * self.rng.random())
        while await self._ready() == "act":
            session = self.session
            user_id = session.row.seats[session.game.turn].user_id
            if think > 0:
                await asyncio.sleep(think * (0.5 + self.rng.random()))
            browser = self.browsers.get(user_id)
            if browser is not None:
                await self._web_move(browser)
            else:
                await self._discord_move(self.members[user_id])

    async def _web_move(self, browser: Browser) -> None:
        view = browser.view
        if view["bids"]:
            move: dict[str, Any] = {"bid": self.rng.choice(view["bids"])}
        elif view["legal"]:
            move = {"card": self.rng.choice(view["legal"])}
        else:  # the page is behind the table (it will be sent the new view)
            await self._nap()
            return
        self.bench.stats.sent += 1
        self.web_moves += 1
        seconds = await browser.move(move, view["version"], f"{self.index}-{self.web_moves}")
        if seconds is None:
            self.bench.stats.unanswered += 1
            return
        if seconds < 0:
            self.bench.stats.refused += 1
            await self._nap()
            return
        self.bench.stats.samples.append(Sample("web", seconds, self.index, time.perf_counter()))

    async def _discord_move(self, member: Any) -> None:
        choices = self._enabled_actions(member.id)
        if not choices:
            record = await self._click(
                member, await self._latest_hand_button(), f"{HAND_PREFIX}{self.table_id}"
            )
            if record is None or record.message_id is None:
                raise AssertionError(f"table {self.index}: Your hand was not answered")
            self.hand_ids[member.id] = record.message_id
            choices = self._enabled_actions(member.id)
            if not choices:
                return
        choice = self.rng.choice(sorted(choices))
        version = int(choice.split(":")[3])
        record = await self._click(member, self.hand_ids[member.id], choice)
        session = self.session
        if record is not None and session is not None and session.row.version <= version:
            self.bench.stats.refused += 1
            await asyncio.sleep(0.05)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class WebBench(LoadBench):
    """bot_load.py's bench with the web table on, and tables of three browsers and one
    Discord player."""

    def __init__(self, config: Config, folder: Path) -> None:
        super().__init__(config, folder)
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.settings = self.settings.model_copy(
            update={
                "web_port": port,
                "web_base_url": self.base,
                "discord_client_id": 1234567890123456789,
                "discord_client_secret": SecretStr("benchmark-only-secret"),
            }
        )
        bot = self.bot
        self.bot = KachufulBot(
            self.settings, new_seed=bot._new_seed, post_limit=bot.post_limit, hand_delay=0.0
        )
        self.bot.freeze_gc_after_setup = config.freeze_gc
        self.env = type(self.env)(self.bot, settle_timeout=30.0)
        self.agents: list[MixedAgent] = []  # type: ignore[assignment]
        self.http: aiohttp.ClientSession | None = None
        self.refusals: list[str] = []
        self.stalls = False
        self.heartbeat: float | None = None  # the sockets' (None: the bot's, 20 s)
        self.lags: list[tuple[float, float]] = []  # (seconds into the play, the loop's lag)

    async def watch_the_loop(self, started: float) -> None:
        """How late a 50 ms sleep wakes: the event loop's lag (a block shows as a spike)."""
        while True:
            before = time.perf_counter()
            if self.stalls:  # where the loop is stuck, if it is for 2 s
                faulthandler.dump_traceback_later(2.0, exit=False)
            await asyncio.sleep(0.05)
            late = time.perf_counter() - before - 0.05
            if late > 0.2:
                self.lags.append((round(before - started, 1), round(late, 2)))

    async def start(self) -> None:
        """A socket's task waits on its browser: declared to SimCord as an outside input (as
        the tests do, tests/bot/web/conftest.py). SimCord settles the bot whenever one of its
        timers falls due (a heartbeat, a turn clock), scanning every task the bot started;
        800 socket tasks it could not see were waiting on a browser kept each such settle
        going, stopping the event loop for 9-14 s in a run. The heartbeat (bot/web/heartbeat.py:
        one timer for every socket) runs out of SimCord's sight, on the event loop's real
        timers as in production: each round falling due would otherwise make SimCord settle
        the whole bot (0.5-0.9 s with 400 sockets), which no real event loop does. The bot's
        code is the same."""
        from bot.web import heartbeat, live

        env = self.env

        def beating(rounds: Any) -> asyncio.Task[None]:
            # Started in a context without SimCord's mark of the bot: its timers are not tracked.
            return contextvars.Context().run(asyncio.create_task, rounds, name=heartbeat.TASK_NAME)

        heartbeat.beating = beating  # type: ignore[assignment]

        async def idle(waiting: Any) -> Any:
            return await env.external_wait(waiting, reason="a web table's socket")

        live.idle = idle  # type: ignore[assignment]
        if self.heartbeat is not None:
            live.HEARTBEAT_SECONDS = self.heartbeat
        await super().start()

    async def open_tables(self) -> None:
        env, config = self.env, self.config
        guild = env.create_guild("Kachuful web load")
        options: dict[str, Any] = {"players": 4}
        if config.max_hand is not None:
            options["max_hand"] = config.max_hand
        for index in range(config.tables):
            channel = guild.create_text_channel(f"table-{index}")
            members = [guild.add_member(env.create_user(f"t{index}p{j}")) for j in range(4)]
            host = members[0]
            started = await self._setup_click(
                host, await host.slash(channel, "kachuful start", **options)
            )
            lobby = started.response
            for member in members[1:]:
                await self._setup_click(member, await member.click(lobby, label="Join"))
            await self._setup_click(host, await host.click(lobby, label="Start (host)"))
            session = self.bot.tables.open.session_in(channel.id)
            assert session is not None and session.row.status == "running", "not started"
            web_ids = [m.id for m in members[:3]]
            agent = MixedAgent(self, index, channel, members, session.row.id, web_ids=web_ids)
            agent.watching = Browser(agent, members[3].id)
            self.agents.append(agent)

    async def open_sockets(self) -> int:
        web = self.bot.web
        assert web is not None
        self.http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        url = f"{self.base.replace('http', 'ws', 1)}/ws"
        opened = 0
        for agent in self.agents:
            browsers = [*agent.browsers.values(), agent.watching]
            for browser in browsers:
                assert browser is not None
                name = agent.members[browser.user_id].name
                token = web.sessions.issue(Identity(browser.user_id, name))
                await browser.open(self.http, url, token, self.base)
                opened += 1
        # Every page has its first view before the play starts.
        while any(b.version < 0 for a in self.agents for b in a.browsers.values()):
            await asyncio.sleep(0.01)
        return opened

    async def close_sockets(self) -> None:
        for agent in self.agents:
            for browser in [*agent.browsers.values(), agent.watching]:
                if browser is not None:
                    await browser.close()
        if self.http is not None:
            await self.http.close()


async def run(
    config: Config, stalls: bool = False, heartbeat: float | None = None
) -> dict[str, Any]:
    logging.getLogger("discord").setLevel(logging.WARNING)
    logging.getLogger("bot").setLevel(logging.WARNING)
    logging.getLogger("aiohttp").setLevel(logging.WARNING)
    undo = use_json_copy()
    try:
        with tempfile.TemporaryDirectory(prefix="kachuful-web-") as folder:
            bench = WebBench(config, Path(folder))
            bench.stalls = stalls
            bench.heartbeat = heartbeat
            await bench.start()
            try:
                return await measure(bench)
            finally:
                await bench.close_sockets()
                await bench.close()
    finally:
        undo()


async def measure(bench: WebBench) -> dict[str, Any]:
    config = bench.config
    started = time.perf_counter()
    await bench.open_tables()
    sockets = await bench.open_sockets()
    setup = time.perf_counter() - started
    live = bench.bot.live
    began, cpu = time.perf_counter(), time.process_time()
    watcher = asyncio.create_task(bench.watch_the_loop(began))
    await bench.play(config.moves, config.think_ms)
    seconds, cpu = time.perf_counter() - began, time.process_time() - cpu
    watcher.cancel()
    closed = [
        b.ws.close_code
        for a in bench.agents
        for b in [*a.browsers.values(), a.watching]
        if b is not None and b.ws is not None and b.ws.closed
    ]
    samples = bench.stats.samples
    web = [s.seconds for s in samples if s.kind == "web"]
    clicks = [s.seconds for s in samples if s.kind in ("bid", "play")]
    frames = sum(b.frames for a in bench.agents for b in a.browsers.values())
    errors = [str(e) for e in getattr(bench.env, "errors", [])][:5]
    web_summary = latency_summary(web)
    return {
        "tables": config.tables,
        "moves_per_table": config.moves,
        "think_ms": config.think_ms,
        "sockets_open": sockets,
        "sockets_seen_by_the_bot": live.open_sockets() if live is not None else 0,
        "sockets_closed_during_play": closed,
        "setup_seconds": round(setup, 1),
        "seconds": round(seconds, 1),
        "web_moves": len(web),
        "discord_clicks": len(clicks),
        "unanswered": bench.stats.unanswered,
        "refused": bench.stats.refused,
        "stuck_tables": bench.stats.stuck,
        "frames_per_web_player": round(frames / max(1, 3 * config.tables), 1),
        "cpu_ms_per_move": round(cpu * 1000 / max(1, len(web) + len(clicks)), 2),
        "web_round_trip_ms": web_summary,
        "discord_click_ms": latency_summary(clicks),
        "heartbeat_seconds": live.beats.interval if live is not None else None,
        # Its rounds in the run, the pings it sent to silent sockets and the sockets it closed.
        "heartbeat": (
            {"rounds": live.beats.rounds, "pings": live.beats.pings, "closed": live.beats.closed}
            if live is not None
            else None
        ),
        "target_p99_ms": TARGET_P99_MS,
        "met": bool(web) and web_summary["p99"] < TARGET_P99_MS,
        "bot_errors": errors,
        "web_refusals": sorted(set(bench.refusals))[:5],
        "loop_lags_over_200ms": sorted(bench.lags, key=lambda lag: -lag[1])[:10],
    }


def print_report(result: dict[str, Any]) -> None:
    web, click = result["web_round_trip_ms"], result["discord_click_ms"]
    print(
        f"{result['tables']} tables of four ({result['sockets_open']} sockets open), "
        f"{result['moves_per_table']} moves a table, think {result['think_ms']:g} ms: "
        f"{result['web_moves']} web moves and {result['discord_clicks']} Discord clicks in "
        f"{result['seconds']:.1f} s ({result['unanswered']} unanswered, "
        f"{result['refused']} refused); {result['cpu_ms_per_move']} ms CPU a move"
    )
    print(
        f"  web move -> own new view: median {web['median']:.1f} ms, p95 {web['p95']:.1f} ms, "
        f"p99 {web['p99']:.1f} ms, max {web['max']:.1f} ms "
        f"(target p99 < {result['target_p99_ms']:g} ms: {'met' if result['met'] else 'NOT met'})"
    )
    print(
        f"  Discord click -> answer: median {click['median']:.1f} ms, p95 {click['p95']:.1f} ms, "
        f"p99 {click['p99']:.1f} ms, max {click['max']:.1f} ms"
    )


def parse_args(argv: list[str] | None = None) -> tuple[Config, bool, bool, float | None]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=100, help="tables of four (100)")
    parser.add_argument("--moves", type=int, default=40, help="moves per table (40)")
    parser.add_argument("--think-ms", type=float, default=1000.0, help="mean think time (1000)")
    parser.add_argument("--max-hand", type=int, default=None, help="largest hand (52 // 4)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object")
    parser.add_argument(
        "--heartbeat",
        type=float,
        default=None,
        help="seconds of silence before the server pings a socket (the bot's: 20)",
    )
    parser.add_argument(
        "--stalls", action="store_true", help="print every thread's stack if the loop stops 2 s"
    )
    args = parser.parse_args(argv)
    config = Config(
        tables=args.tables,
        moves=args.moves,
        think_ms=args.think_ms,
        max_hand=args.max_hand,
        seed=args.seed,
        freeze_gc=True,
    )
    return config, args.json, args.stalls, args.heartbeat


def main(argv: list[str] | None = None) -> int:
    config, as_json, stalls, heartbeat = parse_args(argv)
    random.seed(config.seed)
    result = asyncio.run(run(config, stalls, heartbeat))
    if as_json:
        print(json.dumps(result))
    else:
        print_report(result)
    ok = result["unanswered"] == 0 and not result["stuck_tables"] and not result["bot_errors"]
    return 0 if ok else 1


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
