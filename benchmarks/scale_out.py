"""Scale-out: the same load on one bot process on SQLite, and on 2 and 4 processes over one
PostgreSQL, side by side.

Each configuration runs ``benchmarks/bot_load.py`` three times (fresh processes and a fresh
database each time):

- saturation: ``--sat-tables`` tables in total, ``--think-ms 0`` (every table always has a
  click waiting): total interactions a second is the configuration's capacity, and CPU per
  interaction is measured here;
- ``--think-ms`` (a player's pause before a click, 3 s on average by default) with 100 and
  with 500 tables in total: the click-to-answer p99 at a load players make.

With K processes, every process creates the same K guilds with the same channels in the same
order (SimCord's ids are deterministic; the run checks that every process saw the same ids), so
their tables never share a channel or a server in the database, and plays the tables of its own
guild: the tables are split evenly. The K processes are started together; each opens its
tables, then waits at a barrier (a file per process in a shared folder) until all have, so the
timed phases start within a few milliseconds of each other. Totals are over all processes:
interactions a second is all their interactions over the span from the first start to the
last end of a timed phase, and percentiles are over all their clicks together.

CPU per interaction is split: the bot processes' own CPU time over their timed phases (each
runs its simulated Discord in the same process, so this includes SimCord's work and overstates
the bot's), and PostgreSQL's (the server and its backends, from /proc) over the span from the
first timed phase's start to the last one's end. The SQLite configuration has no server: its
store's work is in the process's own figure.

``--standin`` measures the same loads the way the issue asked: the bots are real
``python -m bot`` processes with Discord gateway shards (KACHUFUL_SHARD_COUNT/IDS): 1 process
unsharded on a SQLite file, and ``--pg-shards`` (2x2 and 4x1: 2 processes of 2 shards, 4 of 1)
on one PostgreSQL, against a stand-in Discord in a process of its own with the players in it
(``benchmarks/discord_standin.py``, one per run, which starts the bots). The bots' CPU is then
the bots' alone; the stand-in's (with the players') is shown apart, and PostgreSQL's as above.
The stand-in's figures are over its timed phase (files ``ready-0`` and ``stopped-0`` in the
barrier folder). Unlike the in-process runs, the bots run with production pacing (5 new
messages per channel per 5 s, a watching player's hand redrawn at most every few seconds) and
their own random deals.

PostgreSQL is a throw-away cluster made with Debian's binaries in a temporary folder, listening
on a unix socket only (as the tests' ``tests/pg.py``), with fsync and synchronous commits as in
production (``--fast-pg`` turns them off), and removed at the end. The SQLite file is in a
temporary folder, with the store's own settings (WAL, synchronous NORMAL).

    .venv/bin/python benchmarks/scale_out.py                     # the measurement, ~16 min
    .venv/bin/python benchmarks/scale_out.py --quick --json-out /tmp/s.json   # smoke, < 60 s
    .venv/bin/python benchmarks/scale_out.py --standin --json-out s.json   # real processes
    .venv/bin/python benchmarks/scale_out.py --standin --quick --sat-moves 20  # smoke, ~40 s

Prints a Markdown table; ``--json-out`` writes every run's figures. Most of the time is the
opening of 500 tables in one process (about 6 minutes on 2 cores: each opening goes through
SimCord's settle, whose cost grows with the tables already running); the timed phases are
short.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BOT_LOAD = ROOT / "benchmarks" / "bot_load.py"
STANDIN = ROOT / "benchmarks" / "discord_standin.py"
for _path in (str(ROOT), str(ROOT / "benchmarks")):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from bot_load import latency_summary  # noqa: E402

RUN_TIMEOUT = 900.0  # seconds for one run's processes to finish


@dataclass(frozen=True)
class Setup:
    """One configuration: K processes on a backend."""

    backend: str  # "sqlite" or "postgresql"
    processes: int
    shards_per_process: int = 0  # --standin: gateway shards per process (0: the old run)

    @property
    def name(self) -> str:
        if self.backend == "sqlite":
            return f"{self.processes} process, SQLite file"
        if self.shards_per_process:
            return (
                f"{self.processes} processes x {self.shards_per_process} "
                f"shard{'s' if self.shards_per_process > 1 else ''}, one PostgreSQL"
            )
        return f"{self.processes} processes, one PostgreSQL"


@dataclass(frozen=True)
class Load:
    """One run's load, in total over the processes."""

    label: str  # "saturation", "tables_100", ...
    tables: int
    moves: int
    think_ms: float


