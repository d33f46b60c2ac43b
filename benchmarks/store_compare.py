"""The store of two checkouts side by side, in one run, alternating: a move's commit, the group
commit of many tables at once, leaderboard reads at 100,000 games, and ``migrate-to``, on
SQLite and on PostgreSQL. Written to compare the store before and after its move to
SQLAlchemy Core and Alembic (docs/benchmarks.md), it runs any two checkouts whose store has
the same operations.

    git worktree add /tmp/old 9de2b01
    .venv/bin/python benchmarks/results_reads.py --sizes 100000 --db /tmp/bench/r100k.sqlite3
    .venv/bin/python benchmarks/results_reads.py --sizes 10000 --db /tmp/bench/r10k.sqlite3
    .venv/bin/python benchmarks/store_compare.py --old /tmp/old --rounds 3 \\
        --board-db /tmp/bench/r100k.sqlite3 --copy-db /tmp/bench/r5k.sqlite3 \\
        --old-board-db /tmp/bench/r100k-v8.sqlite3 --old-copy-db /tmp/bench/r5k-v8.sqlite3

(The ``-v8`` copies are the same files taken back to schema version 8, revision 0009 undone by
hand, for a checkout that knows only eight.)
    .venv/bin/python benchmarks/store_compare.py --quick     # smoke run, this tree twice
    .venv/bin/python benchmarks/store_compare.py --old /tmp/old --rounds 6 --samples 200 \
        --boards-only --board-db /tmp/bench/r100k.sqlite3    # the reads alone, more samples

Each measurement runs in a child process of its checkout (``--child``), its figures printed as
one JSON line; the parent alternates old and new ``--rounds`` times and prints a table of
medians over the rounds, then one JSON document with every figure (milliseconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": round(statistics.median(values), 3), "p95": round(pct(values, 0.95), 3)}


# ============================================================================ the child


def store_class() -> Any:
    """The checkout's Store: in bot.store.store since the store was split by concern, in the
    package itself before."""
    try:
        from bot.store.store import Store
    except ImportError:
        from bot.store import Store  # type: ignore[attr-defined,no-redef]
    return Store


async def _games(store: Any, count: int, guild: int = 7) -> list[Any]:
    from bot.model import Seat, TableOptions

    games = []
    for index in range(count):
        game = await store.create_game(
            guild_id=guild,
            channel_id=guild * 100_000 + index,
            host_id=1,
            options=TableOptions(),
            max_seats=4,
            seats=[Seat(user_id=1, name="Asha"), Seat(user_id=2, name="Bilal")],
        )
        game.status = "running"
        games.append(game)
    return games


async def measure_moves(target: str, moves: int, tables: int, per_table: int) -> dict[str, Any]:
    """One table's moves one after the other, then ``tables`` tables' moves at once."""
    Store = store_class()
    record = json.dumps({"format": "kachuful-record/1", "actions": list(range(200))})
    store = await Store.open(target)
    try:
        [game] = await _games(store, 1, guild=1)
        alone = []
        for _ in range(moves):
            game.version += 1
            start = time.perf_counter()
            await store.save_game(game, record=record)
            alone.append((time.perf_counter() - start) * 1000)
        games = await _games(store, tables, guild=2)

        async def together() -> dict[str, float]:
            latencies: list[float] = []

            async def play(table: Any) -> None:
                for _ in range(per_table):
                    table.version += 1
                    start = time.perf_counter()
                    await store.save_game(table, record=record)
                    latencies.append((time.perf_counter() - start) * 1000)
                    await asyncio.sleep(random.random() * 0.002)

            start = time.perf_counter()
            await asyncio.gather(*(play(table) for table in games))
            wall = time.perf_counter() - start
            return summary(latencies) | {"moves_per_s": round(len(latencies) / wall, 1)}

        # The first pass pays what a process pays once (statements prepared, or a batch
        # statement of each size rendered); the second is the steady state.
        first = await together()
        steady = await together()
    finally:
        await store.close()
    return {"move_commit": summary(alone), "group_commit_first": first, "group_commit": steady}


async def measure_board(path: str, samples: int) -> dict[str, Any]:
    Store = store_class()
    rng = random.Random(5)
    store = await Store.open(path)
    try:
        reads = store.reads
        figures: dict[str, list[float]] = {}

        async def timed(name: str, call: Any) -> None:
            start = time.perf_counter()
            await call
            figures.setdefault(name, []).append((time.perf_counter() - start) * 1000)

        for _ in range(samples):
            viewer = rng.randint(1, 10_000)
            page = rng.randint(0, 900)
            await timed(
                "board_rating_server",
                reads.leaderboard(
                    guild_id=1, channel_id=100, scope="server", page=page, viewer_id=viewer
                ),
            )
            await timed(
                "board_wins_channel",
                reads.leaderboard(guild_id=1, channel_id=100 + page % 50, sort="wins", page=3),
            )
            await timed(
                "board_7d_server",
                reads.leaderboard(
                    guild_id=1, channel_id=100, scope="server", period="7d", viewer_id=viewer
                ),
            )
            await timed("stats", reads.player_stats(guild_id=1, user_id=viewer))
            await timed("history", reads.history(channel_id=100 + page % 50, page=page % 20))
    finally:
        await store.close()
    return {name: summary(values) for name, values in figures.items()}


async def measure_copy(source: str, url: str) -> dict[str, Any]:
    from bot.store.copy import migrate_to

    start = time.perf_counter()
    copied = await migrate_to(Path(source), url)
    return {
        "migrate_to_ms": round((time.perf_counter() - start) * 1000, 1),
        "rows": sum(table.rows for table in copied),
    }


async def child(args: argparse.Namespace) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    work = Path(args.work)
    sqlite = work / "moves.sqlite3"
    if not args.boards_only:
        figures["sqlite"] = await measure_moves(
            str(sqlite), args.moves, args.tables, args.per_table
        )
    if args.pg_url and not args.boards_only:
        figures["postgresql"] = await measure_moves(
            args.pg_url, args.moves, args.tables, args.per_table
        )
    if args.board_db:
        figures["board_100k"] = await measure_board(args.board_db, args.samples)
    if args.copy_db and args.copy_url:
        figures["migrate_to"] = await measure_copy(args.copy_db, args.copy_url)
    return figures


# ============================================================================ the parent


def run_child(
    tree: Path, args: argparse.Namespace, cluster: Any, *, old: bool = False
) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="store-compare-"))
    command = [
        sys.executable,
        str(HERE / "benchmarks" / "store_compare.py"),
        "--child",
        "--work",
        str(work),
        "--moves",
        str(args.moves),
        "--tables",
        str(args.tables),
        "--per-table",
        str(args.per_table),
        "--samples",
        str(args.samples),
        *(["--boards-only"] if args.boards_only else []),
    ]
    databases = []
    if cluster is not None:
        for flag in ("--pg-url", "--copy-url"):
            name = cluster.new_database()
            databases.append(name)
            command += [flag, cluster.url(name)]
    board_db = args.old_board_db if old and args.old_board_db else args.board_db
    copy_db = args.old_copy_db if old and args.old_copy_db else args.copy_db
    if board_db:
        command += ["--board-db", str(board_db)]
    if copy_db:
        command += ["--copy-db", str(copy_db)]
    environment = dict(os.environ, PYTHONPATH=str(tree))
    try:
        done = subprocess.run(
            command, cwd=tree, env=environment, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"the child on {tree} failed:\n{done.stderr[-3000:]}")
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        for name in databases:
            cluster.drop_database(name)


def flatten(figures: dict[str, Any], prefix: str = "") -> dict[str, float]:
    flat: dict[str, float] = {}
    for key, value in figures.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat |= flatten(value, name + ".")
        elif isinstance(value, int | float):
            flat[name] = float(value)
    return flat


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, default=None, help="the other checkout")
    parser.add_argument("--new", type=Path, default=HERE)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--per-table", type=int, default=15)
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--board-db", type=Path, default=None)
    parser.add_argument("--copy-db", type=Path, default=None)
    # The same databases at the old checkout's schema version, when the new one is newer.
    parser.add_argument("--old-board-db", type=Path, default=None)
    parser.add_argument("--old-copy-db", type=Path, default=None)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--quick", action="store_true", help="this tree twice, small sizes")
    parser.add_argument(
        "--boards-only", action="store_true", help="the board reads alone (no moves, no copy)"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--work", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--pg-url", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--copy-url", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(child(args))))
        return 0
    if args.quick:
        args.rounds, args.moves, args.tables, args.per_table, args.samples = 1, 20, 5, 3, 5
    trees = {"old": args.old or args.new, "new": args.new}
    cluster = None
    if not (args.no_postgres or args.boards_only):
        sys.path.insert(0, str(HERE))
        from tests.pg import start_cluster

        # With fsync and synchronous commits, as in production (the smoke run needs neither).
        cluster = start_cluster(durable=not args.quick)
    results: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    try:
        for round_number in range(args.rounds):
            order = ("old", "new") if round_number % 2 == 0 else ("new", "old")
            for label in order:
                figures = run_child(trees[label], args, cluster, old=label == "old")
                results[label].append(flatten(figures))
                print(f"round {round_number + 1} {label}: done", file=sys.stderr)
    finally:
        if cluster is not None:
            cluster.stop()
    keys = sorted(results["new"][0])
    print(f"{'figure':45} {'old':>10} {'new':>10} {'new/old':>8}")
    medians: dict[str, dict[str, float]] = {}
    for key in keys:
        old = statistics.median(run[key] for run in results["old"])
        new = statistics.median(run[key] for run in results["new"])
        medians[key] = {"old": old, "new": new}
        ratio = new / old if old else float("nan")
        print(f"{key:45} {old:10.3f} {new:10.3f} {ratio:8.2f}")
    print(json.dumps({"rounds": args.rounds, "medians": medians, "runs": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
