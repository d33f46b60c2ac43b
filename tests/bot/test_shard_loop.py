"""Two bot processes with two gateway shards each (benchmarks/shard_loop.py): four servers,
one per shard, play at once on one database while the processes are SIGKILLed in turn; a
killed process's games wait untouched by the other and resume when it restarts, and nothing is
lost, doubled or posted by the wrong process."""

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
SCRIPT = REPO / "benchmarks" / "shard_loop.py"


def run(tmp_path: Path, *args: str, timeout: float) -> tuple[int, dict[str, object], str]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--workdir", str(tmp_path / "shard_loop"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
    )
    summary = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    return done.returncode, summary, done.stdout + done.stderr


def test_two_processes_of_two_shards_each_survive_kills_in_turn(tmp_path: Path) -> None:
    code, summary, output = run(
        tmp_path, "--kills", "4", "--seed", "2", "--max-delay", "0.8", timeout=240
    )
    assert code == 0, output
    assert summary["ok"] is True and summary["violations"] == []
    assert summary["shards_per_process"] == [[0, 1], [2, 3]]
    # Four kills in turn, then each process once more before the finishing runs (the long
    # run is the script's: docs/reliability.md).
    assert summary["kills_per_process"] == [3, 3]
    assert summary["checks_while_down"] == 4
    finished = summary["finished_per_server"]
    assert isinstance(finished, list) and len(finished) == 4
    assert all(isinstance(n, int) and n >= 1 for n in finished)
    assert summary["integrity_check"] == "ok"
    assert summary["games_finished"] == summary["games"]
    moves = summary["member_moves_seen_accepted"]
    assert isinstance(moves, int) and moves > 0


def test_two_processes_of_two_shards_each_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    """The same on one PostgreSQL: the processes share nothing but the database."""
    code, summary, output = run(
        tmp_path, "--kills", "3", "--seed", "7", "--database-url", pg_url, timeout=240
    )
    assert code == 0, output
    assert summary["ok"] is True and summary["violations"] == []
    assert summary["checks_while_down"] == 3
    finished = summary["finished_per_server"]
    assert isinstance(finished, list) and len(finished) == 4 and all(n >= 1 for n in finished)
    assert summary["games_finished"] == summary["games"]
