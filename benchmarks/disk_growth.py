"""Disk growth: how many bytes each finished game adds to the database, on SQLite and on
PostgreSQL, and which tables hold them.

The real bot in SimCord (as the tests run it) plays ``--games`` whole games one after the
other (a channel each), four members clicking the first enabled bid or card (the deals are
fixed by the seed). Before the first game (the bot started, migrations run) and after the
last, the database is measured:

- as it is on disk: the SQLite file once the store is closed (its WAL checkpointed), and
  PostgreSQL's ``pg_database_size`` (autovacuum running as in production);
- its live data: the same after ``VACUUM`` (SQLite) / ``VACUUM FULL`` (PostgreSQL), which
  drops the free pages that updating a game's row after every move leaves behind;

and each table's share (SQLite's ``dbstat``, PostgreSQL's ``pg_total_relation_size``, both
after the vacuum). Bytes per game = (after - before) / games. What an operator sizes disks and
backups by: a game's row keeps its whole record (every deal and card), its players' results
and the delivered-posts bookkeeping of its public messages.

PostgreSQL is a throw-away cluster from Debian's binaries (tests/pg.py), removed at the end.

    .venv/bin/python benchmarks/disk_growth.py                  # 10 full 4-player games each
    .venv/bin/python benchmarks/disk_growth.py --quick          # smoke: 1 quick game each
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import itertools
import json
import logging
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
import simcord  # noqa: E402

from bot.client import KachufulBot  # noqa: E402
from bot.config import Settings  # noqa: E402
from tests.bot.helpers import start_game  # noqa: E402

FAKE_TOKEN = "MTAxMjM0NTY3ODkwMTIzNDU2Nw.GabcdE.abcdefghijklmnopqrstuvwxyz0123456789"
PLAYERS = ("asha", "bilal", "chen", "dev")


def new_bot(folder: Path, url: str | None) -> KachufulBot:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=FAKE_TOKEN,
        db_path=folder / "kachuful.sqlite3",
        database_url=url,
        sync_global=True,
        bot_delay_seconds=0,
        turn_seconds=3600,
        lobby_timeout_seconds=900,
        computer_workers=0,
    )
    count = itertools.count()

    def seed() -> str:
        return hashlib.sha256(f"disk-growth/{next(count)}".encode()).hexdigest()

    return KachufulBot(settings, new_seed=seed, post_limit=10_000, hand_delay=0.0)


async def play(bot: KachufulBot, games: int, length: str) -> tuple[int, float]:
    """Plays ``games`` whole games; returns the moves made and the seconds it took."""
    moves = 0
    started = time.perf_counter()
    async with simcord.run(bot) as env:
        guild = env.create_guild("Kachuful Club")
        members = [guild.add_member(env.create_user(name)) for name in PLAYERS]
        for number in range(games):  # a channel per game: its lobby is the channel's first post
            channel = guild.create_text_channel(f"cards-{number}")
            table = await start_game(env, channel, members, length=length)
            game_id = table.session.row.id
            await table.play_to_end()
            stored = await bot.store.load_game(game_id)
            assert stored is not None and stored.status == "finished", "a game did not finish"
            assert stored.record is not None
            moves += sum(
                len(deal["bids"]) + sum(len(trick) for trick in deal["tricks"])
                for deal in stored.record["deals"]
            )
    await bot.store.close()
    return moves, time.perf_counter() - started


# ---- measuring --------------------------------------------------------------------------------


def sqlite_sizes(path: Path) -> dict[str, Any]:
    on_disk = sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("VACUUM")
        live = (
            db.execute("PRAGMA page_count").fetchone()[0]
            * db.execute("PRAGMA page_size").fetchone()[0]
        )
        try:
            rows = db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall()
        except sqlite3.OperationalError:  # built without the dbstat table
            rows = []
    return {"on_disk": on_disk, "live": live, "tables": {str(n): int(s) for n, s in rows}}


def postgres_sizes(url: str) -> dict[str, Any]:
    with psycopg.connect(url, autocommit=True) as db:
        on_disk = db.execute("SELECT pg_database_size(current_database())").fetchone()
        db.execute("VACUUM FULL")
        live = db.execute("SELECT pg_database_size(current_database())").fetchone()
        rows = db.execute(
            "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c"
            " WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace"
        ).fetchall()
    assert on_disk is not None and live is not None
    return {
        "on_disk": int(on_disk[0]),
        "live": int(live[0]),
        "tables": {str(n): int(s) for n, s in rows},
    }


def growth(before: dict[str, Any], after: dict[str, Any], games: int) -> dict[str, Any]:
    tables = {
        name: (after["tables"].get(name, 0) - before["tables"].get(name, 0)) / games
        for name in after["tables"]
    }
    # Both from the empty database's live size: "before" is compacted once, so its own
    # on-disk size (the migrations' dead rows) is no baseline.
    return {
        "bytes_per_game_on_disk": (after["on_disk"] - before["live"]) / games,
        "bytes_per_game_live": (after["live"] - before["live"]) / games,
        "empty_live_bytes": before["live"],
        "tables_per_game": {n: round(b) for n, b in sorted(tables.items(), key=lambda i: -i[1])},
    }


async def measure_sqlite(games: int, length: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="kachuful-disk-") as tmp:
        folder = Path(tmp)
        path = folder / "kachuful.sqlite3"
        empty = new_bot(folder, None)
        await play(empty, 0, length)  # migrations only
        before = sqlite_sizes(path)
        moves, seconds = await play(new_bot(folder, None), games, length)
        after = sqlite_sizes(path)
    return {"backend": "sqlite", "moves": moves, "seconds": round(seconds, 1)} | growth(
        before, after, games
    )


async def measure_postgres(games: int, length: str) -> dict[str, Any]:
    from tests.pg import start_cluster

    cluster = start_cluster(durable=True)
    try:
        url = cluster.url(cluster.new_database())
        with tempfile.TemporaryDirectory(prefix="kachuful-disk-") as tmp:
            await play(new_bot(Path(tmp), url), 0, length)
            before = postgres_sizes(url)
            moves, seconds = await play(new_bot(Path(tmp), url), games, length)
            after = postgres_sizes(url)
    finally:
        cluster.stop()
    return {"backend": "postgresql", "moves": moves, "seconds": round(seconds, 1)} | growth(
        before, after, games
    )


def report(result: dict[str, Any]) -> str:
    lines = [
        f"{result['games']} games of {len(PLAYERS)} players, length {result['length']}",
        "",
        "| store | bytes per game on disk | live bytes per game | largest tables (live) |",
        "|---|---|---|---|",
    ]
    for run in result["runs"]:
        tables = ", ".join(f"{n} {b:,}" for n, b in list(run["tables_per_game"].items())[:4])
        lines.append(
            f"| {run['backend']} | {run['bytes_per_game_on_disk']:,.0f} "
            f"| {run['bytes_per_game_live']:,.0f} | {tables} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--length", default="full", choices=("quick", "classic", "full"))
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--quick", action="store_true", help="1 quick game per store")
    parser.add_argument("--json-out", help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.length = 1, "quick"
    logging.basicConfig(level=logging.WARNING)
    runs = []
    if args.backend in ("sqlite", "both"):
        runs.append(asyncio.run(measure_sqlite(args.games, args.length)))
    if args.backend in ("postgresql", "both"):
        runs.append(asyncio.run(measure_postgres(args.games, args.length)))
    result = {
        "games": args.games,
        "length": args.length,
        "runs": runs,
        "command": " ".join(["benchmarks/disk_growth.py", *sys.argv[1:]]),
    }
    print(report(result))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
