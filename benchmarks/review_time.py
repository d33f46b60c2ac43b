"""What a game's review costs (docs/review.md): computing it, and showing it once stored.

A default 4-player game (25 deals, 13 cards down to 1 and back up) is played by two Casual and
two Beginner computer players, then reviewed the way the bot does it: one deal at a time
(``kachuful_core.review.review_deal``), here in this process. Reported:

- ``compute_s``: the whole review, and ``deal_max_s``, its longest deal (what a computer
  decision at another table may wait behind in the bot's worker);
- ``decisions``: the Expert's decisions it took (bids, card plays of its play-outs);
- ``show_ms_p50`` / ``show_ms_max``: showing the stored review (the store's read on a SQLite
  file, the document checked, the first page and a deal's page rendered), over ``--shows``.

The first deal pays for loading the search player's compiled loops (about half a second from
numba's disk cache): ``warm_s`` reports it apart, measured before the timing starts.

    .venv/bin/python benchmarks/review_time.py           # the default game
    .venv/bin/python benchmarks/review_time.py --quick   # CI smoke run (3 players, 3 cards)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.i18n import translation  # noqa: E402
from bot.render.review import review_page  # noqa: E402
from bot.store.store import Store  # noqa: E402
from kachuful_core import Game, Rules, record_document  # noqa: E402
from kachuful_core.game import Phase  # noqa: E402
from kachuful_core.players import HeuristicPlayer, RandomPlayer, act, warm_up  # noqa: E402
from kachuful_core.review import GameReview, review_deal, reviewable_deals  # noqa: E402


def played(rules: Rules) -> dict[str, object]:
    game = Game.new(rules, b"review benchmark")
    seats = [HeuristicPlayer(1), RandomPlayer(2), HeuristicPlayer(3), RandomPlayer(4)]
    while game.phase is not Phase.FINISHED:
        assert game.turn is not None
        act(game, game.turn, seats[game.turn % len(seats)])
    return record_document(game)


async def show_times(review: GameReview, shows: int) -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(Path(folder) / "kachuful.sqlite3")
        try:
            await store.reviews.put(1, review.model_dump(mode="json"))
            tr = translation("fr")
            times = []
            for _ in range(shows):
                started = time.perf_counter()
                document = await store.reviews.get(1)
                stored = GameReview.model_validate(document)
                review_page(1, stored, 0, tr)
                review_page(1, stored, 1, tr)
                times.append((time.perf_counter() - started) * 1000)
            return times
        finally:
            await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 3-player game of 3 cards")
    parser.add_argument("--shows", type=int, default=50)
    args = parser.parse_args()
    rules = Rules(players=3, max_hand=3) if args.quick else Rules(players=4)
    record = played(rules)
    started = time.perf_counter()
    warm_up()
    warm = time.perf_counter() - started
    deals = []
    times = []
    started = time.perf_counter()
    for number in range(reviewable_deals(record)):
        t0 = time.perf_counter()
        deals.append(review_deal(record, number))
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - started
    review = GameReview(players=tuple(record["players"]), deals=tuple(deals))  # type: ignore[arg-type]
    shown = asyncio.run(show_times(review, 5 if args.quick else args.shows))
    cards = sum(d.hand_size for d in deals) * rules.players
    result = {
        "players": rules.players,
        "deals": len(deals),
        "decisions": {"bids": len(deals) * rules.players, "card_plays": cards},
        "warm_s": round(warm, 2),
        "compute_s": round(total, 2),
        "deal_max_s": round(max(times), 2),
        "show_ms_p50": round(statistics.median(shown), 2),
        "show_ms_max": round(max(shown), 2),
        "document_bytes": len(json.dumps(review.model_dump(mode="json"))),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
