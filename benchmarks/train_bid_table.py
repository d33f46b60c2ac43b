"""Fit the search player's fast bidder model: ``kachuful_core/players/data/bid_table.json``.

The search player weighs each sampled deal by how likely the bids made are for the hands the
sample gives the bidders, and predicts the bids of the seats still to bid; it does this for
hundreds of sampled hands per decision, too many for :class:`HeuristicPlayer`'s trick model
(about 0.15 ms a hand). So that model is distilled into a table: on random deals of this
repository's own engine (seeded, so the table is reproducible), every seat's calibrated trick
chance per card is averaged by (players, hand size, seat leads the first trick, trump or side
card, rank, length of the card's suit in the hand: 1, 2, 3, 4+). A hand's expected trick count
is then the sum of its cards' table entries.

    .venv/bin/python benchmarks/train_bid_table.py            # writes the table (~2 min)
    .venv/bin/python benchmarks/train_bid_table.py --quick    # a smoke run, writes nothing
    .venv/bin/python benchmarks/train_bid_table.py --out F    # writes F instead
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kachuful_core import Game, Rules, view  # noqa: E402
from kachuful_core.players.bid_table import CELLS, FORMAT  # noqa: E402
from kachuful_core.players.heuristic import trick_chances  # noqa: E402

OUT = ROOT / "kachuful_core" / "players" / "data" / "bid_table.json"
ABOUT = (
    "The search player's distilled bidder model, written by benchmarks/train_bid_table.py: "
    "do not edit. table[players][hand size][((lead * 2 + trump) * 13 + rank) * 4 + length - 1] "
    "is the mean calibrated trick chance of a card under HeuristicPlayer's model."
)


def fit(players: int, hand: int, deals: int, seed: int) -> list[float]:
    """Mean calibrated trick chance per cell (lead, trump, rank, length bucket)."""
    sums = [0.0] * CELLS
    counts = [0] * len(sums)
    rules = Rules(players=players, max_hand=hand, schedule="down")
    for d in range(deals):
        game = Game.new(rules, seed=f"bid-table/{seed}/{players}/{hand}/{d}")
        for seat in range(players):
            v = view(game, seat)
            assert v.hand is not None and v.trump is not None
            if hand == 1:
                continue  # one-card deals are computed exactly by the player
            lead = 1 if v.leader == seat else 0
            for c, p in trick_chances(v).items():
                s = c // 13
                length = min(sum(1 for x in v.hand if x // 13 == s), 4) - 1
                cell = ((lead * 2 + (1 if s == v.trump else 0)) * 13 + c % 13) * 4 + length
                sums[cell] += p
                counts[cell] += 1
    # Cells never seen (e.g. a suit of four in a two-card hand) borrow the nearest length.
    out = [0.0] * len(sums)
    for cell in range(len(sums)):
        if counts[cell]:
            out[cell] = sums[cell] / counts[cell]
    for cell in range(len(sums)):
        if not counts[cell]:
            base = cell - cell % 4
            seen = [base + k for k in range(4) if counts[base + k]]
            if seen:
                near = min(seen, key=lambda x: abs(x - cell))
                out[cell] = out[near]
    return [round(x, 3) for x in out]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: writes nothing")
    parser.add_argument("--deals", type=int, default=200, help="deals per table entry")
    parser.add_argument(
        "--out", type=Path, help=f"where to write the table (default: {OUT.relative_to(ROOT)})"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    table: dict[int, dict[int, list[float]]] = {}
    players_range = [4] if args.quick else list(range(3, 8))
    for n in players_range:
        table[n] = {}
        top = 3 if args.quick else 52 // n
        for h in range(2, top + 1):
            table[n][h] = fit(n, h, 5 if args.quick else args.deals, args.seed)
    seconds = time.perf_counter() - start
    out = args.out if args.out is not None or args.quick else OUT
    if out is not None:
        doc = {
            "format": FORMAT,
            "about": ABOUT,
            "deals": args.deals,
            "seed": args.seed,
            "table": {str(n): {str(h): c for h, c in by.items()} for n, by in table.items()},
        }
        out.write_text(json.dumps(doc, separators=(",", ":")) + "\n", encoding="utf-8")
    print(
        json.dumps(
            {
                "benchmark": "train_bid_table",
                "quick": args.quick,
                "seconds": round(seconds, 2),
                "players": players_range,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
