"""HeuristicPlayer: exact-bid rate, points per deal and time per decision.

Two matches on the default profile (four players, 25 deals a game):

* self-play: four HeuristicPlayers;
* against random: one HeuristicPlayer (its seat rotating from game to game) and three
  RandomPlayers.

Each reports, for the heuristic seats, the share of deals where the tricks taken equal the bid
(exact-bid rate) and the average points per deal; and, over both matches, the median and
99th-percentile time of one decision (``time.perf_counter`` around ``choose_bid`` /
``choose_card``; building the view is not counted; the thread CPU time is shown beside it,
as a figure that a busy machine does not inflate). Targets: exact-bid rate >= 50% in
self-play, >= 5.5 points per deal against random, 99th percentile under 1 ms.

    .venv/bin/python benchmarks/heuristic_player.py             # 80 games = 2,000 deals each
    .venv/bin/python benchmarks/heuristic_player.py --quick     # CI smoke run
    .venv/bin/python benchmarks/heuristic_player.py --check     # exit 1 if a target is missed
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kachuful_core import Card, Game, Phase, Rules, SeatView  # noqa: E402
from kachuful_core.events import DealScored  # noqa: E402
from kachuful_core.players import HeuristicPlayer, Player, RandomPlayer, act  # noqa: E402

TARGET_EXACT_SELF = 0.50
TARGET_POINTS_VS_RANDOM = 5.5
TARGET_P99_MS = 1.0


class Timed:
    """Wraps a player and records how long each of its decisions takes."""

    def __init__(self, player: Player, times: list[float], cpu: list[float]) -> None:
        self.player = player
        self.name = player.name
        self.times = times
        self.cpu = cpu

    def choose_blind(self, view: SeatView) -> bool:
        return self.player.choose_blind(view)

    def choose_bid(self, view: SeatView) -> int:
        cpu = time.thread_time()
        start = time.perf_counter()
        bid = self.player.choose_bid(view)
        self.times.append(time.perf_counter() - start)
        self.cpu.append(time.thread_time() - cpu)
        return bid

    def choose_card(self, view: SeatView) -> Card | None:
        cpu = time.thread_time()
        start = time.perf_counter()
        card = self.player.choose_card(view)
        self.times.append(time.perf_counter() - start)
        self.cpu.append(time.thread_time() - cpu)
        return card


def play_match(
    mode: str, games: int, players: int, seed: int, times: list[float], cpu: list[float]
) -> dict[str, Any]:
    rules = Rules(players=players)
    exact = deals = points = 0
    other_points = other_deals = 0
    for g in range(games):
        game = Game.new(rules, seed=seed * 100_003 + g)
        seats: list[Player]
        if mode == "self":
            heuristic = set(range(players))
            seats = [
                Timed(HeuristicPlayer(seed=seed + g * players + i), times, cpu)
                for i in range(players)
            ]
        else:
            heuristic = {g % players}
            seats = [
                Timed(HeuristicPlayer(seed=seed + g), times, cpu)
                if i in heuristic
                else RandomPlayer(seed=seed + g * players + i)
                for i in range(players)
            ]
        while game.phase is not Phase.FINISHED:
            seat = game.turn
            assert seat is not None
            for event in act(game, seat, seats[seat]):
                if isinstance(event, DealScored):
                    for s in range(players):
                        if s in heuristic:
                            deals += 1
                            exact += event.bids[s] == event.tricks_won[s]
                            points += event.scores[s]
                        else:
                            other_deals += 1
                            other_points += event.scores[s]
    rate = exact / deals
    return {
        "mode": mode,
        "games": games,
        "deals": deals,
        "exact_rate": rate,
        "exact_rate_stderr": math.sqrt(rate * (1 - rate) / deals),
        "points_per_deal": points / deals,
        "opponent_points_per_deal": other_points / other_deals if other_deals else None,
    }


def percentile(sorted_values: list[float], q: float) -> float:
    index = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[index]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CI smoke run: a few seconds")
    parser.add_argument("--games", type=int, default=None, help="games per match (default 80)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    args = parser.parse_args(argv)
    games = args.games if args.games is not None else (2 if args.quick else 80)

    times: list[float] = []
    cpu: list[float] = []
    results = [
        play_match(mode, games, args.players, args.seed, times, cpu) for mode in ("self", "random")
    ]
    times.sort()
    cpu.sort()
    cpu_p99_ms = percentile(cpu, 0.99) * 1e3
    median_ms = statistics.median(times) * 1e3
    p99_ms = percentile(times, 0.99) * 1e3
    max_ms = times[-1] * 1e3

    print(f"HeuristicPlayer, {args.players} players, default profile, {games} games per match")
    print(
        f"{'match':<22} {'deals':>6} {'exact-bid rate':>16} {'points/deal':>12} {'opponents':>10}"
    )
    for r in results:
        label = "self-play" if r["mode"] == "self" else f"vs {args.players - 1} RandomPlayers"
        opp = r["opponent_points_per_deal"]
        print(
            f"{label:<22} {r['deals']:>6} {r['exact_rate']:>9.1%} ±{r['exact_rate_stderr']:.1%}"
            f" {r['points_per_deal']:>12.2f} {'-' if opp is None else f'{opp:.2f}':>10}"
        )
    print(
        f"time per decision over {len(times)} decisions: median {median_ms:.3f} ms, "
        f"p99 {p99_ms:.3f} ms, max {max_ms:.3f} ms (thread CPU time p99 {cpu_p99_ms:.3f} ms)"
    )
    self_res, random_res = results
    checks = {
        "exact_rate_self": self_res["exact_rate"] >= TARGET_EXACT_SELF,
        "points_vs_random": random_res["points_per_deal"] >= TARGET_POINTS_VS_RANDOM,
        "p99_ms": p99_ms < TARGET_P99_MS,
    }
    note = "" if args.players == 4 else " (the targets are set for four players)"
    print(
        "targets: " + ", ".join(f"{k} {'ok' if v else 'MISSED'}" for k, v in checks.items()) + note
    )
    print()
    out = {
        "benchmark": "heuristic_player",
        "quick": args.quick,
        "players": args.players,
        "games_per_match": games,
        "self_play": {k: _round(v) for k, v in self_res.items() if k != "mode"},
        "vs_random": {k: _round(v) for k, v in random_res.items() if k != "mode"},
        "decisions": len(times),
        "decision_ms_median": round(median_ms, 4),
        "decision_ms_p99": round(p99_ms, 4),
        "decision_ms_max": round(max_ms, 4),
        "decision_cpu_ms_p99": round(cpu_p99_ms, 4),
        "targets_met": all(checks.values()),
    }
    print(json.dumps(out))
    return 1 if args.check and not all(checks.values()) else 0


def _round(value: Any) -> Any:
    return round(value, 4) if isinstance(value, float) else value


if __name__ == "__main__":
    sys.exit(main())