# ---- PostgreSQL's CPU time ---------------------------------------------------------------------


def _ticks(pid: int, children_too: bool) -> int:
    """utime + stime of a process (and, for the server, of its reaped children), in ticks."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    # fields[0] is the state (field 3 of proc(5)): utime is field 14, so fields[11].
    own = int(fields[11]) + int(fields[12])
    return own + (int(fields[13]) + int(fields[14]) if children_too else 0)


def postgres_cpu_seconds(postmaster: int) -> float:
    """CPU seconds the PostgreSQL server has used so far: the postmaster with the children it
    has reaped, and its live children (the backends serving the bots' connections, the WAL
    writer, the checkpointer, ...)."""
    total = _ticks(postmaster, True)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == postmaster:
            total += _ticks(int(entry), False)
    return total / os.sysconf("SC_CLK_TCK")


class ServerCpu:
    """Reads PostgreSQL's CPU time when every process has reached its timed phase ("ready"
    files in the barrier folder) and when every one has stopped ("stopped" files)."""

    def __init__(self, postmaster: int | None, barrier: Path, processes: int) -> None:
        self.postmaster = postmaster
        self.barrier = barrier
        self.processes = processes
        self.readings: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> ServerCpu:
        if self.postmaster is not None:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _all(self, name: str) -> bool:
        return all((self.barrier / f"{name}-{i}").exists() for i in range(self.processes))

    def _watch(self) -> None:
        assert self.postmaster is not None
        for name in ("ready", "stopped"):
            while not self._stop.is_set() and not self._all(name):
                time.sleep(0.02)
            if self._stop.is_set():
                return
            self.readings[name] = postgres_cpu_seconds(self.postmaster)

    @property
    def seconds(self) -> float | None:
        if "ready" in self.readings and "stopped" in self.readings:
            return self.readings["stopped"] - self.readings["ready"]
        return None


# ---- one run ---------------------------------------------------------------------------------


def _new_run(
    setup: Setup, load: Load, cluster: Any, folder: Path
) -> tuple[Path, Path, str | None, str | None]:
    """A run's folder and its barrier folder, and on PostgreSQL a new database (name, URL)."""
    work = Path(tempfile.mkdtemp(prefix=f"{load.label}-", dir=folder))
    barrier = work / "barrier"
    barrier.mkdir()
    if setup.backend != "postgresql":
        return work, barrier, None, None
    database = cluster.new_database()
    return work, barrier, database, cluster.url(database)


def run_load(setup: Setup, load: Load, *, cluster: Any, seed: int, folder: Path) -> dict[str, Any]:
    """Start the setup's processes together on a new database, wait for them, and sum up."""
    work, barrier, database, url = _new_run(setup, load, cluster, folder)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(work)}
    env.pop("KACHUFUL_DATABASE_URL", None)
    children: list[subprocess.Popen[str]] = []
    outputs: list[tuple[str, str]] = []
    started = time.perf_counter()
    try:
        postmaster = _postmaster(cluster) if url is not None else None
        with ServerCpu(postmaster, barrier, setup.processes) as server:
            for index in range(setup.processes):
                command = [
                    sys.executable,
                    str(BOT_LOAD),
                    *("--tables", str(load.tables), "--moves", str(load.moves)),
                    *("--think-ms", f"{load.think_ms:g}", "--seed", str(seed)),
                    *("--processes", str(setup.processes), "--process-index", str(index)),
                    *("--barrier", str(barrier), "--samples", str(work / f"samples-{index}.csv")),
                    "--json",
                ]
                if url is not None:
                    command += ["--database-url", url]
                children.append(
                    subprocess.Popen(
                        command,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        text=True,
                        env=env,
                        cwd=ROOT,
                    )
                )
            outputs = _wait_all(children)
        server_seconds = server.seconds
    finally:
        for child in children:  # only if something went wrong: they have ended otherwise
            if child.poll() is None:
                child.kill()
                child.wait()
        if database is not None:
            with contextlib.suppress(Exception):
                cluster.drop_database(database)
    wall = time.perf_counter() - started
    return summarise(setup, load, children, outputs, work, server_seconds, wall)


