"""Smoke test of the load benchmark (benchmarks/bot_load.py --quick --json): it runs, prints
its one JSON line, and every interaction it sent was answered."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Real bot processes, several at a time: every such test runs on one pytest-xdist worker
# (loadgroup), one after the other, so that two do not crowd the machine and miss their limits.
pytestmark = pytest.mark.xdist_group("processes")

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "bot_load.py"


@pytest.mark.parametrize("burst", [False, True], ids=["spread start", "burst start"])
def test_quick_run_answers_every_interaction(burst: bool, tmp_path: Path) -> None:
    samples = tmp_path / "samples.csv"
    extra = ["--burst-start"] if burst else []
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--json", "--samples", str(samples), *extra],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])

    for key in (
        "tables",
        "interactions",
        "seconds",
        "interactions_per_sec",
        "latency_ms",
        "memory_per_table_kb",
        "rest_calls_per_move",
        "public_messages",
        "python",
        "discord.py",
    ):
        assert key in result, key
    assert set(result["latency_ms"]) >= {"median", "p95", "p99", "max"}
    assert result["latency_ms"]["median"] <= result["latency_ms"]["p99"]
    assert result["latency_ms"]["p99"] <= result["latency_ms"]["max"]

    assert result["tables"] == 4
    assert result["interactions"] > 0
    assert result["answered"] == result["interactions"]
    assert result["unanswered"] == 0
    assert result["refused"] == 0
    assert result["bot_errors"] == []
    assert result["setup"]["answered"] == result["setup"]["interactions"] > 0
    assert result["moves"] == result["tables"] * result["moves_per_table"]
    assert result["seconds"] > 0 and result["interactions_per_sec"] > 0
    assert result["memory_per_table_kb"] > 0
    # Discord REST calls per move (answers, hand redraws, public posts and edits), and the
    # table's public messages: some posted, spent turn pings deleted.
    assert result["rest_calls_per_move"] >= 1  # at least the answer to the click
    assert result["rest_calls_per_move"] >= result["channel_calls_per_move"] > 0
    assert result["public_messages"]["posted_per_move"] > 0
    assert result["public_messages"]["left_per_table"] >= 4  # lobby, start, bids, a trick

    # One CSV row per timed click, with the latencies summarised above.
    lines = samples.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "kind,table,sent_s,latency_ms"
    assert len(lines) - 1 == result["answered"]
    latencies = [float(line.split(",")[3]) for line in lines[1:]]
    assert abs(max(latencies) - result["latency_ms"]["max"]) < 0.01


def test_the_json_copy_given_to_simcord_is_a_deep_copy() -> None:
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from bot_load import json_copy
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    import copy

    body = {
        "content": "x",
        "embeds": [{"fields": [{"name": "a", "value": "b", "inline": True}], "colour": 3}],
        "components": [{"type": 1, "components": [{"type": 2, "label": "A♠", "id": None}]}],
        "n": 1.5,
        "t": (1, [2]),
    }
    copied = json_copy(body)
    assert copied == copy.deepcopy(body)
    copied["embeds"][0]["fields"][0]["name"] = "changed"
    copied["components"][0]["components"].append({})
    copied["t"][1].append(3)
    assert body["embeds"][0]["fields"][0]["name"] == "a"
    assert len(body["components"][0]["components"]) == 1
    assert body["t"] == (1, [2])
