"""Smoke test of the scale-out measurement (benchmarks/scale_out.py --quick): one bot process on
SQLite and two on one throw-away PostgreSQL play the same tables in total, every interaction is
answered, the processes' guild and channel ids agree, and the report puts them side by side.

Also the split itself (benchmarks/bot_load.py --processes K --process-index I): two processes
on one database each play their own guild's tables and no table of the other's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

# Real bot processes, several at a time: every such test runs on one pytest-xdist worker
# (loadgroup), one after the other, so that two do not crowd the machine and miss their limits.
pytestmark = pytest.mark.xdist_group("processes")

REPO = Path(__file__).resolve().parents[2]
SCALE_OUT = REPO / "benchmarks" / "scale_out.py"
BOT_LOAD = REPO / "benchmarks" / "bot_load.py"


def test_quick_run_side_by_side(tmp_path: Path) -> None:
    out = tmp_path / "scale.json"
    done = subprocess.run(
        [sys.executable, str(SCALE_OUT), "--quick", "--json-out", str(out)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    result = json.loads(out.read_text(encoding="utf-8"))
    runs = {(r["backend"], r["processes"], r["load"]): r for r in result["runs"]}
    assert set(runs) == {
        (backend, k, load)
        for backend, k in (("sqlite", 1), ("postgresql", 2))
        for load in ("saturation", "tables_4")
    }
    for run in runs.values():
        assert run["ok"], run["problems"]
        assert run["unanswered"] == 0 and run["answered"] == run["interactions"] > 0
        # Same total load: every table made its moves, whoever played it.
        assert run["moves"] == run["tables"] * run["moves_per_table"] == 4 * 6
        assert len(run["per_process"]) == run["processes"]
        assert sum(p["tables"] for p in run["per_process"]) == 4
        assert run["interactions_per_sec"] > 0
        assert run["latency_ms"]["n"] == run["answered"]
        assert run["latency_ms"]["median"] <= run["latency_ms"]["p99"] <= run["latency_ms"]["max"]
        assert run["cpu_ms_per_interaction_bots"] > 0
    # PostgreSQL's own CPU is measured (from /proc) for the PostgreSQL runs only, and counted.
    pg = runs[("postgresql", 2, "saturation")]
    assert pg["cpu_ms_per_interaction_postgres"] is not None
    # Measured (not None); a quick run may stay under one clock tick (10 ms) of PostgreSQL's
    # processor time, which /proc then reports as 0.
    assert pg["cpu_ms_per_interaction_postgres"] >= 0
    assert pg["cpu_ms_per_interaction"] >= pg["cpu_ms_per_interaction_bots"]
    assert runs[("sqlite", 1, "saturation")]["cpu_ms_per_interaction_postgres"] is None
    # The two processes started their timed phases together (the barrier).
    assert pg["start_skew_ms"] < 1000

    table = done.stdout
    assert "| 1 process, SQLite file |" in table
    assert "| 2 processes, one PostgreSQL |" in table
    assert "interactions/s at saturation" in table and "click p99 ms, 4 tables" in table


def test_two_processes_play_only_their_own_guild(pg_url: str, tmp_path: Path) -> None:
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    children = [
        subprocess.Popen(
            [
                sys.executable,
                str(BOT_LOAD),
                *("--tables", "5", "--moves", "4", "--think-ms", "0", "--json"),
                *("--processes", "2", "--process-index", str(index)),
                *("--barrier", str(barrier), "--database-url", pg_url),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        for index in (0, 1)
    ]
    results = []
    outputs: list[tuple[str, str]] = []
    try:
        for child in children:
            out, err = child.communicate(timeout=240)
            outputs.append((out, err))
            assert child.returncode == 0, out + err[-3000:]
            results.append(json.loads(out.strip().splitlines()[-1]))
    except subprocess.TimeoutExpired as error:
        # One process waits at the barrier for the other: say what the other said.
        for child in children:
            if child.poll() is None:
                child.kill()
            outputs.append(child.communicate())
        said = [err[-2000:] for _, err in outputs]
        raise AssertionError(f"a process did not finish: {said}") from error
    finally:
        for child in children:  # a failed run leaves no process behind
            if child.poll() is None:
                child.kill()
                child.communicate()

    assert [r["tables"] for r in results] == [2, 3]  # 5 tables split as evenly as can be
    assert results[0]["layout"] == results[1]["layout"]
    assert all(r["backend"] == "postgresql" and r["unanswered"] == 0 for r in results)
    # In the one database: 5 games, in 5 distinct channels, on 2 servers (guilds), each
    # server's games all played by one process (2 and 3), every game stopped at the end.
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT guild_id, channel_id, status FROM games").fetchall()
    assert len(rows) == 5
    assert len({channel for _, channel, _ in rows}) == 5
    per_guild = sorted(
        sum(1 for g, _, _ in rows if g == guild) for guild in {g for g, _, _ in rows}
    )
    assert per_guild == [2, 3]
    assert {status for _, _, status in rows} == {"stopped"}
