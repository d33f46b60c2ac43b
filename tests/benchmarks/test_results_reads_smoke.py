"""benchmarks/results_reads.py runs in its --quick mode and reports every figure it names."""

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


def test_results_reads_quick() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "results_reads.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    sizes = result["sizes"]
    assert list(sizes) == ["200", "600"]
    for figures in sizes.values():
        for name in ("board_rating_all", "board_rating_30d", "board_rating_7d", "stats", "history"):
            assert figures[name]["median"] > 0
        for period in ("30d", "7d"):
            for sort in ("rating", "wins", "average", "exact"):
                assert figures[f"board_{sort}_{period}_cold"]["median"] > 0
    last = sizes["600"]
    assert last["move_alone"]["median"] > 0 and last["move_while_a_read_runs"]["median"] > 0
    assert last["reads_meanwhile"] > 0 and last["moves_overlapping_a_read"] > 0
    assert last["expire_one_day_ms"]["median"] > 0 and last["period_rows"]
    assert result["deals"] == 25 and result["png_bytes"] > 10_000
    assert result["chart_thread_ms"]["median"] > 0 and result["chart_process_ms"]["median"] > 0
