"""benchmarks/store_compare.py runs in its --quick mode (this tree against itself, SQLite
only) and reports a move's commit and the group commit for both sides."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_store_compare_quick() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "store_compare.py"),
            "--quick",
            "--no-postgres",
        ],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    medians = result["medians"]
    for name in (
        "sqlite.move_commit.p50",
        "sqlite.group_commit.p95",
        "sqlite.group_commit.moves_per_s",
    ):
        assert medians[name]["old"] > 0 and medians[name]["new"] > 0
