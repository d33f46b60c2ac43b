"""Smoke test of the web round-trip benchmark (benchmarks/web_round_trip.py): a few tables of
three browsers and one Discord player play a few moves each; every web move got its own new
view and every click its answer, both measured."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("processes")

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "benchmarks" / "web_round_trip.py"


def test_a_short_run_measures_both_paths() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--tables",
            "3",
            "--moves",
            "8",
            "--think-ms",
            "20",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["sockets_open"] == result["sockets_seen_by_the_bot"] == 12
    assert result["unanswered"] == 0 and result["stuck_tables"] == []
    assert result["bot_errors"] == []
    web, click = result["web_round_trip_ms"], result["discord_click_ms"]
    # Three seats of four play on the web: most moves are web moves, the rest clicks.
    assert web["n"] > click["n"] > 0
    assert web["n"] + click["n"] >= 12  # 3 tables x 8 moves, some played by themselves
    assert 0 < web["median"] <= web["p99"] <= web["max"]
    assert result["frames_per_web_player"] >= 8
