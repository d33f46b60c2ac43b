"""Kill at any moment (benchmarks/kill_loop.py): the bot SIGKILLed 20 times while it plays on one
SQLite file, then a clean run to the end; every check of the script must hold. The same with
kills in the middle of a score pad, a practice deal and an event (benchmarks/kill_features.py).
And the checks do catch a bot that posts the final standings twice, loses a post, forgets the
results, leaves a finished pad uncounted, posts an event's message twice or makes a practice
deal twice."""

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
SCRIPT = REPO / "benchmarks" / "kill_loop.py"


def run(tmp_path: Path, *args: str, timeout: float) -> tuple[int, dict[str, object], str]:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--workdir", str(tmp_path / "kill_loop"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
    )
    summary = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    return done.returncode, summary, done.stdout + done.stderr


def test_kills_lose_nothing_and_double_nothing(tmp_path: Path) -> None:
    """Eight kills (the long runs, 300 kills on each store, are the script's:
    docs/reliability.md)."""
    code, summary, output = run(
        tmp_path, "--kills", "8", "--seed", "8", "--max-delay", "0.8", "--features=", timeout=150
    )
    assert code == 0, output
    assert summary["ok"] is True and summary["violations"] == []
    assert summary["kills"] == 8
    # Seed 8 kills at every kind of moment.
    modes = summary["kill_modes"]
    assert isinstance(modes, dict) and set(modes) == {"startup", "random", "click", "post", "lobby"}
    assert summary["integrity_check"] == "ok"
    assert summary["games_finished"] == summary["games"] >= 3
    assert summary["member_moves_seen_accepted"] > 0
    assert summary["posts_reported"] >= summary["distinct_posts"] > 0


def test_kills_on_postgresql_lose_nothing_and_double_nothing(tmp_path: Path, pg_url: str) -> None:
    """The same on PostgreSQL (fewer kills: the SQLite run above covers the kinds of moment)."""
    code, summary, output = run(
        tmp_path,
        *("--kills", "5", "--seed", "8", "--max-delay", "0.8", "--database-url", pg_url),
        timeout=150,
    )
    assert code == 0, output
    assert summary["ok"] is True and summary["violations"] == []
    assert summary["backend"] == "postgresql" and summary["kills"] == 5
    assert summary["games_finished"] == summary["games"] >= 3
    assert summary["member_moves_seen_accepted"] > 0
    assert summary["posts_reported"] >= summary["distinct_posts"] > 0


def test_kills_during_pads_practice_and_events_lose_and_double_nothing(tmp_path: Path) -> None:
    """A handful of kills, seed 29: one in the middle of a score pad, of a practice deal and of
    an event each (and one at random, one while a table's click was handled)."""
    code, summary, output = run(
        tmp_path,
        *("--kills", "5", "--seed", "29", "--tables", "1", "--max-delay", "0.5"),
        *("--event-rounds", "1"),
        timeout=120,
    )
    assert code == 0, output
    assert summary["ok"] is True and summary["violations"] == []
    modes = summary["kill_modes"]
    assert isinstance(modes, dict) and {"pad", "practice", "event"} <= set(modes), modes
    pads, practice, events = summary["pads"], summary["practice"], summary["events"]
    assert isinstance(pads, dict) and pads["pads_finished"] == pads["pads"] >= 1
    assert pads["entries_seen_committed"] > 0 and pads["pad_messages"] == pads["pads"]
    assert isinstance(practice, dict) and practice["practice_moves_seen_accepted"] > 0
    assert isinstance(events, dict) and events["events_finished"] == events["events"] >= 1
    assert events["event_games"] == events["event_tables"] == events["event_threads"] >= 2


def test_the_checks_catch_a_broken_bot(tmp_path: Path) -> None:
    """One run of a bot with six known bugs: each is reported."""
    faults = ["--fault=double-final", "--fault=lost-post", "--fault=no-results"]
    faults += ["--fault=pad-uncounted", "--fault=event-message-twice", "--fault=practice-twice"]
    code, summary, output = run(
        tmp_path, "--kills", "1", "--seed", "1", "--event-rounds", "1", *faults, timeout=120
    )
    assert code == 1, output
    assert summary["ok"] is False
    violations = [str(v) for v in summary["violations"]]  # type: ignore[attr-defined]
    for found in (
        "twice in one process",
        "d0.score never posted",
        "0 result rows for 3 seats",
        "real-deck board",
        "its message posted twice in one process",
        "deals stored for 1 starts",
    ):
        assert any(found in v for v in violations), (found, violations)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds processes in /proc")
def test_killed_bots_leave_no_worker_process_behind(tmp_path: Path) -> None:
    """Each child starts its computer players' pool; SIGKILLed, it leaves none of it behind."""
    code, summary, output = run(
        tmp_path,
        *("--kills", "4", "--seed", "3", "--computer-workers", "1", "--features="),
        timeout=150,
    )
    assert code == 0, output
    assert summary["ok"] is True and summary["kills"] == 4
    # At least one kill found the whole pool up (a forkserver, a worker, a resource tracker):
    # on a busy machine (the suite beside it) the other kills may come before the pool starts.
    assert summary["processes_started_by_killed_children"] >= 3
    assert summary["stray_processes"] == 0
    slowest = summary["slowest_end_after_kill_s"]
    assert isinstance(slowest, float) and slowest < 5.0
