"""Bot processes holding different gateway shards play at once on one database; each is
SIGKILLed again and again while the others play on, and nothing is lost, doubled, posted
twice, or touched by a process that does not hold the server's shard.

Every process is a child of ``benchmarks/kill_loop.py`` (``--child --shard-count N
--shard-ids ...``): SimCord with the real bot, sharded (discord.py's AutoShardedBot on its
shards), on the shared database file; a server on every shard with ``--tables`` channels, made
with the same ids in every child. SimCord's gateway routes each server's events (commands,
clicks) to the shard the server is on, so a process hears only of its own shards' servers,
as on Discord; it plays the member of each of its own channels. Each process's simulated
Discord keeps the public messages of its servers across its restarts (kill_loop's journal,
one per process).

Process p holds shards [p*N/P, (p+1)*N/P). The parent kills the processes in turn, at
kill_loop's moments (start-up, random, right after a click, a post or a lobby). While a
process is down its servers' stored games must not change: the others leave them alone. Then
its next child restores them and plays on. At the end each process is killed once more and a
finishing child per process, all at once, plays every open game to the end. Then
kill_loop's checks (nothing lost, doubled or posted twice; results and leaderboards once),
and: every post of a game came from a process holding its server's shard; every server
finished games.

The processes share one SQLite file (WAL serves several processes of one machine); an
operator's settings refuse that (``KACHUFUL_SHARD_IDS`` on SQLite) and use PostgreSQL.

    .venv/bin/python benchmarks/shard_loop.py                 # 2 processes x 2 shards, 20 kills
    .venv/bin/python benchmarks/shard_loop.py --kills 100 --seed 3 --tables 2

Prints one JSON summary; exits 1 on any violation.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for folder in (REPO, REPO / "benchmarks"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from kill_loop import Run, check, choose, query, supervise  # noqa: E402

from bot.shards import shard_of  # noqa: E402


def lanes_of(shard_count: int, processes: int) -> list[list[int]]:
    """The shards of each process: contiguous, as even as can be."""
    return [
        list(range(p * shard_count // processes, (p + 1) * shard_count // processes))
        for p in range(processes)
    ]


def games_of(db: Path | str, shards: list[int], shard_count: int) -> dict[int, tuple[Any, ...]]:
    """The stored games of these shards' servers: id -> (version, status, settled)."""
    rows = query(db, "SELECT id, guild_id, version, status, settled FROM games", settled=True)
    return {row[0]: tuple(row[2:]) for row in rows if shard_of(int(row[1]), shard_count) in shards}


def prepare(db: Path | str) -> None:
    """The schema, before the processes start together (each would otherwise migrate)."""
    from bot.store.store import Store

    async def migrate() -> None:
        store = await Store.open(db)
        await store.close()

    asyncio.run(migrate())


