"""benchmarks/disk_growth.py in its --quick mode: one quick game on each store, measured.

The figures are for docs/benchmarks.md (run by hand); here: the game is played to its end on
each store and every figure is there and consistent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Real bot processes, several at a time: every such test runs on one pytest-xdist worker
# (loadgroup), one after the other, so that two do not crowd the machine and miss their limits.
pytestmark = pytest.mark.xdist_group("processes")

ROOT = Path(__file__).resolve().parents[2]
# A quick 4-player game: hands 5, 4, 3, 2, 1, 2, 3, 4, 5 (29 tricks, 116 cards) and 36 bids.
QUICK_GAME_MOVES = 152


def test_disk_growth_smoke(tmp_path: Path) -> None:
    out = tmp_path / "disk.json"
    script = ROOT / "benchmarks" / "disk_growth.py"
    done = subprocess.run(
        [sys.executable, str(script), "--quick", "--json-out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text(encoding="utf-8"))
    assert [run["backend"] for run in result["runs"]] == ["sqlite", "postgresql"]
    for run in result["runs"]:
        assert run["moves"] == QUICK_GAME_MOVES
        assert run["empty_live_bytes"] > 0
        assert run["bytes_per_game_live"] >= 0
        assert run["bytes_per_game_on_disk"] >= run["bytes_per_game_live"]
        assert {"games", "results", "posts"} <= set(run["tables_per_game"])
    assert "| sqlite |" in done.stdout and "| postgresql |" in done.stdout
