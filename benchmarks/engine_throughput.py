"""Engine throughput: random full games per second, ours and OpenSpiel's ``oh_hell``.

Part 1, the headline: four players, the default profile, random legal bids and cards
(``rng.choice(game.legal_bids(seat))`` / ``rng.choice(game.legal_cards(seat))``, then
``game.bid`` / ``game.play``), one ``Game.new(rules, seed=i)`` per game, one core. Reports
full games (25 deals) per second and decisions (bids + cards) per second.

Part 2, the comparison: the same kind of random playouts at 3 and 5 players (the counts at
which OpenSpiel's largest hand, ``(52 - 1) // players``, equals ours, ``52 // players``, so both
play the same down-and-up schedule: 33 deals of 17..1..17 and 19 deals of 10..1..10) through
our engine and through OpenSpiel (``benchmarks/openspiel_driver.py``), in both of its chance
modes: ``uniform`` (the faster, so the stronger opponent) and ``outcomes`` (OpenSpiel's own
example pattern). The runs are interleaved and repeated and the medians compared, so noise
does not decide the ratio ``ours / OpenSpiel`` decisions per second: the ratio reported is the
median over the repeats of the ratio of two back-to-back runs, with its range.

Without open_spiel installed, part 2 reports our figures only and says OpenSpiel is skipped.

    .venv/bin/python benchmarks/engine_throughput.py            # full run, about half a minute
    .venv/bin/python benchmarks/engine_throughput.py --quick    # CI smoke run, a few seconds
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(ROOT / "benchmarks") not in sys.path:
    sys.path.insert(0, str(ROOT / "benchmarks"))

from openspiel_driver import (  # noqa: E402
    down_and_up,
    max_hand_size,
    run_openspiel_playouts,
)

from kachuful_core import Game, Phase, Rules  # noqa: E402

COMPARE_PLAYERS = (3, 5)
OPENSPIEL_MODES = ("uniform", "outcomes")


def run_ours(players: int, games: int, seed: int) -> dict[str, Any]:
    """``games`` full games of random legal play on the default profile, timed."""
    rules = Rules(players=players)
    rng = random.Random(seed)
    choice = rng.choice
    bidding = Phase.BIDDING
    finished = Phase.FINISHED
    decisions = 0
    start = time.perf_counter()
    for i in range(games):
        game = Game.new(rules, seed=seed * 1_000_003 + i)
        while True:
            phase = game.phase
            if phase is finished:
                break
            seat = game.turn
            assert seat is not None
            if phase is bidding:
                game.bid(seat, choice(game.legal_bids(seat)))
            else:
                game.play(seat, choice(game.legal_cards(seat)))
        decisions += game.move_count
    seconds = time.perf_counter() - start
    return {
        "games": games,
        "deals": games * rules.num_deals,
        "decisions": decisions,
        "seconds": seconds,
        "games_per_sec": games / seconds,
        "decisions_per_sec": decisions / seconds,
    }


def openspiel_available() -> bool:
    try:
        import pyspiel  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CI smoke run: a few seconds")
    parser.add_argument("--games", type=int, default=None, help="4-player games per repeat")
    parser.add_argument(
        "--compare-games", type=int, default=None, help="games per engine per repeat at 3/5"
    )
    parser.add_argument("--repeats", type=int, default=None, help="interleaved repeats")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel")
    args = parser.parse_args(argv)
    games = args.games if args.games is not None else (4 if args.quick else 300)
    compare_games = (
        args.compare_games if args.compare_games is not None else (1 if args.quick else 60)
    )
    repeats = args.repeats if args.repeats is not None else (3 if args.quick else 7)
    with_openspiel = not args.no_openspiel and openspiel_available()

    # Warm up (imports, caches, the first allocation of everything) outside the timing.
    run_ours(4, 1, args.seed + 999)
    if with_openspiel:
        for players in COMPARE_PLAYERS:
            for m in OPENSPIEL_MODES:
                run_openspiel_playouts(players, [1, 2], 1, args.seed, chance_sampling=m)

    headline: list[dict[str, Any]] = []
    ours_cmp: dict[int, list[float]] = {p: [] for p in COMPARE_PLAYERS}
    theirs: dict[tuple[int, str], list[float]] = {
        (p, m): [] for p in COMPARE_PLAYERS for m in OPENSPIEL_MODES
    }
    for r in range(repeats):
        seed = args.seed + r
        headline.append(run_ours(4, games, seed))
        for players in COMPARE_PLAYERS:
            # Alternate which engine goes first, so drift in machine speed hits both alike.
            order: list[str] = ["ours", *OPENSPIEL_MODES] if with_openspiel else ["ours"]
            if r % 2:
                order.reverse()
            for who in order:
                if who == "ours":
                    res = run_ours(players, compare_games, seed)
                    ours_cmp[players].append(res["decisions_per_sec"])
                else:
                    hand = max_hand_size(players)
                    res = run_openspiel_playouts(
                        players, down_and_up(hand), compare_games, seed, chance_sampling=who
                    )
                    theirs[(players, who)].append(res["decisions_per_sec"])

    med = statistics.median
    gps = med(h["games_per_sec"] for h in headline)
    dps = med(h["decisions_per_sec"] for h in headline)
    decisions_per_game = headline[0]["decisions"] / headline[0]["games"]
    print(f"kachuful_core, 4 players, default profile, random play, median of {repeats}:")
    print(
        f"  {gps:10.1f} full games/s   {dps:12.0f} decisions/s   "
        f"({decisions_per_game:.0f} decisions per 25-deal game)"
    )
    print()
    header = f"{'players':>7}  {'ours dec/s':>11}"
    if with_openspiel:
        header += "  " + "  ".join(
            f"{'OpenSpiel ' + m + ' dec/s':>26}  {'ours/OS (range)':>17}" for m in OPENSPIEL_MODES
        )
    print(header)
    comparison: list[dict[str, Any]] = []
    for players in COMPARE_PLAYERS:
        ours = med(ours_cmp[players])
        row: dict[str, Any] = {"players": players, "ours_decisions_per_sec": round(ours)}
        line = f"{players:>7}  {ours:>11.0f}"
        if with_openspiel:
            for m in OPENSPIEL_MODES:
                os_dps = med(theirs[(players, m)])
                # Paired by repeat (the two ran back to back), then the median of the ratios.
                ratios = [
                    a / b for a, b in zip(ours_cmp[players], theirs[(players, m)], strict=True)
                ]
                ratio = med(ratios)
                row[f"openspiel_{m}_decisions_per_sec"] = round(os_dps)
                row[f"ratio_{m}"] = round(ratio, 3)
                row[f"ratio_{m}_range"] = [round(min(ratios), 3), round(max(ratios), 3)]
                spread = f"{ratio:.2f} ({min(ratios):.2f}-{max(ratios):.2f})"
                line += f"  {os_dps:>26.0f}  {spread:>17}"
        comparison.append(row)
        print(line)
    if not with_openspiel:
        print(
            "OpenSpiel skipped: open_spiel is not installed (pip install -e '.[bench]')"
            if not args.no_openspiel
            else "OpenSpiel skipped (--no-openspiel)"
        )
    print()
    result = {
        "benchmark": "engine_throughput",
        "quick": args.quick,
        "repeats": repeats,
        "games_per_repeat": games,
        "compare_games_per_repeat": compare_games,
        "four_player": {
            "games_per_sec": round(gps, 2),
            "decisions_per_sec": round(dps),
            "decisions_per_game": round(decisions_per_game, 1),
        },
        "comparison": comparison,
        "openspiel": "ok" if with_openspiel else "skipped",
        "python": sys.version.split()[0],
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
