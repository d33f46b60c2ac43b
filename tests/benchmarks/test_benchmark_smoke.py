"""Each benchmark script runs in its --quick mode and reports what it says it measures.

The figures themselves are checked by running the scripts by hand (docs/benchmarks.md); here
only that they run, finish and print a well-formed result line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kachuful_core.players import bid_table

ROOT = Path(__file__).resolve().parents[2]


def run_script(name: str, *args: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), "--quick", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    result = json.loads(last)
    assert isinstance(result, dict)
    return result


def test_engine_throughput_smoke() -> None:
    result = run_script("engine_throughput.py", "--no-openspiel")
    four = result["four_player"]
    assert isinstance(four, dict)
    assert four["decisions_per_game"] == 824.0  # 25 deals: 100 bids and 724 cards
    assert four["decisions_per_sec"] > 0


def test_heuristic_player_smoke() -> None:
    result = run_script("heuristic_player.py")
    for match in ("self_play", "vs_random"):
        figures = result[match]
        assert isinstance(figures, dict)
        assert 0.0 <= figures["exact_rate"] <= 1.0
    assert result["decisions"] > 0
    assert result["decision_ms_p99"] >= result["decision_ms_median"] > 0


def test_search_player_smoke() -> None:
    # The levels against each other on short games (no OpenSpiel needed): every pair plays,
    # and every level reports its figures and its time per decision.
    result = run_script("search_player.py")
    pairs = result["pairs"]
    assert isinstance(pairs, dict)
    assert set(pairs) == {"random vs heuristic", "random vs search", "heuristic vs search"}
    for pair in pairs.values():
        for figures in pair.values():
            assert 0.0 <= figures["exact_rate"] <= 1.0
            assert figures["seat_deals"] > 0
            assert figures["decision_ms_p99"] >= figures["decision_ms_median"] >= 0


def test_train_bid_table_smoke(tmp_path: Path) -> None:
    out = tmp_path / "bid_table.json"
    result = run_script("train_bid_table.py", "--out", str(out))
    assert result["quick"] is True
    table = bid_table.parse(json.loads(out.read_text(encoding="utf-8")))
    assert sorted(table) == [4] and sorted(table[4]) == [2, 3]
    # The smoke run's few deals give other chances than the shipped table's, in its shape.
    assert len(table[4][3]) == len(bid_table.TABLE[4][3]) == bid_table.CELLS


@pytest.mark.parametrize(
    "name",
    ["engine_throughput.py", "heuristic_player.py", "search_player.py", "train_bid_table.py"],
)
def test_benchmarks_document_their_command_line(name: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0
    assert "--quick" in done.stdout


def test_catch_up_smoke() -> None:
    # A short fast game at the default pacing: the figures are there, and the newest message
    # offered "Your hand" throughout.
    result = run_script("catch_up.py")
    assert result["moves"] > 0 and result["game_s"] > 0
    assert result["final_lag_s"] is not None and result["final_lag_s"] >= 0
    assert result["longest_without_hand_s"] == 0.0


def test_card_pictures_smoke() -> None:
    result = run_script("card_pictures.py")
    rows = result["pictures"]
    assert isinstance(rows, dict) and "hand of 5" in rows and "trick of 4, complete" in rows
    assert all(row["bytes"] > 0 and row["ms"] > 0 for row in rows.values())


def test_event_load_smoke() -> None:
    """benchmarks/event_load.py --quick runs an event of two tables and reports its figures."""
    result = run_script("event_load.py")
    assert result["tables"] == 2 and result["clicks"] == 8  # one bid each, cards forced
    assert result["conductor_passes"] > 0 and result["click_p99_ms"] > 0


def test_review_time_smoke() -> None:
    """benchmarks/review_time.py --quick reviews a short game and reports its figures."""
    result = run_script("review_time.py")
    assert result["deals"] == 5 and result["decisions"] == {"bids": 15, "card_plays": 33}
    assert result["compute_s"] > 0 and result["show_ms_p50"] > 0