def _postmaster(cluster: Any) -> int | None:
    """The server's process id (the first line of postmaster.pid), when this script started
    the server."""
    if getattr(cluster, "folder", None) is None:
        return None
    with contextlib.suppress(OSError, ValueError):
        text = (cluster.folder / "data" / "postmaster.pid").read_text(encoding="ascii")
        return int(text.splitlines()[0])
    return None


def run_standin(
    setup: Setup, load: Load, *, cluster: Any, seed: int, folder: Path, idle_seconds: float = 0
) -> dict[str, Any]:
    """--standin: one ``benchmarks/discord_standin.py`` process (the stand-in Discord and the
    players), which starts the setup's ``python -m bot`` processes on a new database and
    measures them; PostgreSQL's CPU is read here over its timed phase."""
    work, barrier, database, url = _new_run(setup, load, cluster, folder)
    command = [
        sys.executable,
        str(STANDIN),
        *("--tables", str(load.tables), "--moves", str(load.moves)),
        *("--think-ms", f"{load.think_ms:g}", "--seed", str(seed)),
        *("--processes", str(setup.processes)),
        *("--shards-per-process", str(max(setup.shards_per_process, 1))),
        *("--barrier", str(barrier), "--json"),
        *("--idle-seconds", f"{idle_seconds:g}"),
    ]
    if url is not None:
        command += ["--database-url", url]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(work)}
    env.pop("KACHUFUL_DATABASE_URL", None)
    started = time.perf_counter()
    child: subprocess.Popen[str] | None = None
    try:
        postmaster = _postmaster(cluster) if url is not None else None
        with ServerCpu(postmaster, barrier, 1) as server:
            child = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
            )
            try:
                out, err = child.communicate(timeout=RUN_TIMEOUT)
            except subprocess.TimeoutExpired:
                child.terminate()  # it stops its bots on SIGTERM
                out, err = child.communicate(timeout=60)
        server_seconds = server.seconds
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
        if database is not None:
            with contextlib.suppress(Exception):
                cluster.drop_database(database)
    result: dict[str, Any] = {
        "configuration": setup.name,
        "backend": setup.backend,
        "processes": setup.processes,
        "shards_per_process": setup.shards_per_process,
        "load": load.label,
        "tables": load.tables,
        "moves_per_table": load.moves,
        "think_ms": load.think_ms,
        "wall_seconds": round(time.perf_counter() - started, 1),
    }
    try:
        measured = json.loads(out.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        tail = " | ".join(err.strip().splitlines()[-5:])
        result.update(ok=False, problems=[f"the stand-in exited {child.returncode}: {tail}"])
        return result
    if "interactions" not in measured:  # it could not set up the tables
        result.update(ok=False, problems=measured.get("problems") or ["no figures"])
        return result
    interactions = measured["interactions"] or 1
    bots = measured["cpu_seconds_bots"]
    result.update(measured)
    result.update(
        {
            "configuration": setup.name,
            "cpu_seconds_postgres": None if server_seconds is None else round(server_seconds, 2),
            "cpu_ms_per_interaction_postgres": None
            if server_seconds is None
            else round(server_seconds * 1000 / interactions, 2),
            "cpu_ms_per_interaction": round(
                (bots + (server_seconds or 0.0)) * 1000 / interactions, 2
            ),
        }
    )
    if child.returncode != 0 and not result["problems"]:
        result["problems"].append(f"the stand-in exited {child.returncode}")
    result["ok"] = not result["problems"]
    return result


def _wait_all(children: list[subprocess.Popen[str]]) -> list[tuple[str, str]]:
    """Each child's stdout and stderr; if one fails, the others are stopped (they would wait
    at the barrier for it until its time-out)."""
    deadline = time.perf_counter() + RUN_TIMEOUT
    threads = []
    results: dict[int, tuple[str, str]] = {}

    def collect(index: int, child: subprocess.Popen[str]) -> None:
        results[index] = child.communicate()

    for index, child in enumerate(children):
        thread = threading.Thread(target=collect, args=(index, child), daemon=True)
        thread.start()
        threads.append(thread)
    while any(t.is_alive() for t in threads):
        failed = any(c.returncode not in (None, 0) for c in children)
        if failed or time.perf_counter() > deadline:
            for child in children:
                if child.poll() is None:
                    child.kill()
        time.sleep(0.1)
    return [results.get(i, ("", "")) for i in range(len(children))]


def summarise(
    setup: Setup,
    load: Load,
    children: list[subprocess.Popen[str]],
    outputs: list[tuple[str, str]],
    work: Path,
    server_seconds: float | None,
    wall: float,
) -> dict[str, Any]:
    per_process: list[dict[str, Any]] = []
    problems: list[str] = []
    for index, (child, (out, err)) in enumerate(zip(children, outputs, strict=True)):
        lines = out.strip().splitlines()
        try:
            per_process.append(json.loads(lines[-1]))
        except (IndexError, json.JSONDecodeError):
            tail = " | ".join(err.strip().splitlines()[-3:])
            problems.append(f"process {index} exited {child.returncode} without a result: {tail}")
            continue
        if child.returncode != 0:
            problems.append(f"process {index} exited {child.returncode}")
    result: dict[str, Any] = {
        "configuration": setup.name,
        "backend": setup.backend,
        "processes": setup.processes,
        "load": load.label,
        "tables": load.tables,
        "moves_per_table": load.moves,
        "think_ms": load.think_ms,
        "wall_seconds": round(wall, 1),
        "problems": problems,
    }
    if len(per_process) != setup.processes:
        result["ok"] = False
        return result
    layouts = {p["layout"] for p in per_process}
    if len(layouts) != 1:
        problems.append(f"the processes saw different guild and channel ids: {sorted(layouts)}")
    latencies = []
    for index in range(setup.processes):
        with open(work / f"samples-{index}.csv", encoding="utf-8") as samples:
            latencies += [float(row["latency_ms"]) / 1000 for row in csv.DictReader(samples)]
    interactions = sum(p["interactions"] for p in per_process)
    span = max(p["ended_at"] for p in per_process) - min(p["started_at"] for p in per_process)
    skew = max(p["started_at"] for p in per_process) - min(p["started_at"] for p in per_process)
    bot_cpu = sum(p["cpu_seconds"] for p in per_process)
    unanswered = sum(p["unanswered"] for p in per_process)
    stuck = [s for p in per_process for s in p["stuck_tables"]]
    errors = [e for p in per_process for e in p["bot_errors"]]
    problems += [f"stuck: {s}" for s in stuck[:5]] + [f"bot error: {e}" for e in errors[:5]]
    if unanswered:
        problems.append(f"{unanswered} interactions unanswered")
    left = sum(p["after_every_game_ended"]["sessions"] for p in per_process)
    if left:
        problems.append(f"{left} tables still open after every host's /kachuful stop")
    result.update(
        {
            "interactions": interactions,
            "answered": sum(p["answered"] for p in per_process),
            "unanswered": unanswered,
            "refused": sum(p["refused"] for p in per_process),
            "moves": sum(p["moves"] for p in per_process),
            "seconds": round(span, 3),
            "start_skew_ms": round(skew * 1000, 1),
            "interactions_per_sec": round(interactions / span, 1) if span > 0 else 0.0,
            "latency_ms": latency_summary(latencies),
            "cpu_seconds_bots": round(bot_cpu, 2),
            "cpu_seconds_postgres": None if server_seconds is None else round(server_seconds, 2),
            "cpu_ms_per_interaction_bots": round(bot_cpu * 1000 / interactions, 2),
            "cpu_ms_per_interaction_postgres": None
            if server_seconds is None
            else round(server_seconds * 1000 / interactions, 2),
            "cpu_ms_per_interaction": round(
                (bot_cpu + (server_seconds or 0.0)) * 1000 / interactions, 2
            ),
            "setup_seconds_max": max(p["setup"]["seconds"] for p in per_process),
            "per_process": [
                {
                    key: p[key]
                    for key in (
                        "process_index",
                        "tables",
                        "interactions",
                        "seconds",
                        "interactions_per_sec",
                        "cpu_ms_per_interaction",
                        "latency_ms",
                        "seconds_to_catch_up",
                        "after_every_game_ended",
                    )
                }
                for p in per_process
            ],
        }
    )
    result["ok"] = not problems
    return result


# ---- the whole measurement -------------------------------------------------------------------


def loads(args: argparse.Namespace) -> list[Load]:
    return [
        Load("saturation", args.sat_tables, args.sat_moves, 0.0),
        *(Load(f"tables_{n}", n, args.moves, args.think_ms) for n in args.tables),
    ]


def setups(args: argparse.Namespace) -> list[Setup]:
    if args.standin:
        return [
            Setup("sqlite", 1, 1),
            *(Setup("postgresql", k, s) for k, s in args.pg_shards),
        ]
    return [Setup("sqlite", 1), *(Setup("postgresql", k) for k in args.pg_processes)]


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from tests.pg import start_cluster

    started = time.perf_counter()
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="kachuful-scale-") as folder:
        cluster = start_cluster(durable=not args.fast_pg)
        try:
            for setup in setups(args):
                for load in loads(args):
                    if not args.json_only:
                        print(f"{setup.name}: {load.label} ...", file=sys.stderr, flush=True)
                    place = {"cluster": cluster, "seed": args.seed, "folder": Path(folder)}
                    if args.standin:
                        idle = 0.0 if args.quick or load.think_ms > 0 else 5.0
                        runs.append(run_standin(setup, load, **place, idle_seconds=idle))
                    else:
                        runs.append(run_load(setup, load, **place))
        finally:
            cluster.stop()
    return {
        "runs": runs,
        "ok": all(r["ok"] for r in runs),
        "think_ms": args.think_ms,
        "postgres_durable": not args.fast_pg,
        "standin": args.standin,
        "seconds": round(time.perf_counter() - started, 1),
        "cpus": os.cpu_count(),
        "load_average_at_end": os.getloadavg(),
        "python": platform.python_version(),
        "command": " ".join(["benchmarks/scale_out.py", *sys.argv[1:]]),
    }


