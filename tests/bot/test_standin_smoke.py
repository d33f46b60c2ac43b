"""Smoke test of the load run against a stand-in Discord in its own process
(benchmarks/scale_out.py --standin --quick, which runs benchmarks/discord_standin.py): real
``python -m bot`` processes, one on a SQLite file and two of one gateway shard each on one
throw-away PostgreSQL, play 4 tables of 6 moves at saturation (and of 6 moves with a short
think time); every click is answered, every move made, each process got the interactions of
its own shards' servers only and posted only there, and the CPU figures are there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Real bot processes, several at a time: every such test runs on one pytest-xdist worker
# (loadgroup), one after the other, so that two do not crowd the machine and miss their limits.
pytestmark = pytest.mark.xdist_group("process-loops")

REPO = Path(__file__).resolve().parents[2]
SCALE_OUT = REPO / "benchmarks" / "scale_out.py"


def test_quick_standin_run(tmp_path: Path) -> None:
    out = tmp_path / "standin.json"
    done = subprocess.run(
        [
            sys.executable,
            str(SCALE_OUT),
            *("--standin", "--quick", "--json-out", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=170,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    runs = {(r["backend"], r["processes"], r["load"]): r for r in result["runs"]}
    assert set(runs) == {
        (backend, k, load)
        for backend, k in (("sqlite", 1), ("postgresql", 2))
        for load in ("saturation", "tables_4")
    }
    for run in runs.values():
        assert run["ok"], run["problems"]
        # Every click of the timed phase answered (within Discord's 3 s), every move made.
        assert run["unanswered"] == 0 and run["late"] == 0
        assert run["answered"] == run["interactions"] == run["sent"] > 0
        assert run["moves"] == run["tables"] * run["moves_per_table"]
        assert run["latency_ms"]["n"] == run["interactions"]
        assert 0 < run["latency_ms"]["median"] <= run["latency_ms"]["p99"]
        assert run["unknown_routes"] == [] and run["posts_in_another_process_guild"] == 0
        assert run["bot_exit_codes"] == [0] * run["processes"]  # SIGTERM: a clean stop
        # CPU: each bot process's and the stand-in's own, apart.
        assert len(run["cpu_seconds_bot_processes"]) == run["processes"]
        assert all(cpu > 0 for cpu in run["cpu_seconds_bot_processes"])
        assert run["cpu_ms_per_interaction_bots"] > 0
        assert run["cpu_ms_per_interaction_standin"] > 0
    assert runs[("sqlite", 1, "saturation")]["moves"] == 4 * 6  # --quick: 6 moves a table

    # One process, unsharded: every interaction on its one connection.
    sqlite = runs[("sqlite", 1, "saturation")]
    assert sqlite["interaction_creates"] == {"process 0 / shard 0": sqlite["interactions"]}
    assert sqlite["cpu_ms_per_interaction_postgres"] is None

    # Two processes of one shard each: process i holds shard i; the 4 tables are in servers
    # on shards 0, 1, 0, 1, so each process got half the interactions, answered them (the
    # callbacks of interactions sent to its shard) and posted only in its own servers.
    pg = runs[("postgresql", 2, "saturation")]
    creates = pg["interaction_creates"]
    assert set(creates) == {"process 0 / shard 0", "process 1 / shard 1"}
    assert sum(creates.values()) == pg["interactions"]
    assert min(creates.values()) > 0
    assert pg["callbacks_by_process"] == {
        "process 0": creates["process 0 / shard 0"],
        "process 1": creates["process 1 / shard 1"],
    }
    assert set(pg["channel_posts_by_process"]) == {"process 0", "process 1"}
    assert min(pg["channel_posts_by_process"].values()) > 0
    # PostgreSQL's own CPU, read from /proc over the timed phase, counted in the total. Measured
    # (not None); a quick run may stay under one clock tick (10 ms) of PostgreSQL's processor
    # time, which /proc then reports as 0.
    assert pg["cpu_ms_per_interaction_postgres"] is not None
    assert pg["cpu_ms_per_interaction_postgres"] >= 0
    # The total is the sum of its parts (each figure rounded apart).
    parts = pg["cpu_ms_per_interaction_bots"] + pg["cpu_ms_per_interaction_postgres"]
    assert pg["cpu_ms_per_interaction"] == pytest.approx(parts, abs=0.01)

    table = done.stdout
    assert "| 1 process, SQLite file |" in table
    assert "| 2 processes x 1 shard, one PostgreSQL |" in table
    assert "stand-in Discord + players, CPU ms per interaction" in table