def parent_shards(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    started = time.monotonic()
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="shard_loop_"))
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "kachuful.sqlite3"
    for stale in workdir.glob("kachuful.sqlite3*"):
        stale.unlink()
    # The tables are in PostgreSQL when --database-url is given (the children are told so by
    # kill_loop's Run, in their environment); the file's name still places their journals.
    target: Path | str = args.database_url or db
    prepare(target)
    lanes = lanes_of(args.shard_count, args.processes)
    log = open(workdir / "children.log", "wb")  # noqa: SIM115
    runs: list[list[dict[str, Any]]] = []
    lane_of_run: list[int] = []
    killed_runs: set[int] = set()
    violations: list[str] = []
    kills: Counter[int] = Counter()
    modes: Counter[str] = Counter()
    down_checks = 0
    current = [Run(args, db, log, shards) for shards in lanes]
    for run in current:
        run.go()
    pending = [Run(args, db, log, shards) for shards in lanes]  # importing meanwhile
    early_exit = None
    for turn in range(args.kills):
        lane = turn % len(lanes)
        plan = choose(rng, args.max_delay)
        events = supervise(current[lane], plan, timeout=args.max_delay * 4 + 5)
        runs.append(events)
        lane_of_run.append(lane)
        code = current[lane].process.returncode
        if code == -signal.SIGKILL:
            kills[lane] += 1
            modes[plan[0]] += 1
            killed_runs.add(len(runs) - 1)
        elif code != 0:
            early_exit = f"a child of shards {lanes[lane]} exited with {code}"
            break
        # This process is down; the others play on and must leave its servers' games alone.
        before = games_of(target, lanes[lane], args.shard_count)
        time.sleep(args.down_seconds)
        after = games_of(target, lanes[lane], args.shard_count)
        down_checks += 1
        changed = sorted(g for g in before.keys() | after.keys() if before.get(g) != after.get(g))
        if changed:
            violations.append(
                f"games {changed} of shards {lanes[lane]} changed while their process was down"
            )
        current[lane] = pending[lane]
        current[lane].go()
        pending[lane] = Run(args, db, log, lanes[lane])
    # The end: every process killed once more, then one finishing child each, all at once.
    for lane, run in enumerate(current):
        if run.kill():
            kills[lane] += 1
            killed_runs.add(len(runs))
        runs.append(run.drain())
        lane_of_run.append(lane)
    for run in pending:
        run.go("finish")
    deadline = time.monotonic() + args.finish_timeout
    for lane, run in enumerate(pending):
        try:
            run.process.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            run.kill()
            early_exit = early_exit or f"the final run of shards {lanes[lane]} did not finish"
        events = run.drain()
        runs.append(events)
        lane_of_run.append(lane)
        if run.process.returncode != 0:
            early_exit = early_exit or f"the final run of shards {lanes[lane]} failed"
        elif not any(e.get("ev") == "done" for e in events):
            early_exit = early_exit or f"the final run of shards {lanes[lane]} did not finish"
    log.close()
    with open(workdir / "events.jsonl", "w", encoding="utf-8") as out:
        for index, events in enumerate(runs):
            for event in events:
                line = {"run": index, "shards": lanes[lane_of_run[index]], **event}
                out.write(json.dumps(line) + "\n")

    summary, found = check(target, runs, killed_runs)
    violations += found
    if early_exit:
        violations.insert(0, early_exit)
    violations += wrong_shard_posts(target, runs, lane_of_run, lanes, args.shard_count)
    per_server = finished_per_server(target)
    if len(per_server) != args.shard_count or not all(per_server.values()):
        violations.append(f"finished games per server {per_server}: want every server")
    logged = (workdir / "children.log").read_text(encoding="utf-8", errors="replace")
    errors = [line for line in logged.splitlines() if line.startswith(("ERROR", "CRITICAL"))]
    tracebacks = logged.count("Traceback (most recent call last)")
    if errors or tracebacks:
        violations.append(f"the bot logged {len(errors)} errors, {tracebacks} tracebacks")
    summary.update(
        processes=args.processes,
        shard_count=args.shard_count,
        shards_per_process=lanes,
        kills=sum(kills.values()),
        kills_per_process=[kills[lane] for lane in range(len(lanes))],
        kill_modes=dict(modes),
        checks_while_down=down_checks,
        finished_per_server=list(per_server.values()),
        warnings_logged=sum(1 for line in logged.splitlines() if line.startswith("WARNING")),
        child_runs=len(runs),
        seconds=round(time.monotonic() - started, 1),
        seed=args.seed,
        tables_per_server=args.tables,
        workdir=str(workdir),
        violations=violations[:50],
        violation_count=len(violations),
        ok=not violations,
    )
    print(json.dumps(summary, indent=2))
    return 0 if not violations else 1


def wrong_shard_posts(
    db: Path | str,
    runs: list[list[dict[str, Any]]],
    lane_of_run: list[int],
    lanes: list[list[int]],
    shard_count: int,
) -> list[str]:
    """A post of a game by a process that does not hold its server's shard."""
    guild_of = {row[0]: row[1] for row in query(db, "SELECT id, guild_id FROM games")}
    found = []
    for index, events in enumerate(runs):
        shards = lanes[lane_of_run[index]]
        for event in events:
            game = event.get("game")
            if event.get("ev") != "post" or game not in guild_of:
                continue
            if shard_of(int(guild_of[game]), shard_count) not in shards:
                found.append(f"game {game} posted by the process of shards {shards}")
    return found


def finished_per_server(db: Path | str) -> dict[int, int]:
    rows = query(
        db,
        "SELECT guild_id, SUM(CASE WHEN status = 'finished' THEN 1 ELSE 0 END) FROM games"
        " GROUP BY guild_id ORDER BY 1",
    )
    return {int(guild): int(count) for guild, count in rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--shard-count", type=int, default=4)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tables", type=int, default=1, help="channels with a table per server")
    parser.add_argument("--max-hand", type=int, default=2)
    parser.add_argument("--games", type=int, default=0, help="games per channel (0: no limit)")
    parser.add_argument("--max-delay", type=float, default=1.5)
    parser.add_argument(
        "--down-seconds", type=float, default=0.3, help="how long a killed process stays down"
    )
    parser.add_argument("--finish-timeout", type=float, default=120.0)
    parser.add_argument("--workdir", default=None)
    parser.add_argument(
        "--database-url", default=None, help="an empty PostgreSQL database (default: a SQLite file)"
    )
    args = parser.parse_args()
    if not 1 <= args.processes <= args.shard_count:
        parser.error("--processes must be between 1 and --shard-count")
    # What kill_loop's Run passes on to each child.
    args.computer_workers, args.fault = 0, None
    return parent_shards(args)


if __name__ == "__main__":
    sys.exit(main())