def markdown(result: dict[str, Any]) -> str:
    """One row per configuration, one column per measurement."""
    by_setup: dict[str, dict[str, dict[str, Any]]] = {}
    for run in result["runs"]:
        by_setup.setdefault(run["configuration"], {})[run["load"]] = run
    labels = [run["load"] for run in result["runs"]]
    latency_labels = [label for label in dict.fromkeys(labels) if label != "saturation"]
    sat = next(r for r in result["runs"] if r["load"] == "saturation")
    think = result["think_ms"]
    head = [
        "configuration",
        f"interactions/s at saturation ({sat['tables']} tables, think 0)",
        *(
            f"click p99 ms, {label.removeprefix('tables_')} tables, think {think:g} ms"
            for label in latency_labels
        ),
        "CPU ms per interaction (bots + PostgreSQL)",
    ]
    standin = bool(result.get("standin"))
    if standin:
        head.append("stand-in Discord + players, CPU ms per interaction")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, by_load in by_setup.items():
        saturation = by_load.get("saturation", {})
        cells = [name, _cell(saturation, "interactions_per_sec")]
        for label in latency_labels:
            run = by_load.get(label, {})
            cells.append(_cell(run, "latency_ms", "p99"))
        if saturation.get("ok") is not None and "cpu_ms_per_interaction" in saturation:
            pg = saturation["cpu_ms_per_interaction_postgres"]
            cells.append(
                f"{saturation['cpu_ms_per_interaction']:.2f} "
                f"({saturation['cpu_ms_per_interaction_bots']:.2f}"
                + (f" + {pg:.2f})" if pg is not None else " + none)")
            )
        else:
            cells.append("failed")
        if standin:
            cells.append(_cell(saturation, "cpu_ms_per_interaction_standin"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(run: dict[str, Any], key: str, sub: str | None = None) -> str:
    if key not in run:
        return "failed"
    value = run[key][sub] if sub is not None else run[key]
    text = f"{value:.1f}"
    return text if run.get("ok") else f"{text} (not ok)"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: under a minute")
    parser.add_argument(
        "--think-ms", type=float, default=None, help="mean pause before a click (3000)"
    )
    parser.add_argument(
        "--tables",
        type=lambda text: [int(n) for n in text.split(",")],
        default=None,
        help="table counts (in total) to measure the click p99 at (100,500)",
    )
    parser.add_argument("--moves", type=int, default=None, help="moves per table (10)")
    parser.add_argument("--sat-tables", type=int, default=None, help="tables at saturation (100)")
    parser.add_argument(
        "--sat-moves", type=int, default=None, help="moves per table at saturation (20)"
    )
    parser.add_argument(
        "--pg-processes",
        type=lambda text: [int(n) for n in text.split(",")],
        default=None,
        help="process counts on PostgreSQL (2,4; --quick: 2)",
    )
    parser.add_argument(
        "--standin",
        action="store_true",
        help="the bots as real python -m bot processes with gateway shards, against a stand-in "
        "Discord in a process of its own (benchmarks/discord_standin.py)",
    )
    parser.add_argument(
        "--pg-shards",
        type=lambda text: [tuple(int(n) for n in part.split("x")) for part in text.split(",")],
        default=None,
        help="--standin: PROCESSESxSHARDS on PostgreSQL (2x2,4x1; --quick: 2x1)",
    )
    parser.add_argument(
        "--fast-pg",
        action="store_true",
        help="PostgreSQL without fsync and synchronous commits (not as in production)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json-out", metavar="FILE", help="write every run's figures here")
    parser.add_argument("--json-only", action="store_true", help="print the JSON, no table")
    args = parser.parse_args(argv)
    quick = args.quick
    args.think_ms = args.think_ms if args.think_ms is not None else (20.0 if quick else 3000.0)
    args.tables = args.tables or ([4] if quick else [100, 500])
    args.moves = args.moves or (6 if quick else 10)
    args.sat_tables = args.sat_tables or (4 if quick else 100)
    args.sat_moves = args.sat_moves or (6 if quick else 20)
    args.pg_processes = args.pg_processes or ([2] if quick else [2, 4])
    args.pg_shards = args.pg_shards or ([(2, 1)] if quick else [(2, 2), (4, 1)])
    if args.standin and any(len(pair) != 2 or min(pair) < 1 for pair in args.pg_shards):
        parser.error("--pg-shards: PROCESSESxSHARDS, e.g. 2x2,4x1")
    if args.standin:  # the processes are given by --pg-shards
        args.pg_processes = [k for k, _ in args.pg_shards]
    if min(args.pg_processes) < 1 or min(args.tables) < max(args.pg_processes):
        parser.error("process counts must be positive, and every table count at least as large")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Stopped with SIGTERM: still stop the bot processes and remove the cluster (finally).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    result = measure(args)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    if args.json_only:
        print(json.dumps(result))
    else:
        print(markdown(result))
        for run in result["runs"]:
            for problem in run["problems"]:
                print(f"  {run['configuration']}, {run['load']}: {problem}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
