"""Time and bytes per card picture (bot/render/pictures.py), drawn without the cache.

Hands from 1 to 17 cards (17: the largest, three players' full game) and tricks of 3 to 7
seats, complete or not, with the longest names; each drawn ``--rounds`` times, the median
reported. The aim (issue 28): under 15 ms and 40 KB a picture. Also how long the same picture
takes from the cache, which is what a live trick redrawn for each reader costs.

    .venv/bin/python benchmarks/card_pictures.py [--rounds 30] [--quick]

The last line printed is a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.render.pictures import Card, HandPicture, Picture, TrickPicture, draw, draw_anew

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
NAME = "W" * 32  # the widest 32-character display name (shortened in the picture)


def hands(rng: random.Random, sizes: list[int]) -> dict[str, Picture]:
    found: dict[str, Picture] = {}
    for size in sizes:
        cards = sorted(rng.sample(range(52), size), key=lambda c: (c // 13, -(c % 13)))
        found[f"hand of {size}"] = HandPicture(
            tuple(Card(RANKS[c % 13], c // 13) for c in cards),
            dimmed=frozenset(range(0, size, 2)),
        )
    return found


def tricks(rng: random.Random, seats: list[int]) -> dict[str, Picture]:
    found: dict[str, Picture] = {}
    for count in seats:
        cards = rng.sample(range(52), count)
        places = tuple((f"{NAME}{n}", Card(RANKS[c % 13], c // 13)) for n, c in enumerate(cards))
        found[f"trick of {count}, complete"] = TrickPicture(places, winner=count - 1, trump=0)
        half = tuple(
            (name, card if n < count // 2 else None) for n, (name, card) in enumerate(places)
        )
        found[f"trick of {count}, half played"] = TrickPicture(half, trump=None)
    return found


def measure(picture: Picture, rounds: int) -> tuple[float, int]:
    """The median milliseconds of ``rounds`` drawings (each bypassing the cache), and bytes."""
    times = []
    png = b""
    for _ in range(rounds):
        start = time.perf_counter()
        png = draw_anew(picture)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), len(png)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="a few pictures, 3 rounds (CI)")
    args = parser.parse_args()
    rng = random.Random(28)
    rounds = 3 if args.quick else args.rounds
    pictures = {
        **hands(rng, [1, 5] if args.quick else [1, 3, 5, 7, 8, 10, 13, 17]),
        **tricks(rng, [4] if args.quick else [3, 4, 5, 6, 7]),
    }
    draw(next(iter(pictures.values())))  # the fonts loaded once, as in a running bot
    rows = {}
    for name, picture in pictures.items():
        ms, size = measure(picture, rounds)
        rows[name] = {"ms": round(ms, 2), "bytes": size}
        print(f"{name:<28} {ms:7.2f} ms  {size / 1024:6.1f} KB")
    first = next(iter(pictures.values()))
    cached = []
    for _ in range(200):
        start = time.perf_counter()
        draw(first)
        cached.append((time.perf_counter() - start) * 1e6)
    summary = {
        "pictures": rows,
        "worst_ms": max(r["ms"] for r in rows.values()),
        "worst_bytes": max(r["bytes"] for r in rows.values()),
        "cached_us": round(statistics.median(cached), 1),
    }
    print(
        f"worst: {summary['worst_ms']} ms, {summary['worst_bytes'] / 1024:.1f} KB; "
        f"from the cache: {summary['cached_us']} µs"
    )
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
