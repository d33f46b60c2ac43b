"""Results reads at scale: leaderboard, player statistics and history pages against a database
of finished 4-player games, a move committed while reads run, and the score chart.

The database is made by the bot's own code: ``Store.open`` (every migration), then for each
game the rows ``Store.save_game`` writes (the game with a real 25-deal record, its results)
and :func:`bot.store.results.apply_finished_game`, the function the finish transaction calls
(aggregates, ratings, deal figures), 1,000 games a transaction. To build 100,000 games in
minutes rather than hours it runs that function (synchronous, on a SQLAlchemy connection)
on a plain ``sqlite3`` connection under SQLAlchemy's synchronous engine (same SQL, same order;
no thread hop per statement).
Games finish one every 315 seconds (100,000 games a year), in 50 channels, among ``--players``
players of one server; each size is measured at the moment its last game finished, so the
30- and 7-day boards hold a month's and a week's games once there are that many.

At each size (``--sizes``) it times, on the store's read-only connection:

- ``board``: a server leaderboard page (rating, all time), random pages, a viewer not on it
  (so their own row is looked up too), and the other sorts, and every sort of the 30- and
  7-day periods (read from the kept period totals; ``_cold``: after dropping what the reader
  keeps, as the afresh sums of earlier versions were kept; the kept totals need nothing kept);
- ``stats``: a random player's statistics;
- ``history``: a random channel's history page.

Then, at the largest size, a move (``save_game`` of a running game, its record and a version
bump: what every bid or card costs) is timed alone and while reads run back to back beside
it; the period windows are moved on by a day five times (``Store.expire_periods``: what the
day's first finished game, or the first read of the day, costs the writer); and a 25-deal,
4-player chart is drawn with ``score_chart`` (in a worker thread, then in
the chart process) while a ticker measures how late the event loop runs meanwhile.

    .venv/bin/python benchmarks/results_reads.py            # 1,000 / 10,000 / 100,000 games
    .venv/bin/python benchmarks/results_reads.py --quick    # smoke run, a few seconds
    .venv/bin/python benchmarks/results_reads.py --chart-only --charts 100

The last line of output is one JSON document with every figure (milliseconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot import rating  # noqa: E402
from bot.model import Seat, TableOptions  # noqa: E402
from bot.render.chart import (  # noqa: E402
    cumulative_scores,
    score_chart,
    shutdown_chart_process,
)
from bot.store.periods import expire_periods  # noqa: E402
from bot.store.results import FinishedSeat, apply_finished_game  # noqa: E402
from bot.store.store import Store  # noqa: E402
from bot.store.table_json import seat_to_json  # noqa: E402
from kachuful_core import Game, Rules, record_json, score_summary  # noqa: E402
from kachuful_core.players import HeuristicPlayer, act  # noqa: E402

GUILD = 1
CHANNELS = 50
START = datetime(2025, 1, 1, tzinfo=UTC)
INTERVAL = timedelta(seconds=365 * 24 * 3600 / 100_000)


def finished_at(game_id: int) -> datetime:
    return START + game_id * INTERVAL


def played_game(seed: int) -> tuple[str, list[int], list[tuple[Any, ...]], list[list[int]]]:
    """A real 4-player 25-deal game: record text, totals, deal lines per seat, deal scores."""
    game = Game.new(Rules(players=4), f"bench-{seed}", players=["A", "B", "C", "D"])
    bots = [HeuristicPlayer(seed=seed * 10 + i) for i in range(4)]
    while game.turn is not None:
        act(game, game.turn, bots[game.turn])
    from bot.results import deal_lines_from_summary

    lines = deal_lines_from_summary(score_summary(game), 4)
    return record_json(game), list(game.totals), lines, [list(s) for s in game.deal_scores]


async def build(path: Path, start: int, stop: int, players: int, rng: random.Random) -> None:
    """Add finished games start+1 .. stop to the database at ``path``."""
    templates = [played_game(seed) for seed in range(8)]
    engine = sa.create_engine(
        sa.URL.create("sqlite", database=str(path)),
        isolation_level="AUTOCOMMIT",
        poolclass=sa.NullPool,
    )
    conn = engine.connect()
    # The same connection under both: the rows are inserted through sqlite3 itself, the
    # aggregates by the store's own (synchronous) functions through SQLAlchemy.
    db: sqlite3.Connection = conn.connection.driver_connection  # type: ignore[assignment]
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = NORMAL")
    batch = 1000
    for first in range(start, stop, batch):
        db.execute("BEGIN IMMEDIATE")
        for game_id in range(first + 1, min(first + batch, stop) + 1):
            record, totals, lines, _ = templates[game_id % len(templates)]
            when = finished_at(game_id).isoformat()
            users = rng.sample(range(1, players + 1), 4)
            computer = rng.random() < 0.2  # one game in five has a computer seat
            seat_users: list[int | None] = [*users[:3], None] if computer else list(users)
            channel = 100 + game_id % CHANNELS
            seats = [
                Seat(user_id=u, name=f"Player {u}" if u is not None else "Robo 🤖")
                for u in seat_users
            ]
            db.execute(
                "INSERT INTO games (id, guild_id, channel_id, host_id, status, rules, max_seats,"
                " seed, record, seats, message_id, version, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, 'finished', '{}', 4, ?, ?, ?, ?, 830, ?, ?)",
                (
                    game_id,
                    GUILD,
                    channel,
                    users[0],
                    f"seed-{game_id}",
                    record,
                    json.dumps([seat_to_json(s) for s in seats]),
                    10**12 + game_id,
                    when,
                    when,
                ),
            )
            best = max(totals)
            places = rating.places(totals)
            finished = [
                FinishedSeat(
                    seat=s,
                    user_id=seat_users[s],
                    name=seats[s].name,
                    level=None if seat_users[s] is not None else "heuristic",
                    score=totals[s],
                    won=totals[s] == best,
                    place=places[s],
                    bids_exact=sum(1 for d in lines[s] if d.bid == d.tricks),
                    bids=len(lines[s]),
                    deals=lines[s],
                )
                for s in range(4)
            ]
            db.executemany(
                "INSERT INTO results (game_id, seat, guild_id, channel_id, user_id, score, won,"
                " bids_exact, bids, finished_at, name, level, place)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        game_id,
                        f.seat,
                        GUILD,
                        channel,
                        f.user_id,
                        f.score,
                        int(f.won),
                        f.bids_exact,
                        f.bids,
                        when,
                        f.name,
                        f.level,
                        f.place,
                    )
                    for f in finished
                ],
            )
            # As Store.save_game: the windows moved on at the day's first game (here in the
            # batch's transaction; the store commits it on its own).
            expire_periods(conn, GUILD, when[:10])
            apply_finished_game(
                conn,
                game_id=game_id,
                guild_id=GUILD,
                channel_id=channel,
                finished_at=when,
                seats=finished,
            )
        db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    engine.dispose()


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median": round(statistics.median(ordered), 3),
        "p95": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 3),
        "max": round(ordered[-1], 3),
    }


async def timed(samples: int, call: Callable[[int], Awaitable[Any]]) -> dict[str, float]:
    times = []
    for index in range(samples):
        start = time.perf_counter()
        await call(index)
        times.append((time.perf_counter() - start) * 1000)
    return summary(times)


async def measure_reads(
    store: Store, players: int, samples: int, rng: random.Random, now: datetime
) -> dict[str, Any]:
    reads = store.reads
    board_pages = max(1, players // 10)

    def board(sort: str, period: str, cold: bool = False) -> Callable[[int], Awaitable[Any]]:
        async def call(_: int) -> Any:
            if cold:
                # As after a finished game: the period is summed again.
                await reads.forget_rankings()
            return await reads.leaderboard(
                guild_id=GUILD,
                channel_id=100,
                scope="server",
                period=period,  # type: ignore[arg-type]
                sort=sort,  # type: ignore[arg-type]
                page=rng.randrange(board_pages),
                viewer_id=rng.randrange(1, players + 1),
                now=now,
            )

        return call

    async def stats(_: int) -> Any:
        return await reads.player_stats(guild_id=GUILD, user_id=rng.randrange(1, players + 1))

    async def history(_: int) -> Any:
        return await reads.history(channel_id=100 + rng.randrange(CHANNELS), page=rng.randrange(5))

    figures: dict[str, Any] = {
        "board_rating_all": await timed(samples, board("rating", "all")),
        "board_wins_all": await timed(samples, board("wins", "all")),
        "board_average_all": await timed(samples, board("average", "all")),
        "board_exact_all": await timed(samples, board("exact", "all")),
    }
    for period in ("30d", "7d"):
        for sort in ("rating", "wins", "average", "exact"):
            figures[f"board_{sort}_{period}_cold"] = await timed(
                samples, board(sort, period, cold=True)
            )
        figures[f"board_rating_{period}"] = await timed(samples, board("rating", period))
    figures["stats"] = await timed(samples, stats)
    figures["history"] = await timed(samples, history)
    return figures


async def measure_expiry(path: Path, now: datetime, days: int = 5) -> dict[str, Any]:
    """The writer's cost of moving both period windows on by one day (one day's rows leave
    each), ``days`` days in a row, and the period rows kept: the SQL of
    ``Store.expire_periods`` in one transaction on a connection of its own, rolled back (the
    database is left as built, to be measured again with ``--db``)."""
    engine = sa.create_engine(
        sa.URL.create("sqlite", database=str(path)),
        isolation_level="AUTOCOMMIT",
        poolclass=sa.NullPool,
    )
    try:
        with engine.connect() as conn:
            query = sa.text("SELECT days, COUNT(*) FROM period_totals GROUP BY days")
            rows = conn.execute(query).all()
            times = []
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            for step in range(1, days + 1):
                today = (now + timedelta(days=step)).date().isoformat()
                start = time.perf_counter()
                expire_periods(conn, GUILD, today)
                times.append((time.perf_counter() - start) * 1000)
            conn.exec_driver_sql("ROLLBACK")
    finally:
        engine.dispose()
    return {
        "expire_one_day_ms": summary(times),
        "period_rows": {str(days): count for days, count in rows},
    }


async def measure_moves(store: Store, moves: int, players: int, now: datetime) -> dict[str, Any]:
    """A move's commit alone, and while the heaviest reads run back to back beside it."""
    record, _, _, _ = played_game(99)
    row = await store.create_game(
        guild_id=GUILD,
        channel_id=random.randrange(10**6, 10**9),  # a channel of its own on every run
        host_id=1,
        options=TableOptions(),
        max_seats=4,
        seats=[Seat(user_id=u, name=f"Player {u}") for u in (1, 2, 3, 4)],
    )
    row.status = "running"

    reading = 0  # reads in flight on the read-only connection

    async def move() -> tuple[float, bool]:
        row.version += 1
        overlapped = reading > 0
        start = time.perf_counter()
        await store.save_game(row, record=record)
        return (time.perf_counter() - start) * 1000, overlapped or reading > 0

    async def moves_spaced() -> list[tuple[float, bool]]:
        # Moves a few milliseconds apart, as a busy bot's tables make them.
        done = []
        for _ in range(moves):
            done.append(await move())
            await asyncio.sleep(0.003)
        return done

    alone = [ms for ms, _ in await moves_spaced()]
    stop = asyncio.Event()
    done_reads = 0

    async def reader() -> None:
        nonlocal done_reads, reading
        rng = random.Random(5)
        while not stop.is_set():
            reading += 1
            try:
                # The heaviest read: a period board summed afresh (as after a finished game).
                await store.reads.forget_rankings()
                await store.reads.leaderboard(
                    guild_id=GUILD,
                    channel_id=100,
                    scope="server",
                    period="30d",
                    sort="rating",
                    page=rng.randrange(max(1, players // 10)),
                    viewer_id=rng.randrange(1, players + 1),
                    now=now,
                )
                await store.reads.player_stats(
                    guild_id=GUILD, user_id=rng.randrange(1, players + 1)
                )
                await store.reads.history(channel_id=100 + rng.randrange(CHANNELS))
            finally:
                reading -= 1
            done_reads += 3

    task = asyncio.create_task(reader())
    await asyncio.sleep(0.01)
    beside = await moves_spaced()
    stop.set()
    await task
    overlapped = [ms for ms, during in beside if during]
    return {
        "move_alone": summary(alone),
        "move_while_a_read_runs": summary(overlapped or [0.0]),
        "moves_overlapping_a_read": len(overlapped),
        "reads_meanwhile": done_reads,
    }


async def measure_chart(repeats: int) -> dict[str, Any]:
    """A 25-deal chart drawn on the chart thread and in the chart process, with a ticker that
    measures how late the event loop runs meanwhile (what every table would wait)."""
    _, _, _, deal_scores = played_game(7)
    cumulative = cumulative_scores(deal_scores, 4)
    names = ["Asha", "Bilal", "Chen", "Robo 🤖"]
    out: dict[str, Any] = {"deals": len(deal_scores)}
    for mode, in_process in (("thread", False), ("process", True)):
        # The first chart: matplotlib imported (in the chart thread, or the process started),
        # the figure made, the fonts loaded.
        start = time.perf_counter()
        await score_chart(names, cumulative, in_process=in_process)
        out[f"chart_{mode}_first_ms"] = round((time.perf_counter() - start) * 1000, 1)
        times = []
        lags = []
        for _ in range(repeats):
            drawn = asyncio.Event()

            async def ticker(drawn: asyncio.Event = drawn) -> float:
                late = 0.0
                while not drawn.is_set():
                    before = time.perf_counter()
                    await asyncio.sleep(0.005)
                    late = max(late, time.perf_counter() - before - 0.005)
                return late

            tick = asyncio.create_task(ticker())
            start = time.perf_counter()
            png = await score_chart(names, cumulative, in_process=in_process)
            times.append((time.perf_counter() - start) * 1000)
            drawn.set()
            lags.append(await tick * 1000)
        out[f"chart_{mode}_ms"] = summary(times)
        out[f"chart_{mode}_event_loop_late_ms"] = summary(lags)
        out["png_bytes"] = len(png)
    shutdown_chart_process()
    return out


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    parser.add_argument("--sizes", type=str, default="1000,10000,100000", help="game counts")
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=200, help="timed reads per figure")
    parser.add_argument("--moves", type=int, default=300, help="timed moves, alone and beside")
    parser.add_argument("--db", type=Path, default=None, help="database file (default: temp)")
    parser.add_argument("--chart-only", action="store_true", help="only the chart figures")
    parser.add_argument("--charts", type=int, default=20, help="timed charts per mode")
    args = parser.parse_args(argv)
    if args.chart_only:
        return await measure_chart(args.charts)
    if args.quick:
        args.sizes, args.players, args.samples, args.moves = "200,600", 300, 8, 30
    sizes = sorted(int(part) for part in args.sizes.split(","))
    folder = tempfile.TemporaryDirectory()
    path = args.db or Path(folder.name) / "results.sqlite3"
    rng = random.Random(1)
    store = await Store.open(path)
    await store.close()
    result: dict[str, Any] = {"players": args.players, "sizes": {}}
    # A database given with --db and already built that far is measured as it is.
    with sqlite3.connect(path) as raw:
        built = int(
            raw.execute("SELECT COUNT(*) FROM games WHERE status = 'finished'").fetchone()[0]
        )
    sizes = [size for size in sizes if size >= built]
    for size in sizes:
        start = time.perf_counter()
        await build(path, built, size, args.players, rng)
        built = size
        build_s = time.perf_counter() - start
        store = await Store.open(path)
        try:
            now = finished_at(size) + timedelta(seconds=1)
            figures = await measure_reads(
                store, args.players, args.samples, random.Random(size), now
            )
            figures["build_seconds"] = round(build_s, 1)
            figures["db_mb"] = round(path.stat().st_size / 2**20, 1)
            if size == sizes[-1]:
                figures.update(await measure_moves(store, args.moves, args.players, now))
                figures.update(await measure_expiry(path, now))
        finally:
            await store.close()
        result["sizes"][str(size)] = figures
        print(f"{size} games: {json.dumps(figures)}", file=sys.stderr)
    result.update(await measure_chart(3 if args.quick else args.charts))
    folder.cleanup()
    return result


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
